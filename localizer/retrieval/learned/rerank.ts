/**
 * `--fusion learned`: the hand-set weighted fusion proposes the candidates, the learned model orders them.
 *
 * The model sees the weighted fusion's first `candidates` files (its recall there is what the model can work with)
 * and reorders them by its score; the files below keep the weighted order after them. A reordered file's score is
 * its softmax share over the candidates (positive, and the first file's lead over the second is the model's
 * confidence, so the cascade's score signals keep their meaning); a file below the candidates scores 0.
 */
import type { FileFacts } from '../../../src/index/types.ts';
import { rankFiles, reciprocalRankFusion, weightedScoreFusion, type Channel, type RankedFile } from '../fusion.ts';
import type { RetrievalOptions } from '../options.ts';
import type { RetrievalQuery } from '../query.ts';
import { candidateFeatures } from './features.ts';
import { scoreCandidates, type LoadedRanker } from './model.ts';

export interface CandidateSet {
  /** the weighted fusion's full ranking */
  weighted: RankedFile[];
  /** its first `depth` files' feature vectors */
  rows: Float64Array[];
}

/** The weighted fusion's ranking and its first `depth` files' features: what the model is trained on and applied to. */
export function candidateSet(
  channels: readonly Channel[],
  queries: readonly RetrievalQuery[],
  options: RetrievalOptions,
  depth: number,
  facts?: FileFacts,
): CandidateSet {
  const weighted = rankFiles(weightedScoreFusion(channels, options.normalization));
  const rrf = reciprocalRankFusion(channels, options.rrfK);
  const rows = candidateFeatures({ channels, queries, candidates: weighted.slice(0, depth), rrf, ...(facts ? { facts } : {}) });
  return { weighted, rows };
}

export function learnedRanking(
  ranker: LoadedRanker,
  channels: readonly Channel[],
  queries: readonly RetrievalQuery[],
  options: RetrievalOptions,
  facts?: FileFacts,
): RankedFile[] {
  const { weighted, rows } = candidateSet(channels, queries, options, ranker.model.candidates, facts);
  return reorder(weighted, scoreCandidates(ranker, rows));
}

/** The first `scores.length` files by score (ties keep the weighted order), as softmax shares; the rest at 0. */
export function reorder(weighted: readonly RankedFile[], scores: readonly number[]): RankedFile[] {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const top = n ? scores[order[0]!]! : 0;
  let total = 0;
  for (const s of scores) total += Math.exp(s - top);
  const reordered = order.map((i) => ({ path: weighted[i]!.path, score: Math.exp(scores[i]! - top) / total }));
  return [...reordered, ...weighted.slice(n).map((f) => ({ path: f.path, score: 0 }))];
}
