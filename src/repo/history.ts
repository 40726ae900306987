/**
 * The commits before a commit: message and the files each one changed. Retrieval uses them as "similar
 * past fixes" (BugLocator's SimiScore idea): an issue that reads like an earlier commit message probably
 * concerns the files that commit touched.
 *
 * Only ancestors of the commit are read, so nothing from the instance's own fix (or any later commit) can
 * leak in. Commits are memoized by id per git directory: the next instance of the same repository asks git
 * only for the commits it has not seen (`rev-list` is cheap; the per-commit diff names are not).
 */
import { assertCommitHash, runGit } from './git.ts';
import { streamCommitLog } from './commit-log.ts';

export interface CommitRecord {
  id: string;
  /** subject and body */
  message: string;
  /** paths changed relative to its parent (read with --no-renames: a rename lists the old and the new path) */
  files: string[];
}

/** commits asked of `git log --stdin` at once */
const BATCH = 2000;
/** The largest commit message kept (a longer one is cut): far beyond a real message, far below a string's limit. */
const MAX_MESSAGE_BYTES = 64 * 1024;

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
    assertCommitHash(commit, `${gitDir}: the commit whose history is read`);
    const { stdout } = await runGit(['--git-dir', gitDir, 'rev-list', '--min-parents=1', '--max-parents=1', '-n', String(limit), '--end-of-options', commit]);
    const ids = stdout.toString('utf8').split('\n').filter(Boolean);
    let known = this.known.get(gitDir);
    if (!known) {
      known = new Map();
      this.known.set(gitDir, known);
    }
    const missing = ids.filter((id) => !known.has(id));
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      // streamed, each message cut at MAX_MESSAGE_BYTES: no batch is held whole, whatever its messages weigh
      await streamCommitLog(
        gitDir,
        ['--no-walk=unsorted', '--stdin', '--no-renames'],
        '%H',
        (c) => {
          if (c.header[0]) known.set(c.header[0], { id: c.header[0], message: c.message, files: c.files });
        },
        { input: `${batch.join('\n')}\n`, maxTokenBytes: MAX_MESSAGE_BYTES },
      );
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
