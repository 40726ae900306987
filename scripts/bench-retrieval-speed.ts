/**
 * What a fusion costs the next instance (issue 34: the learned ranker must keep it within 10 %): the instance's
 * index time plus one retrieval on the live index — searches run again, no memo — under the hand-set fusion and
 * under the learned one. The two run in alternating order across instances, so neither always meets warm caches.
 * The default without the literals channel (issue 44) is timed too, with the index's own literals build taken out.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import { defaultQueries } from '../localizer/retrieval/query.ts';
import type { DeepPartial, RetrievalOptions } from '../localizer/retrieval/options.ts';
import { retrieveFiles, type RetrievalIndex } from '../localizer/retrieval/retriever.ts';

export interface FusionTimes {
  weightedMs: number;
  learnedMs: number;
  /** the default with the literals channel off: one retrieval */
  noLiteralsMs: number;
}

export async function fusionTimes(
  index: RetrievalIndex,
  inst: SweInstance,
  learned: DeepPartial<RetrievalOptions>,
  learnedFirst: boolean,
): Promise<FusionTimes> {
  const queries = defaultQueries(inst.problem_statement);
  const time = async (options: DeepPartial<RetrievalOptions>) => {
    const t = performance.now();
    await retrieveFiles(index, queries, options);
    return performance.now() - t;
  };
  const noLiterals = { weights: { literals: 0 } };
  if (learnedFirst) {
    const learnedMs = await time(learned);
    const noLiteralsMs = await time(noLiterals);
    return { learnedMs, noLiteralsMs, weightedMs: await time({}) };
  }
  const weightedMs = await time({});
  const noLiteralsMs = await time(noLiterals);
  return { weightedMs, noLiteralsMs, learnedMs: await time(learned) };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Medians of index + retrieval per instance under each fusion, and their ratio. */
export function speedSummary(runs: ReadonlyArray<{ indexMs?: number; fusion?: FusionTimes; indexTimings?: Record<string, unknown> }>) {
  const timed = runs.filter((r) => r.indexMs !== undefined && r.fusion);
  if (timed.length === 0) return undefined;
  const weighted = median(timed.map((r) => r.indexMs! + r.fusion!.weightedMs));
  const learned = median(timed.map((r) => r.indexMs! + r.fusion!.learnedMs));
  const fusionOnly = median(timed.map((r) => r.fusion!.learnedMs - r.fusion!.weightedMs));
  // without the literals channel: its index build taken out of the index time, its search out of the retrieval
  const literalsBuild = (r: (typeof timed)[number]) => Number(r.indexTimings?.literalsMs ?? 0);
  const noLiterals = median(timed.map((r) => r.indexMs! - literalsBuild(r) + r.fusion!.noLiteralsMs));
  return {
    instances: timed.length,
    weightedMedianMs: +weighted.toFixed(1),
    learnedMedianMs: +learned.toFixed(1),
    ratio: +(learned / weighted).toFixed(3),
    learnedExtraMedianMs: +fusionOnly.toFixed(1),
    noLiteralsMedianMs: +noLiterals.toFixed(1),
    literalsRatio: +(weighted / noLiterals).toFixed(3),
    literalsBuildMedianMs: +median(timed.map(literalsBuild)).toFixed(1),
  };
}
