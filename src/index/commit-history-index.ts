/**
 * "Similar past commits" over a repository's history before a commit (BugLocator's similar-report score,
 * with commit messages standing in for fixed reports): BM25 between the query and each earlier commit's
 * message plus the paths it changed; a file's score is Σ over the most similar commits of
 * similarity / (indexed files that commit changed).
 *
 * Measured on the 300 SWE-bench Lite instances (BENCHMARKS.md): as one more fusion channel it lifts Top-5
 * and MRR on both the tuning and the held-out half. Wide commits (more than `maxFilesPerCommit` Python
 * files: reformatting, renames, release chores) say little about any one file and are left out.
 */
import { Bm25Index, queryTermsOf, TermDictionary, termVectorOf, type TermVector } from './bm25.ts';
import type { CommitRecord } from '../repo/history.ts';

export interface CommitHistorySettings {
  /** ancestors read, newest first (default 3000) */
  maxCommits: number;
  /** commits changing more Python files than this are left out (default 10) */
  maxFilesPerCommit: number;
  /** how many of the most similar commits vote for their files (default 50) */
  similarCommits: number;
}

export const DEFAULT_COMMIT_HISTORY: CommitHistorySettings = { maxCommits: 3000, maxFilesPerCommit: 10, similarCommits: 50 };

export interface HistoryFileHit {
  path: string;
  score: number;
}

/** Per-process memo of commit term vectors (a commit's text never changes). */
export class CommitTermMemo {
  readonly terms = new TermDictionary();
  readonly vectors = new Map<string, TermVector>();

  vectorOf(commit: CommitRecord): TermVector {
    let v = this.vectors.get(commit.id);
    if (!v) {
      v = termVectorOf(`${commit.message}\n${commit.files.join('\n')}`, this.terms);
      this.vectors.set(commit.id, v);
    }
    return v;
  }
}

export class CommitHistoryIndex {
  private readonly commits: Array<{ record: CommitRecord; files: string[] }>;
  private readonly bm25: Bm25Index;

  /**
   * `isIndexed`: files that can be scored (the commit's repository index: present at the commit, passing
   * the file filter, so tests and deleted files get nothing).
   */
  constructor(
    commits: readonly CommitRecord[],
    isIndexed: (path: string) => boolean,
    private readonly settings: CommitHistorySettings = DEFAULT_COMMIT_HISTORY,
    private readonly memo: CommitTermMemo = new CommitTermMemo(),
  ) {
    this.commits = [];
    for (const record of commits) {
      const python = record.files.filter((f) => /\.pyi?$/.test(f));
      if (python.length === 0 || python.length > settings.maxFilesPerCommit) continue;
      const files = python.filter(isIndexed);
      if (files.length === 0) continue;
      this.commits.push({ record, files });
    }
    this.bm25 = new Bm25Index(this.commits.map((c) => memo.vectorOf(c.record)));
  }

  get size(): number {
    return this.commits.length;
  }

  /** files best first, at most k */
  search(text: string, k: number): HistoryFileHit[] {
    const hits = this.bm25.search(queryTermsOf(text, this.memo.terms, 'unique'), this.settings.similarCommits);
    const scores = new Map<string, number>();
    for (const hit of hits) {
      const { files } = this.commits[hit.doc]!;
      for (const f of files) scores.set(f, (scores.get(f) ?? 0) + hit.score / files.length);
    }
    return [...scores.entries()]
      .map(([path, score]) => ({ path, score }))
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, k);
  }
}

/**
 * A lazily built history search for `snapshot`, scoring only `filePaths`: for replays of recordings made
 * before the history channel existed (the live index builds the same thing itself).
 */
export function lazyHistorySearch(
  snapshot: { recentCommits?(limit: number): Promise<CommitRecord[]> },
  filePaths: readonly string[],
  settings: CommitHistorySettings = DEFAULT_COMMIT_HISTORY,
  memo?: CommitTermMemo,
): (text: string, k: number) => Promise<HistoryFileHit[]> {
  let index: Promise<CommitHistoryIndex | undefined> | undefined;
  const files = new Set(filePaths);
  return async (text, k) => {
    index ??= (async () => (snapshot.recentCommits ? new CommitHistoryIndex(await snapshot.recentCommits(settings.maxCommits), (p) => files.has(p), settings, memo) : undefined))();
    return (await index)?.search(text, k) ?? [];
  };
}
