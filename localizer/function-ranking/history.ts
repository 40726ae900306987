/**
 * The function level's channels from the repository's history before the base commit (src/repo/change-history.ts:
 * each commit's message and the definitions its hunks fall in):
 *
 *   similar  the functions that past commits like the issue changed: BugLocator's similar-report score (Zhou et al.
 *            2012) at the function level. BM25 of the issue over the commits' messages; each of the SIMILAR_COMMITS
 *            best that share MIN_SHARED_TERMS words with the issue gives its score, divided among the definitions it
 *            changed. A fix to one part of a component is often followed by another fix to the same function.
 *   churn    how many of the commits read changed the element, log-scaled: the number of past changes is among the
 *            steadiest process predictors of where defects are (Moser et al. 2008; Kim et al. 2007's bug cache).
 *
 * A hunk header names a definition by its own name (`parse`, not `Parser.parse`), so a header matches every element
 * of that file with that own name; a constructor's header (`__init__`, `constructor`) matches its file's classes.
 * Each channel is normalised by its best candidate.
 */
import { Bm25Index, queryTermsOf, TermDictionary, termVectorOf } from '../../src/index/bm25.ts';
import type { CommitChange } from '../../src/repo/change-history.ts';
import type { RankedElementCandidate } from './elements.ts';

/** the most similar commits that vote, as the file level's history channel takes (DEFAULT_COMMIT_HISTORY) */
export const SIMILAR_COMMITS = 50;
/** one shared word is no evidence (commit-history-index.ts says why) */
const MIN_SHARED_TERMS = 2;
const CONSTRUCTORS = new Set(['__init__', 'constructor', 'new', 'initialize', '__construct']);

export interface HistoryChannels {
  similar: number[];
  churn: number[];
}

function ownName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** element indices by `path\nown name`, and a file's classes under `path\n` plus each constructor name */
function elementsByDefinition(elements: readonly RankedElementCandidate[]): Map<string, number[]> {
  const by = new Map<string, number[]>();
  const add = (key: string, i: number) => by.set(key, [...(by.get(key) ?? []), i]);
  elements.forEach((e, i) => {
    add(`${e.path}\n${ownName(e.name)}`, i);
    if (e.kind === 'class') for (const c of CONSTRUCTORS) add(`${e.path}\n${c}`, i);
  });
  return by;
}

/** Each commit's similarity to the issue (0 for all but the SIMILAR_COMMITS best sharing enough words). */
function commitSimilarity(issue: string, changes: readonly CommitChange[]): number[] {
  const dict = new TermDictionary();
  const docs = changes.map((c) => termVectorOf(c.message, dict));
  const query = queryTermsOf(issue, dict, 'raw');
  const out = new Array<number>(changes.length).fill(0);
  const hits = new Bm25Index(docs).search(query, changes.length);
  let taken = 0;
  for (const h of hits) {
    if (taken >= SIMILAR_COMMITS || !(h.score > 0)) break;
    const shared = new Set([...docs[h.doc]!.terms].filter((t) => query.has(t))).size;
    if (shared < MIN_SHARED_TERMS) continue;
    out[h.doc] = h.score;
    taken++;
  }
  return out;
}

function normalised(scores: number[]): number[] {
  const best = Math.max(0, ...scores);
  return best > 0 ? scores.map((s) => s / best) : scores;
}

/** The history channels of `elements` for `issue`, all 0 without a history. */
export function historyChannels(issue: string, elements: readonly RankedElementCandidate[], changes: readonly CommitChange[] = []): HistoryChannels {
  const similar = new Array<number>(elements.length).fill(0);
  const churn = new Array<number>(elements.length).fill(0);
  if (changes.length === 0 || elements.length === 0) return { similar, churn };
  const byDefinition = elementsByDefinition(elements);
  const similarity = commitSimilarity(issue, changes);
  changes.forEach((change, c) => {
    const definitions = change.definitions ?? [];
    const touched = new Set(definitions.flatMap((d) => byDefinition.get(`${d.path}\n${d.name}`) ?? []));
    for (const i of touched) {
      churn[i]! += 1;
      if (similarity[c]! > 0) similar[i]! += similarity[c]! / definitions.length;
    }
  });
  return { similar: normalised(similar), churn: normalised(churn.map((n) => Math.log1p(n))) };
}
