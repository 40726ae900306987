/**
 * Comparing runs and localizers (BLAgent paper §4 RQ2, Table 10; explorer study §5.3 statistics).
 *
 * Input is one `RunOutcome` per run (loaded from run directories by results/run-loader.ts); several runs
 * may share a localizer (repeated stochastic runs). Instances are aligned on the intersection of the runs'
 * selections, so every comparison is paired.
 *
 * Statistics:
 * - resolved counts, union/intersection of resolved sets per localizer and across localizers;
 * - instances fixed only by one localizer, and whether the other localizer had a gold file in its top 3 in
 *   any of its runs (the paper's Table 10);
 * - paired Wilcoxon signed-rank on per-instance solve frequencies (resolved runs / runs) between localizers;
 * - localization metrics per localizer (mean over its runs) with paired percentile bootstrap CIs of the
 *   difference against the reference localizer (the first one named), repository-clustered bootstrap CIs,
 *   and exact McNemar tests on binary metrics (each localizer's first run) with Holm correction across all
 *   binary comparisons.
 */
import {
  clusteredBootstrap,
  holmAdjust,
  mcnemarExact,
  pairedBootstrap,
  wilcoxonSignedRank,
  type ConfidenceInterval,
  type WilcoxonResult,
} from './statistics.ts';
import { BINARY_METRICS, INSTANCE_METRIC_NAMES, instanceMetrics, type InstanceMetrics } from './instance-metrics.ts';

export interface RunOutcome {
  runId: string;
  localizer: string;
  /** oracle-style localizers that read the answer: reported, but labelled as an upper bound */
  upperBound?: boolean;
  instances: string[];
  repoOf: Record<string, string>;
  goldFiles: Record<string, string[]>;
  /** file ranking handed downstream, per instance (undefined: localization failed) */
  rankings: Record<string, string[] | undefined>;
  /** the localizer's own final file set per instance, when it emits one (the explorer) */
  predicted?: Record<string, string[] | undefined>;
  /** localization cost per instance: agent wall clock, and tokens when usage was recorded */
  operations?: Record<string, { agentSeconds?: number; inputTokens?: number; outputTokens?: number }>;
  resolved: string[];
  emptyPatch: string[];
}

export interface RunSummary {
  runId: string;
  localizer: string;
  upperBound: boolean;
  instances: number;
  resolved: number;
  resolvedRate: number;
  emptyPatches: number;
  localization: InstanceMetrics;
}

export interface LocalizerSummary {
  localizer: string;
  upperBound: boolean;
  runs: string[];
  meanResolved: number;
  /** resolved in at least one run */
  resolvedUnion: string[];
  /** resolved in every run */
  resolvedInAllRuns: string[];
  meanEmptyPatches: number;
  localization: InstanceMetrics;
}

export interface UniqueFix {
  instanceId: string;
  /** localizer that fixed it (in some run) */
  fixedBy: string;
  other: string;
  /** the other localizer had a gold file among its top 3 in at least one run */
  otherHadGoldFileInTop3: boolean;
}

export interface MetricComparison {
  metric: keyof InstanceMetrics;
  reference: string;
  alternative: string;
  referenceMean: number;
  alternativeMean: number;
  bootstrap: ConfidenceInterval;
  clusteredBootstrap: ConfidenceInterval;
  mcnemar?: { referenceOnly: number; alternativeOnly: number; pValue: number; holmPValue: number };
}

export interface Comparison {
  alignedInstances: number;
  runs: RunSummary[];
  localizers: LocalizerSummary[];
  /** resolved in any run of any localizer */
  resolvedUnion: string[];
  /** resolved by every localizer (in at least one of its runs) */
  resolvedByAll: string[];
  uniqueFixes: UniqueFix[];
  wilcoxon: Array<{ reference: string; alternative: string; referenceMean: number; alternativeMean: number } & WilcoxonResult>;
  metrics: MetricComparison[];
  /** agent time and tokens, alternative minus reference (first runs), on pairwise-complete instances */
  operational: OperationalComparison[];
}

