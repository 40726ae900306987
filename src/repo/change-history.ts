/**
 * What the commits before a commit said and what they changed: each commit's message and the lines its diff
 * added or removed in files a registered language parses. The history-meaning channel learns from these pairs
 * which words of a message go with which identifiers of the code (src/index/word-associations.ts).
 *
 * Only ancestors of the commit are read (`git log <commit>`), so an instance's own fix and everything after it
 * stay out. Merges are left out (they repeat their branches), as is the code side of a commit that changes more
 * than MAX_CHANGED_LINES lines (a vendored library, a reformatting: its words say nothing of those lines).
 */
import { LANGUAGES, languageForPath } from '../languages/index.ts';
import { assertCommitHash, runGit } from './git.ts';

export interface CommitChange {
  message: string;
  /** added and removed lines of source files, joined (empty for a commit over the size limit) */
  changed: string;
}

export const MAX_CHANGED_LINES = 2000;
const START = '\x00';
const END_OF_MESSAGE = '\x01';

function codeOf(patch: string): string {
  const out: string[] = [];
  let source = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      const b = line.slice(line.lastIndexOf(' b/') + 3);
      source = languageForPath(b) !== undefined;
    } else if (source && (line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++') && !line.startsWith('---')) {
      out.push(line.slice(1));
      if (out.length > MAX_CHANGED_LINES) return '';
    }
  }
  return out.join('\n');
}

/** `*.py`, `*.go`, … for every registered language's extensions. */
function sourcePathspecs(): string[] {
  return [...new Set(LANGUAGES.flatMap((l) => l.extensions))].map((ext) => `*${ext}`);
}

/** The `limit` most recent non-merge commits up to `commit` (itself included) that change source files, newest first. */
export async function recentChanges(gitDir: string, commit: string, limit: number): Promise<CommitChange[]> {
  if (!(limit > 0)) return [];
  assertCommitHash(commit, `${gitDir}: the commit whose history is read`);
  const { stdout } = await runGit([
    '--git-dir',
    gitDir,
    'log',
    '-p',
    '-U0',
    '--no-merges',
    '--no-renames',
    '--no-ext-diff',
    '--no-color',
    '-n',
    String(limit),
    `--format=${'%x00'}%B${'%x01'}`,
    '--end-of-options',
    commit,
    // source files only: a mirror may lack old blobs of data files (a snapshot without large objects), and their
    // diffs say nothing of identifiers anyway
    '--',
    ...sourcePathspecs(),
  ]);
  const out: CommitChange[] = [];
  for (const record of stdout.toString('utf8').split(START)) {
    const end = record.indexOf(END_OF_MESSAGE);
    if (end < 0) continue;
    out.push({ message: record.slice(0, end).trim(), changed: codeOf(record.slice(end + 1)) });
  }
  return out;
}
