/**
 * Co-change: files that earlier commits changed together with a given file (Zimmermann et al., "Mining
 * version histories to guide software changes", ICSE 2004). The confidence of seed → file is the share of the
 * seed's commits that also changed the file, smoothed by one commit so a single shared commit of a file changed
 * once is not certainty. A query's co-change score of a file sums that confidence over the seeds, the files the
 * issue itself names; the seeds are left out, since other channels already score them.
 *
 * Wide commits (more than `maxFilesPerCommit` indexed files: reformatting, renames, release chores) change
 * files together that have nothing to do with each other, and are left out, as the history channel does.
 */
import type { CommitRecord } from '../repo/history.ts';
import { bestFiles } from './channels/term-holders.ts';

export interface CoChangeHit {
  path: string;
  score: number;
}

export class CoChangeTable {
  /** per indexed file: the commits (indexes into `commits`) that changed it */
  private readonly commitsOf = new Map<string, number[]>();
  /** per kept commit: its indexed files */
  private readonly commits: string[][] = [];

  constructor(history: readonly CommitRecord[], isIndexed: (path: string) => boolean, maxFilesPerCommit: number) {
    for (const commit of history) {
      const files = [...new Set(commit.files.filter(isIndexed))];
      // a commit that changed the seed alone counts too: it lowers the confidence of every partner
      if (files.length === 0 || files.length > maxFilesPerCommit) continue;
      const at = this.commits.push(files) - 1;
      for (const f of files) {
        const list = this.commitsOf.get(f);
        if (list) list.push(at);
        else this.commitsOf.set(f, [at]);
      }
    }
  }

  /** Files changed with the seeds, best first (ties by path), at most k. */
  search(seeds: readonly string[], k: number): CoChangeHit[] {
    const seedSet = new Set(seeds);
    const scores = new Map<string, number>();
    for (const seed of seedSet) {
      const own = this.commitsOf.get(seed);
      if (!own) continue;
      const counts = new Map<string, number>();
      for (const at of own) {
        for (const f of this.commits[at]!) if (!seedSet.has(f)) counts.set(f, (counts.get(f) ?? 0) + 1);
      }
      for (const [f, n] of counts) scores.set(f, (scores.get(f) ?? 0) + n / (own.length + 1));
    }
    return bestFiles(scores, k);
  }
}

/**
 * A lazily built co-change search over `snapshot`'s history, scoring only `filePaths`: for replays that ask for
 * seeds the recording did not search (another path or definition weight names other files). The live index
 * builds the same table from the same commits (src/index/channels/history.ts).
 */
export function lazyCoChangeSearch(
  snapshot: () => Promise<{ recentCommits?(limit: number): Promise<CommitRecord[]> }>,
  filePaths: readonly string[],
  settings: { maxCommits: number; maxFilesPerCommit: number },
): (seeds: readonly string[], k: number) => Promise<CoChangeHit[]> {
  let table: Promise<CoChangeTable> | undefined;
  const files = new Set(filePaths);
  return async (seeds, k) => {
    table ??= (async () => {
      const s = await snapshot();
      const commits = s.recentCommits ? await s.recentCommits(settings.maxCommits) : [];
      return new CoChangeTable(commits, (p) => files.has(p), settings.maxFilesPerCommit);
    })();
    return (await table).search(seeds, k);
  };
}
