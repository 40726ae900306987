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
import { languageForPath } from '../languages/index.ts';
import { forEachCodeToken } from '../text/code-tokens.ts';
import { Bm25Index, queryTermsOf, TermDictionary, termVectorOf, type TermVector } from './bm25.ts';
import type { CommitRecord } from '../repo/history.ts';

export interface CommitHistorySettings {
  /** ancestors read, newest first (default 3000) */
  maxCommits: number;
  /** commits changing more Python files than this are left out (default 10) */
  maxFilesPerCommit: number;
  /** how many of the most similar commits vote for their files (default 50) */
  similarCommits: number;
  /** a commit votes only when it shares at least this many distinct terms with the query (default 2): one
   * shared word is no evidence, yet in a small history it could be the best match and, normalized, count
   * as much as a strong one (a query of fewer words needs them all) */
  minSharedTerms: number;
}

export const DEFAULT_COMMIT_HISTORY: CommitHistorySettings = { maxCommits: 3000, maxFilesPerCommit: 10, similarCommits: 50, minSharedTerms: 2 };

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
  private readonly commits: Array<{ record: CommitRecord; files: string[]; terms: Uint32Array }>;
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
    /** the source files a commit's size is counted in (default: any indexed language's) */
    isSource: (path: string) => boolean = (f) => languageForPath(f)?.indexed === true,
  ) {
    this.commits = [];
    for (const record of commits) {
      // the commit's source files in indexed languages (tests included) decide whether it is a focused change
      const sources = record.files.filter(isSource);
      if (sources.length === 0 || sources.length > settings.maxFilesPerCommit) continue;
      const files = sources.filter(isIndexed);
      if (files.length === 0) continue;
      this.commits.push({ record, files, terms: memo.vectorOf(record).terms });
    }
    this.bm25 = new Bm25Index(this.commits.map((c) => memo.vectorOf(c.record)));
  }

  get size(): number {
    return this.commits.length;
  }

  /** files best first, at most k */
  search(text: string, k: number): HistoryFileHit[] {
    const query = queryTermsOf(text, this.memo.terms, 'unique');
    const hits = this.bm25.search(query, this.settings.similarCommits);
    // a one-word query can share only one word (counted over all its words, not only those some commit has)
    const words = new Set<string>();
    forEachCodeToken(text, (token) => void words.add(token));
    const minShared = Math.min(this.settings.minSharedTerms, words.size);
    const scores = new Map<string, number>();
    for (const hit of hits) {
      const { files, terms } = this.commits[hit.doc]!;
      if (sharedTermCount(terms, query) < minShared) continue;
      for (const f of files) scores.set(f, (scores.get(f) ?? 0) + hit.score / files.length);
    }
    return [...scores.entries()]
      .map(([path, score]) => ({ path, score }))
      .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
      .slice(0, k);
  }
}

/** distinct query terms in a commit's sorted term ids */
function sharedTermCount(sortedTerms: Uint32Array, query: ReadonlyMap<number, number>): number {
  let shared = 0;
  for (const term of query.keys()) {
    let lo = 0;
    let hi = sortedTerms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const t = sortedTerms[mid]!;
      if (t === term) {
        shared += 1;
        break;
      }
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return shared;
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
    index ??= (async () =>
      snapshot.recentCommits ? new CommitHistoryIndex(await snapshot.recentCommits(settings.maxCommits), (p) => files.has(p), settings, memo) : undefined)();
    return (await index)?.search(text, k) ?? [];
  };
}
