/**
 * Meaning learned from a repository's own history, with no pre-trained weights: which words of commit messages go
 * with which identifiers of the lines those commits changed. An issue that says "timezone" where the code says
 * `tzinfo` or `make_aware` is matched through the commits that used both (the vocabulary gap of bug localization:
 * Zhou et al. 2012; Ye et al. 2014 learn the same bridge from API documentation).
 *
 * Association is pointwise mutual information over commits: how much more often a word and an identifier occur in
 * one commit (message, changed lines) than if they were independent. Pairs seen in fewer than MIN_PAIR commits are
 * noise and dropped; an identifier that is also the word itself adds nothing the lexical channel lacks.
 */
import type { CommitChange } from '../repo/change-history.ts';
import type { RepoSnapshot } from '../repo/types.ts';
import { forEachCodeToken, STOPWORDS } from '../text/code-tokens.ts';

export const MIN_PAIR = 2;
/** identifiers kept per commit: a big change's long tail of names says little of its message */
const MAX_IDENTIFIERS = 150;

export interface WordAssociations {
  /** commits learned from */
  commits: number;
  /** word → identifier → PMI (positive only) */
  pmi: Map<string, Map<string, number>>;
}

function words(text: string): Set<string> {
  const out = new Set<string>();
  forEachCodeToken(text, (token, kind) => {
    if ((kind === 'identifier' || kind === 'part') && token.length >= 3 && !STOPWORDS.has(token) && !/^\d/.test(token)) out.add(token);
  });
  return out;
}

function identifiers(code: string): Set<string> {
  const out = new Set<string>();
  forEachCodeToken(code, (token, kind) => {
    if (kind === 'identifier' && token.length >= 3 && !STOPWORDS.has(token) && out.size < MAX_IDENTIFIERS) out.add(token);
  });
  return out;
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function learnAssociations(changes: readonly CommitChange[]): WordAssociations {
  const wordCount = new Map<string, number>();
  const idCount = new Map<string, number>();
  const pairCount = new Map<string, Map<string, number>>();
  let n = 0;
  for (const change of changes) {
    const ids = identifiers(change.changed);
    if (ids.size === 0) continue;
    n++;
    const ws = words(change.message);
    for (const w of ws) bump(wordCount, w);
    for (const t of ids) bump(idCount, t);
    for (const w of ws) {
      let row = pairCount.get(w);
      if (!row) pairCount.set(w, (row = new Map()));
      for (const t of ids) if (t !== w) bump(row, t);
    }
  }
  const pmi = new Map<string, Map<string, number>>();
  for (const [w, row] of pairCount) {
    const out = new Map<string, number>();
    for (const [t, c] of row) {
      if (c < MIN_PAIR) continue;
      const value = Math.log((c * n) / (wordCount.get(w)! * idCount.get(t)!));
      if (value > 0) out.set(t, value);
    }
    if (out.size) pmi.set(w, out);
  }
  return { commits: n, pmi };
}

/**
 * The identifiers the issue's words are most associated with, as a query text: each identifier scored by the sum
 * of its PMI with the issue's words, the `k` best that the issue does not already contain.
 */
export function expansionQuery(associations: WordAssociations, issue: string, k = 30): string {
  const issueWords = words(issue);
  const score = new Map<string, number>();
  for (const w of issueWords) for (const [t, v] of associations.pmi.get(w) ?? []) if (!issueWords.has(t)) score.set(t, (score.get(t) ?? 0) + v);
  return [...score]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, k)
    .map(([t]) => t)
    .join(' ');
}

export interface HistoryExpansion {
  /** the associated identifiers, a query (absent when off or unreadable) */
  text?: string;
  /** the changes read, for channels that use them too (absent when off or unreadable) */
  changes?: readonly CommitChange[];
  /** why the history could not be read: the caller leaves the channel out for this instance */
  error?: string;
  /** reading the history and learning from it (0 when off) */
  ms: number;
}

/**
 * The identifiers the last `commits` commits before the snapshot's commit associate with the issue's words (none
 * when `commits` is 0). A history that cannot be read (a mirror missing old objects, a snapshot with no history)
 * is an `error`, not a throw: every other channel still ranks.
 */
export async function historyExpansion(snapshot: Pick<RepoSnapshot, 'recentChanges'>, issue: string, commits: number): Promise<HistoryExpansion> {
  if (!(commits > 0)) return { ms: 0 };
  const t0 = performance.now();
  try {
    if (!snapshot.recentChanges) throw new Error('this snapshot does not read its history');
    const changes = await snapshot.recentChanges(commits);
    return { text: expansionQuery(learnAssociations(changes), issue), changes, ms: performance.now() - t0 };
  } catch (err) {
    return { error: (err as Error).message.split('\n')[0], ms: performance.now() - t0 };
  }
}
