/**
 * What the commits before a commit said and what they changed: each commit's message, the lines its diff added or
 * removed in files a registered language parses, and the definitions those changes were in. The history-meaning
 * channel learns from message and lines which words go with which identifiers (src/index/word-associations.ts); the
 * function level reads which functions similar commits changed (localizer/function-ranking/history.ts).
 *
 * Only ancestors of the commit are read (`git log <commit>`), so an instance's own fix and everything after it
 * stay out. Merges are left out (they repeat their branches), as is the code side of a commit that changes more
 * than MAX_CHANGED_LINES lines (a vendored library, a reformatting: its words say nothing of those lines). The
 * output is read as a stream, a line at a time: a repository's history is evaluated data and can be any size.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LANGUAGES, languageForPath } from '../languages/index.ts';
import { assertCommitHash, streamGitLines } from './git.ts';

export interface ChangedDefinition {
  path: string;
  /** the definition's own name (`method`, not `Class.method`) as git's hunk header names it */
  name: string;
}

export interface CommitChange {
  message: string;
  /** added and removed lines of source files, joined (empty for a commit over the size limit) */
  changed: string;
  /** the definitions its hunks fall in, once each (absent: a history read before this was recorded) */
  definitions?: ChangedDefinition[];
}

export const MAX_CHANGED_LINES = 2000;
/** a message longer than this is cut: a commit's words are in its first lines */
const MAX_MESSAGE_CHARS = 20_000;
const START = '\x00';
const END_OF_MESSAGE = '\x01';

/** `*.py`, `*.go`, … for every registered language's extensions. */
function sourcePathspecs(): string[] {
  return [...new Set(LANGUAGES.flatMap((l) => l.extensions))].map((ext) => `*${ext}`);
}

let driversFile: string | undefined;
/**
 * A gitattributes file naming each language's built-in diff driver, so hunk headers name the enclosing method (git's
 * default finds only unindented lines: a method's class). Written once per process in a private folder.
 */
function diffDriversFile(): string {
  if (driversFile) return driversFile;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-diff-drivers-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const lines = LANGUAGES.flatMap((l) => (l.gitDiffDriver ? l.extensions.map((ext) => `*${ext} diff=${l.gitDiffDriver}`) : []));
  const file = path.join(dir, 'attributes');
  writeFileSync(file, `${lines.join('\n')}\n`);
  driversFile = file;
  return file;
}

// `def name(`, `class Name`, `func (r *T) Name(`, `fn name`, `function name(`; else the name before the first `(`
const DECLARED = /\b(?:def|class|func|fn|function|struct|enum|trait|impl|interface|module|sub)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)/;
const CALLED = /([A-Za-z_$][\w$]*)\s*\(/;

/** The definition a hunk header's context line opens, if it names one. */
export function hunkDefinition(context: string): string | undefined {
  return (DECLARED.exec(context) ?? CALLED.exec(context))?.[1];
}

/** Builds one commit's change from its lines, as they stream by. */
class ChangeBuilder {
  private readonly message: string[] = [];
  /** characters of `message` so far: joining it for every line of a long message was quadratic */
  private messageChars = 0;
  private inMessage = true;
  private readonly code: string[] = [];
  private overLimit = false;
  private source = false;
  private path = '';
  private readonly definitions = new Map<string, ChangedDefinition>();

  add(line: string): void {
    if (this.inMessage) {
      const end = line.indexOf(END_OF_MESSAGE);
      if (this.messageChars < MAX_MESSAGE_CHARS) {
        const kept = end < 0 ? line : line.slice(0, end);
        this.message.push(kept);
        this.messageChars += kept.length + 1;
      }
      if (end >= 0) this.inMessage = false;
      return;
    }
    if (line.startsWith('diff --git ')) {
      this.path = line.slice(line.lastIndexOf(' b/') + 3);
      this.source = languageForPath(this.path) !== undefined;
      return;
    }
    if (!this.source) return;
    if (line.startsWith('@@')) {
      const name = hunkDefinition(line.replace(/^@@[^@]*@@ ?/, ''));
      // as many as the lines kept: a commit's hunks are as many as the history's output is long
      if (name && this.definitions.size < MAX_CHANGED_LINES) this.definitions.set(`${this.path}\n${name}`, { path: this.path, name });
    } else if ((line.startsWith('+') || line.startsWith('-')) && !line.startsWith('+++') && !line.startsWith('---') && !this.overLimit) {
      this.code.push(line.slice(1));
      if (this.code.length > MAX_CHANGED_LINES) [this.overLimit, this.code.length] = [true, 0];
    }
  }

  build(): CommitChange {
    return { message: this.message.join('\n').slice(0, MAX_MESSAGE_CHARS).trim(), changed: this.code.join('\n'), definitions: [...this.definitions.values()] };
  }
}

/** The `limit` most recent non-merge commits up to `commit` (itself included) that change source files, newest first. */
export async function recentChanges(gitDir: string, commit: string, limit: number): Promise<CommitChange[]> {
  if (!(limit > 0)) return [];
  assertCommitHash(commit, `${gitDir}: the commit whose history is read`);
  const out: CommitChange[] = [];
  let current: ChangeBuilder | undefined;
  const args = [
    '-c',
    `core.attributesFile=${diffDriversFile()}`,
    '--git-dir',
    gitDir,
    'log',
    '-p',
    '-U0',
    '--no-merges',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
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
  ];
  await streamGitLines(args, (line) => {
    if (line.startsWith(START)) {
      if (current) out.push(current.build());
      current = new ChangeBuilder();
      line = line.slice(START.length);
    }
    current?.add(line);
    return undefined;
  });
  if (current) out.push(current.build());
  return out;
}
