/**
 * What localizing cost, arm against arm: agent time and tokens, alternative minus reference, on the first runs'
 * instances where both recorded the value, with a paired bootstrap interval.
 */
import type { PairedDifference } from './compare-metrics.ts';
import { pairedBootstrap, type BootstrapOptions } from './statistics.ts';

/** What a run recorded of each instance's localization cost (compare.ts' RunCosts has it). */
interface RunCosts {
  operations?: Record<string, { agentSeconds?: number; inputTokens?: number; outputTokens?: number } | undefined>;
}

/** `n`: the instances where both runs recorded the value. */
export interface OperationalComparison extends PairedDifference {
  metric: 'agentSeconds' | 'inputTokens' | 'outputTokens' | 'totalTokens';
}

function meanOf(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

/** Agent time and tokens, alternative minus reference (first runs), on the instances where both recorded them. */
export function compareOperational(
  reference: string,
  alternatives: readonly string[],
  firstRun: (arm: string) => RunCosts,
  common: readonly string[],
  bootstrap: BootstrapOptions,
): OperationalComparison[] {
  const operational: OperationalComparison[] = [];
  const costOf = (o: RunCosts, id: string, metric: OperationalComparison['metric']): number | undefined => {
    const op = o.operations?.[id];
    if (!op) return undefined;
    if (metric === 'totalTokens') return op.inputTokens !== undefined && op.outputTokens !== undefined ? op.inputTokens + op.outputTokens : undefined;
    return op[metric];
  };
  for (const alt of alternatives) {
    const ref = firstRun(reference);
    const other = firstRun(alt);
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
        bootstrap: pairedBootstrap(refValues, altValues, bootstrap),
      });
    }
  }
  return operational;
}
