/**
 * Paired statistics of resolution between arms, each pair over the instances its own runs selected: the difference in resolved
 * rate (solve frequency over an arm's runs, so repeats over seeds count), a paired bootstrap interval on it, a
 * repository-clustered one, and exact McNemar on the first runs' outcomes, Holm-adjusted across the family of
 * alternatives. The same tests as the localization metrics (statistics.ts), so one SciPy check covers both.
 */
import { clusteredBootstrap, holmAdjust, mcnemarExact, pairedBootstrap, type BootstrapOptions, type ConfidenceInterval } from './statistics.ts';

export interface ResolutionComparison {
  reference: string;
  alternative: string;
  /** the instances the pair's runs selected (work not done counts as unresolved) */
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
  /** the instances the pair (reference, alternative) is compared over: those its runs selected; empty when a run of
   * the pair judged none of them (no statistic over nothing) */
  idsOf(alternative: string): readonly string[];
  /** per instance of `ids`, the share of the arm's runs that resolved it */
  solveFrequency(arm: string, ids: readonly string[]): number[];
  /** per instance of `ids`, whether the arm's first run resolved it */
  firstRunResolved(arm: string, ids: readonly string[]): boolean[];
  /** an instance's repository */
  repoOf(id: string): string;
  bootstrap?: BootstrapOptions;
}

export function compareResolution(input: ResolutionInput): ResolutionComparison[] {
  const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const rows = input.alternatives.flatMap((alternative): ResolutionComparison[] => {
    const ids = input.idsOf(alternative);
    if (ids.length === 0) return [];
    const ref = input.solveFrequency(input.reference, ids);
    const alt = input.solveFrequency(alternative, ids);
    return [
      {
        reference: input.reference,
        alternative,
        n: ids.length,
        referenceRate: mean(ref),
        alternativeRate: mean(alt),
        bootstrap: pairedBootstrap(ref, alt, input.bootstrap),
        clusteredBootstrap: clusteredBootstrap(ref, alt, ids.map(input.repoOf), input.bootstrap),
        mcnemar: {
          ...mcnemarExact(input.firstRunResolved(input.reference, ids), input.firstRunResolved(alternative, ids)),
          holmPValue: Number.NaN,
        },
      },
    ];
  });
  holmAdjust(rows.map((r) => r.mcnemar.pValue)).forEach((p, i) => (rows[i]!.mcnemar.holmPValue = p));
  return rows;
}