export interface OperationalComparison {
  metric: 'agentSeconds' | 'inputTokens' | 'outputTokens' | 'totalTokens';
  reference: string;
  alternative: string;
  /** instances where both runs recorded the value */
  n: number;
  referenceMean: number;
  alternativeMean: number;
  bootstrap: ConfidenceInterval;
}

function meanOf(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function meanMetrics(rows: readonly InstanceMetrics[]): InstanceMetrics {
  return Object.fromEntries(INSTANCE_METRIC_NAMES.map((m) => [m, meanOf(rows.map((r) => r[m]))])) as unknown as InstanceMetrics;
}

function sortedIds(ids: Iterable<string>): string[] {
  return [...ids].sort();
}

export function compareRuns(outcomes: readonly RunOutcome[], options: { resamples?: number; seed?: number } = {}): Comparison {
  if (outcomes.length === 0) throw new Error('compare: no runs given');
  // Align on the instances every run selected, in the first run's order.
  const common = outcomes.slice(1).reduce((ids, r) => ids.filter((id) => r.instances.includes(id)), outcomes[0].instances);
  const repoOf = (id: string) => outcomes.find((o) => o.repoOf[id])?.repoOf[id] ?? 'unknown';
  const goldOf = (id: string) => outcomes.find((o) => o.goldFiles[id]?.length)?.goldFiles[id] ?? [];

  const perRunMetrics = new Map<string, InstanceMetrics[]>();
  const runs: RunSummary[] = outcomes.map((o) => {
    const rows = common.map((id) => instanceMetrics(o.rankings[id], goldOf(id), 3, o.predicted?.[id]));
    perRunMetrics.set(o.runId, rows);
    const resolved = o.resolved.filter((id) => common.includes(id)).length;
    return {
      runId: o.runId,
      localizer: o.localizer,
      upperBound: Boolean(o.upperBound),
      instances: common.length,
      resolved,
      resolvedRate: common.length ? resolved / common.length : 0,
      emptyPatches: o.emptyPatch.filter((id) => common.includes(id)).length,
      localization: meanMetrics(rows),
    };
  });

  const localizerNames = [...new Set(outcomes.map((o) => o.localizer))];
  const runsOf = (name: string) => outcomes.filter((o) => o.localizer === name);
  const resolvedSet = (o: RunOutcome) => new Set(o.resolved);
  /** per instance, the localizer's metric averaged over its runs */
  const localizerRows = (name: string) => common.map((_, i) => meanMetrics(runsOf(name).map((o) => perRunMetrics.get(o.runId)![i])));

  const localizers: LocalizerSummary[] = localizerNames.map((name) => {
    const rs = runsOf(name);
    const sets = rs.map(resolvedSet);
    return {
      localizer: name,
      upperBound: rs.some((r) => r.upperBound),
      runs: rs.map((r) => r.runId),
      meanResolved: meanOf(rs.map((r) => r.resolved.filter((id) => common.includes(id)).length)),
      resolvedUnion: sortedIds(common.filter((id) => sets.some((s) => s.has(id)))),
      resolvedInAllRuns: sortedIds(common.filter((id) => sets.every((s) => s.has(id)))),
      meanEmptyPatches: meanOf(rs.map((r) => r.emptyPatch.filter((id) => common.includes(id)).length)),
      localization: meanMetrics(localizerRows(name)),
    };
  });

  const unionOf = new Map(localizers.map((l) => [l.localizer, new Set(l.resolvedUnion)]));
  const resolvedUnion = sortedIds(new Set(localizers.flatMap((l) => l.resolvedUnion)));
  const resolvedByAll = resolvedUnion.filter((id) => localizers.every((l) => unionOf.get(l.localizer)!.has(id)));

  const uniqueFixes: UniqueFix[] = [];
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < localizerNames.length; i++) for (let j = i + 1; j < localizerNames.length; j++) pairs.push([localizerNames[i], localizerNames[j]]);
  for (const [a, b] of pairs) {
    for (const [fixedBy, other] of [
      [a, b],
      [b, a],
    ] as const) {
      for (const id of unionOf.get(fixedBy)!) {
        if (unionOf.get(other)!.has(id)) continue;
        const gold = new Set(goldOf(id));
        const otherHadGoldFileInTop3 = runsOf(other).some((o) => (o.rankings[id] ?? []).slice(0, 3).some((p) => gold.has(p)));
        uniqueFixes.push({ instanceId: id, fixedBy, other, otherHadGoldFileInTop3 });
      }
    }
  }

  const solveFrequency = (name: string) => common.map((id) => meanOf(runsOf(name).map((o) => (resolvedSet(o).has(id) ? 1 : 0))));
  const reference = localizerNames[0];
  const alternatives = localizerNames.slice(1);
  const wilcoxon = alternatives.map((alt) => {
    const ref = solveFrequency(reference);
    const other = solveFrequency(alt);
    return { reference, alternative: alt, referenceMean: meanOf(ref), alternativeMean: meanOf(other), ...wilcoxonSignedRank(other, ref) };
  });

  const clusters = common.map(repoOf);
  const metrics: MetricComparison[] = [];
  const binaryIndices: number[] = [];
  const pValues: number[] = [];
  for (const alt of alternatives) {
    const refRows = localizerRows(reference);
    const altRows = localizerRows(alt);
    const refFirst = perRunMetrics.get(runsOf(reference)[0].runId)!;
    const altFirst = perRunMetrics.get(runsOf(alt)[0].runId)!;
    for (const metric of INSTANCE_METRIC_NAMES) {
      const refValues = refRows.map((r) => r[metric]);
      const altValues = altRows.map((r) => r[metric]);
      const comparison: MetricComparison = {
        metric,
        reference,
        alternative: alt,
        referenceMean: meanOf(refValues),
        alternativeMean: meanOf(altValues),
        bootstrap: pairedBootstrap(refValues, altValues, options),
        clusteredBootstrap: clusteredBootstrap(refValues, altValues, clusters, options),
      };
      if (BINARY_METRICS.includes(metric)) {
        const m = mcnemarExact(
          refFirst.map((r) => r[metric] === 1),
          altFirst.map((r) => r[metric] === 1),
        );
        comparison.mcnemar = { ...m, holmPValue: NaN };
        binaryIndices.push(metrics.length);
        pValues.push(m.pValue);
      }
      metrics.push(comparison);
    }
  }
  holmAdjust(pValues).forEach((p, i) => (metrics[binaryIndices[i]].mcnemar!.holmPValue = p));

  const operational: OperationalComparison[] = [];
  const costOf = (o: RunOutcome, id: string, metric: OperationalComparison['metric']): number | undefined => {
    const op = o.operations?.[id];
    if (!op) return undefined;
    if (metric === 'totalTokens') return op.inputTokens !== undefined && op.outputTokens !== undefined ? op.inputTokens + op.outputTokens : undefined;
    return op[metric];
  };
  for (const alt of alternatives) {
    const ref = runsOf(reference)[0];
    const other = runsOf(alt)[0];
    for (const metric of ['agentSeconds', 'inputTokens', 'outputTokens', 'totalTokens'] as const) {
      const pairs = common.map((id) => [costOf(ref, id, metric), costOf(other, id, metric)] as const).filter(([a, b]) => a !== undefined && b !== undefined);
      if (pairs.length === 0) continue;
      const refValues = pairs.map(([a]) => a!);
      const altValues = pairs.map(([, b]) => b!);
      operational.push({
        metric,
        reference,
        alternative: alt,
        n: pairs.length,
        referenceMean: meanOf(refValues),
        alternativeMean: meanOf(altValues),
        bootstrap: pairedBootstrap(refValues, altValues, options),
      });
    }
  }

  return { alignedInstances: common.length, runs, localizers, resolvedUnion, resolvedByAll, uniqueFixes, wilcoxon, metrics, operational };
}
