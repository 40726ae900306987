/**
 * Per-instance localization metrics for paired comparisons (explorer study §5.1): each function returns one
 * number per instance, so two localizers can be compared instance by instance (bootstrap, McNemar).
 *
 * - Hit@k: some gold file within the first k predictions (= Top-k accuracy).
 * - Acc@k: every gold file within the first k predictions (SweRank's and LocAgent's main metric).
 * - MRR: 1 / rank of the first gold file; 0 on a miss.
 * - R@3: share of the gold files among the distinct first three predictions.
 * - F1 / exact match: the predicted *set* (the files handed downstream, `setSize` of them) against the gold
 *   set; an empty prediction has precision 0 and F1 0, as in the study's evaluator.
 * - NDCG@k: binary relevance, DCG = Σ rel_i / log2(i + 1), normalized by the ideal ordering.
 *
 * A failed or missing prediction is an empty list: it stays in the denominator with zero credit.
 */

export interface InstanceMetrics {
  hit1: number;
  hit3: number;
  hit5: number;
  hit10: number;
  acc1: number;
  acc3: number;
  acc5: number;
  acc10: number;
  mrr: number;
  r3: number;
  f1: number;
  exactMatch: number;
  ndcg10: number;
}

export const INSTANCE_METRIC_NAMES: ReadonlyArray<keyof InstanceMetrics> = [
  'hit1',
  'hit3',
  'hit5',
  'hit10',
  'acc1',
  'acc3',
  'acc5',
  'acc10',
  'mrr',
  'r3',
  'f1',
  'exactMatch',
  'ndcg10',
];

/** Metrics whose per-instance values are 0/1, for which McNemar's test applies. */
export const BINARY_METRICS: ReadonlyArray<keyof InstanceMetrics> = ['hit1', 'hit3', 'hit5', 'hit10', 'acc1', 'acc3', 'acc5', 'acc10', 'exactMatch'];

function dedupe(ranking: readonly string[]): string[] {
  return [...new Set(ranking)];
}

export function hitAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  return dedupe(ranking)
    .slice(0, k)
    .some((p) => gold.has(p))
    ? 1
    : 0;
}

/** 1 when every gold file is within the first k distinct predictions (an instance without gold files: 0). */
export function accAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) return 0;
  const top = new Set(dedupe(ranking).slice(0, k));
  return [...gold].every((g) => top.has(g)) ? 1 : 0;
}

export function reciprocalRank(ranking: readonly string[], gold: ReadonlySet<string>): number {
  const i = dedupe(ranking).findIndex((p) => gold.has(p));
  return i < 0 ? 0 : 1 / (i + 1);
}

export function recallAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) return 0;
  return (
    dedupe(ranking)
      .slice(0, k)
      .filter((p) => gold.has(p)).length / gold.size
  );
}

export function setF1(predicted: readonly string[], gold: ReadonlySet<string>): number {
  const set = new Set(predicted);
  const tp = [...set].filter((p) => gold.has(p)).length;
  const precision = set.size === 0 ? 0 : tp / set.size;
  const recall = gold.size === 0 ? 0 : tp / gold.size;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

export function exactMatch(predicted: readonly string[], gold: ReadonlySet<string>): number {
  const set = new Set(predicted);
  return set.size === gold.size && [...set].every((p) => gold.has(p)) ? 1 : 0;
}

export function ndcgAt(ranking: readonly string[], gold: ReadonlySet<string>, k: number): number {
  const ranked = dedupe(ranking).slice(0, k);
  let dcg = 0;
  ranked.forEach((p, i) => {
    if (gold.has(p)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

/**
 * All metrics of one instance. F1/exact match score `predicted` when the localizer gave its own final set,
 * else the first `setSize` files (3: what the repair stage receives).
 */
export function instanceMetrics(
  ranking: readonly string[] | undefined,
  goldFiles: readonly string[],
  setSize = 3,
  predicted?: readonly string[],
): InstanceMetrics {
  const r = ranking ?? [];
  const gold = new Set(goldFiles);
  // a localizer that emits its own final set (the explorer) is scored on all of it, with no cap
  const predictedSet = ranking === undefined ? [] : predicted ? dedupe(predicted) : dedupe(r).slice(0, setSize);
  return {
    hit1: hitAt(r, gold, 1),
    hit3: hitAt(r, gold, 3),
    hit5: hitAt(r, gold, 5),
    hit10: hitAt(r, gold, 10),
    acc1: accAt(r, gold, 1),
    acc3: accAt(r, gold, 3),
    acc5: accAt(r, gold, 5),
    acc10: accAt(r, gold, 10),
    mrr: reciprocalRank(r, gold),
    r3: recallAt(r, gold, 3),
    f1: setF1(predictedSet, gold),
    exactMatch: exactMatch(predictedSet, gold),
    ndcg10: ndcgAt(r, gold, 10),
  };
}
