/**
 * Localization metrics between arms, each pair over the instances its own runs selected (an instance a run never
 * localized is a miss): paired percentile bootstrap CIs of every metric's difference, a repository-clustered one,
 * and exact McNemar on the binary metrics of the first runs, Holm-adjusted across every binary comparison.
 */
import { BINARY_METRICS, INSTANCE_METRIC_NAMES, type InstanceMetrics } from './instance-metrics.ts';
import { clusteredBootstrap, holmAdjust, mcnemarExact, pairedBootstrap, type BootstrapOptions, type ConfidenceInterval } from './statistics.ts';

/** A mean of an alternative arm against the reference's, over `n` paired instances, with its bootstrap interval. */
export interface PairedDifference {
  reference: string;
  alternative: string;
  n: number;
  referenceMean: number;
  alternativeMean: number;
  bootstrap: ConfidenceInterval;
}

/** `n`: the instances the pair's runs selected. */
export interface MetricComparison extends PairedDifference {
  metric: keyof InstanceMetrics;
  clusteredBootstrap: ConfidenceInterval;
  mcnemar?: { referenceOnly: number; alternativeOnly: number; pValue: number; holmPValue: number };
}

export interface MetricsInput {
  reference: string;
  alternatives: readonly string[];
  /** the instances the pair (reference, alternative) is compared over */
  idsOf(alternative: string): readonly string[];
  /** per instance of `ids`, the arm's metrics averaged over its runs */
  armRows(arm: string, ids: readonly string[]): InstanceMetrics[];
  /** per instance of `ids`, the metrics of the arm's first run */
  firstRunRows(arm: string, ids: readonly string[]): InstanceMetrics[];
  repoOf(id: string): string;
  bootstrap: BootstrapOptions;
}

const meanOf = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

export function compareMetrics(input: MetricsInput): MetricComparison[] {
  const metrics: MetricComparison[] = [];
  const binaryIndices: number[] = [];
  const pValues: number[] = [];
  for (const alt of input.alternatives) {
    const ids = input.idsOf(alt);
    if (ids.length === 0) continue; // no statistic over nothing
    const [refRows, altRows] = [input.armRows(input.reference, ids), input.armRows(alt, ids)];
    const [refFirst, altFirst] = [input.firstRunRows(input.reference, ids), input.firstRunRows(alt, ids)];
    const clusters = ids.map(input.repoOf);
    for (const metric of INSTANCE_METRIC_NAMES) {
      const refValues = refRows.map((r) => r[metric]);
      const altValues = altRows.map((r) => r[metric]);
      const comparison: MetricComparison = {
        metric,
        reference: input.reference,
        alternative: alt,
        n: ids.length,
        referenceMean: meanOf(refValues),
        alternativeMean: meanOf(altValues),
        bootstrap: pairedBootstrap(refValues, altValues, input.bootstrap),
        clusteredBootstrap: clusteredBootstrap(refValues, altValues, clusters, input.bootstrap),
      };
      if (BINARY_METRICS.includes(metric)) {
        const m = mcnemarExact(
          refFirst.map((r) => r[metric] === 1),
          altFirst.map((r) => r[metric] === 1),
        );
        comparison.mcnemar = { ...m, holmPValue: Number.NaN };
        binaryIndices.push(metrics.length);
        pValues.push(m.pValue);
      }
      metrics.push(comparison);
    }
  }
  holmAdjust(pValues).forEach((p, i) => (metrics[binaryIndices[i]!]!.mcnemar!.holmPValue = p));
  return metrics;
}
