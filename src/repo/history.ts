/**
 * The commits before a commit: message and the files each one changed. Retrieval uses them as "similar
 * past fixes" (BugLocator's SimiScore idea): an issue that reads like an earlier commit message probably
 * concerns the files that commit touched.
 *
 * Only ancestors of the commit are read, so nothing from the instance's own fix (or any later commit) can
 * leak in. Commits are memoized by id per git directory: the next instance of the same repository asks git
 * only for the commits it has not seen (`rev-list` is cheap; the per-commit diff names are not).
 */
import { runGit } from './git.ts';

export interface CommitRecord {
  id: string;
  /** subject and body */
  message: string;
  /** paths changed relative to its parent (read with --no-renames: a rename lists the old and the new path) */
  files: string[];
}

const RECORD_START = '\u0000';
const FIELD_END = '\u0001';
const MESSAGE_END = '\u0002';
/** commits asked of `git log --stdin` at once */
const BATCH = 2000;

/** Parses `git log --format=%x00%H%x01%B%x02 --name-only` output. */
export function parseCommitLog(output: string): CommitRecord[] {
  const records: CommitRecord[] = [];
  for (const block of output.split(RECORD_START)) {
    if (!block.trim()) continue;
    const idEnd = block.indexOf(FIELD_END);
    const messageEnd = block.indexOf(MESSAGE_END, idEnd + 1);
    if (idEnd < 0 || messageEnd < 0) throw new Error(`unreadable git log record: ${JSON.stringify(block.slice(0, 80))}`);
    const files = block
      .slice(messageEnd + 1)
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    records.push({ id: block.slice(0, idEnd).trim(), message: block.slice(idEnd + 1, messageEnd).trim(), files });
  }
  return records;
}

export class CommitHistoryReader {
  /** git dir → commit id → record */
  private readonly known = new Map<string, Map<string, CommitRecord>>();

  /**
   * The `limit` most recent ancestors of `commit` (the commit itself included), newest first, that have
   * exactly one parent: merges repeat their branches' changes, and a root commit "changes" every file it
   * adds, which says nothing about any of them.
   */
  async recentCommits(gitDir: string, commit: string, limit: number): Promise<CommitRecord[]> {
    if (!(limit > 0)) return [];
    const { stdout } = await runGit(['--git-dir', gitDir, 'rev-list', '--min-parents=1', '--max-parents=1', '-n', String(limit), commit]);
    const ids = stdout.toString('utf8').split('\n').filter(Boolean);
    let known = this.known.get(gitDir);
    if (!known) {
      known = new Map();
      this.known.set(gitDir, known);
    }
    const missing = ids.filter((id) => !known.has(id));
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const log = await runGit(['--git-dir', gitDir, 'log', '--no-walk=unsorted', '--stdin', '--no-renames', '--format=%x00%H%x01%B%x02', '--name-only'], {
        input: `${batch.join('\n')}\n`,
      });
      for (const record of parseCommitLog(log.stdout.toString('utf8'))) known.set(record.id, record);
    }
    return ids.map((id) => known.get(id)).filter((r): r is CommitRecord => r !== undefined);
  }

  /** how many commits of a git directory are memoized (diagnostics, tests) */
  memoized(gitDir: string): number {
    return this.known.get(gitDir)?.size ?? 0;
  }

  /** forget a repository's commits (a run that moved on to the next repository) */
  forget(gitDir: string): void {
    this.known.delete(gitDir);
  }
}
