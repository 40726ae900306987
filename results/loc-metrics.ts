/**
 * File-level localization metrics (BLAgent §3.1): Top-k (Hit@k) = share of instances with at least one
 * gold file among the first k ranked files; Acc@k = share with every gold file among them (SweRank's and
 * LocAgent's main metric); MRR = mean of 1/rank of the first gold file. A miss, and an instance that
 * failed to produce a ranking at all, count 0; the denominator is every selected instance.
 */

export interface InstanceLocOutcome {
  instanceId: string;
  gold: readonly string[];
  /** ranked file paths, best first; undefined when the stage failed for this instance */
  ranking?: readonly string[];
}

export interface LocMetrics {
  n: number;
  top1: number;
  top3: number;
  top5: number;
  top10: number;
  top15: number;
  mrr: number;
  acc1: number;
  acc3: number;
  acc5: number;
  acc10: number;
  acc15: number;
}

export interface LocMetricsDetail extends LocMetrics {
  failed: number;
  /** 1-based rank of the first gold file, or null for a miss/failure */
  ranks: Record<string, number | null>;
}

/** 1-based rank of the first gold file in the ranking, null if none is ranked. */
export function firstGoldRank(ranking: readonly string[], gold: readonly string[]): number | null {
  const goldSet = new Set(gold);
  const i = ranking.findIndex((p) => goldSet.has(p));
  return i < 0 ? null : i + 1;
}

/** 1-based rank by which every gold file has appeared, null if some gold file is not ranked. */
export function lastGoldRank(ranking: readonly string[], gold: readonly string[]): number | null {
  const positions = new Map<string, number>();
  ranking.forEach((p, i) => {
    if (!positions.has(p)) positions.set(p, i + 1);
  });
  let last = 0;
  for (const g of new Set(gold)) {
    const at = positions.get(g);
    if (at === undefined) return null;
    last = Math.max(last, at);
  }
  return last === 0 ? null : last;
}

export function computeLocMetrics(outcomes: readonly InstanceLocOutcome[]): LocMetricsDetail {
  const n = outcomes.length;
  const ranks: Record<string, number | null> = {};
  let failed = 0;
  const hits = { top1: 0, top3: 0, top5: 0, top10: 0, top15: 0 };
  const all = { acc1: 0, acc3: 0, acc5: 0, acc10: 0, acc15: 0 };
  let rr = 0;
  for (const o of outcomes) {
    if (!o.ranking) failed++;
    const rank = o.ranking ? firstGoldRank(o.ranking, o.gold) : null;
    ranks[o.instanceId] = rank;
    if (rank === null) continue;
    const last = lastGoldRank(o.ranking!, o.gold);
    if (last !== null) {
      if (last <= 1) all.acc1++;
      if (last <= 3) all.acc3++;
      if (last <= 5) all.acc5++;
      if (last <= 10) all.acc10++;
      if (last <= 15) all.acc15++;
    }
    rr += 1 / rank;
    if (rank <= 1) hits.top1++;
    if (rank <= 3) hits.top3++;
    if (rank <= 5) hits.top5++;
    if (rank <= 10) hits.top10++;
    if (rank <= 15) hits.top15++;
  }
  const frac = (x: number): number => (n === 0 ? 0 : x / n);
  return {
    n,
    top1: frac(hits.top1),
    top3: frac(hits.top3),
    top5: frac(hits.top5),
    top10: frac(hits.top10),
    top15: frac(hits.top15),
    mrr: frac(rr),
    acc1: frac(all.acc1),
    acc3: frac(all.acc3),
    acc5: frac(all.acc5),
    acc10: frac(all.acc10),
    acc15: frac(all.acc15),
    failed,
    ranks,
  };
}

/** Just the public fields, in the documented order (what `eval-loc --json` prints). */
export function metricsSummary(m: LocMetrics): LocMetrics {
  return {
    n: m.n,
    top1: m.top1,
    top3: m.top3,
    top5: m.top5,
    top10: m.top10,
    top15: m.top15,
    mrr: m.mrr,
    acc1: m.acc1,
    acc3: m.acc3,
    acc5: m.acc5,
    acc10: m.acc10,
    acc15: m.acc15,
  };
}

export function formatLocMetricsTable(rows: ReadonlyArray<{ label: string; metrics: LocMetrics }>): string {
  const header = ['', 'n', 'Top-1', 'Top-3', 'Top-5', 'Top-10', 'Top-15', 'MRR', 'Acc@1', 'Acc@3', 'Acc@5', 'Acc@10'];
  const body = rows.map(({ label, metrics: m }) => [
    label,
    String(m.n),
    // no rate over nothing: "—" where n is 0
    ...[m.top1, m.top3, m.top5, m.top10, m.top15, m.mrr, m.acc1, m.acc3, m.acc5, m.acc10].map((x) => (m.n > 0 ? x.toFixed(3) : '—')),
  ]);
  const all = [header, ...body];
  const widths = header.map((_, c) => Math.max(...all.map((r) => r[c].length)));
  return all.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}
