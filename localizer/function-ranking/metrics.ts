/**
 * Function-level localization metrics as LocAgent's evaluation computes them (evaluation/eval_metric.py, which
 * SweRank's tables reuse): Acc@k is 1 when the first k predictions hold every gold element, or k of them when
 * there are more than k; an instance without a gold element (a patch that edits module-level code only) is not
 * counted. MRR is the reciprocal rank of the first gold element (0 when none is ranked).
 */
export interface ElementOutcome {
  instanceId: string;
  gold: readonly string[];
  /** ranked element keys (`path:name`); undefined when the instance failed */
  ranking: readonly string[] | undefined;
}

export interface ElementMetrics {
  /** instances counted (with at least one gold element) */
  instances: number;
  acc: Record<number, number>;
  mrr: number;
}

export const ELEMENT_KS = [1, 5, 10] as const;

export function accAt(gold: readonly string[], ranking: readonly string[] | undefined, k: number): boolean {
  if (!ranking) return false;
  const top = new Set(ranking.slice(0, k));
  const found = gold.filter((g) => top.has(g)).length;
  return found >= Math.min(gold.length, k);
}

export function reciprocalRank(gold: readonly string[], ranking: readonly string[] | undefined): number {
  if (!ranking) return 0;
  const set = new Set(gold);
  const at = ranking.findIndex((r) => set.has(r));
  return at < 0 ? 0 : 1 / (at + 1);
}

export function elementMetrics(outcomes: readonly ElementOutcome[], ks: readonly number[] = ELEMENT_KS): ElementMetrics {
  const counted = outcomes.filter((o) => o.gold.length > 0);
  const n = counted.length;
  const acc: Record<number, number> = {};
  for (const k of ks) acc[k] = n ? counted.filter((o) => accAt(o.gold, o.ranking, k)).length / n : Number.NaN;
  const mrr = n ? counted.reduce((s, o) => s + reciprocalRank(o.gold, o.ranking), 0) / n : Number.NaN;
  return { instances: n, acc, mrr };
}
