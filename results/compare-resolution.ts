/**
 * Paired statistics of resolution between arms, on the instances every run judged: the difference in resolved
 * rate (solve frequency over an arm's runs, so repeats over seeds count), a paired bootstrap interval on it, a
 * repository-clustered one, and exact McNemar on the first runs' outcomes, Holm-adjusted across the family of
 * alternatives. The same tests as the localization metrics (statistics.ts), so one SciPy check covers both.
 */
import { clusteredBootstrap, holmAdjust, mcnemarExact, pairedBootstrap, type BootstrapOptions, type ConfidenceInterval } from './statistics.ts';

export interface ResolutionComparison {
  reference: string;
  alternative: string;
  /** instances every run judged */
  n: number;
  referenceRate: number;
  alternativeRate: number;
  /** alternative − reference, instances resampled */
  bootstrap: ConfidenceInterval;
  /** the same, repositories resampled */
  clusteredBootstrap: ConfidenceInterval;
  /** on the first run of each arm; Holm across the alternatives */
  mcnemar: { referenceOnly: number; alternativeOnly: number; pValue: number; holmPValue: number };
}

export interface ResolutionInput {
  reference: string;
  alternatives: readonly string[];
  /** per judged instance, the share of the arm's runs that resolved it */
  solveFrequency(arm: string): number[];
  /** per judged instance, whether the arm's first run resolved it */
  firstRunResolved(arm: string): boolean[];
  /** per judged instance, its repository */
  clusters: readonly string[];
  bootstrap?: BootstrapOptions;
}

export function compareResolution(input: ResolutionInput): ResolutionComparison[] {
  if (input.clusters.length === 0) return [];
  const ref = input.solveFrequency(input.reference);
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const rows = input.alternatives.map((alternative): ResolutionComparison => {
    const alt = input.solveFrequency(alternative);
    return {
      reference: input.reference,
      alternative,
      n: ref.length,
      referenceRate: mean(ref),
      alternativeRate: mean(alt),
      bootstrap: pairedBootstrap(ref, alt, input.bootstrap),
      clusteredBootstrap: clusteredBootstrap(ref, alt, input.clusters, input.bootstrap),
      mcnemar: { ...mcnemarExact(input.firstRunResolved(input.reference), input.firstRunResolved(alternative)), holmPValue: Number.NaN },
    };
  });
  holmAdjust(rows.map((r) => r.mcnemar.pValue)).forEach((p, i) => (rows[i]!.mcnemar.holmPValue = p));
  return rows;
}
