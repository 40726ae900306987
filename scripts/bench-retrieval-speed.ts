/**
 * What a fusion costs the next instance (issue 34: the learned ranker must keep it within 10 %): the instance's
 * index time plus one retrieval on the live index — searches run again, no memo — under the hand-set fusion and
 * under the learned one. The two run in alternating order across instances, so neither always meets warm caches.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import { defaultQueries } from '../localizer/retrieval/query.ts';
import type { DeepPartial, RetrievalOptions } from '../localizer/retrieval/options.ts';
import { retrieveFiles, type RetrievalIndex } from '../localizer/retrieval/retriever.ts';

export interface FusionTimes {
  weightedMs: number;
  learnedMs: number;
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
  if (learnedFirst) {
    const learnedMs = await time(learned);
    return { learnedMs, weightedMs: await time({}) };
  }
  const weightedMs = await time({});
  return { weightedMs, learnedMs: await time(learned) };
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** Medians of index + retrieval per instance under each fusion, and their ratio. */
export function speedSummary(runs: ReadonlyArray<{ indexMs?: number; fusion?: FusionTimes }>) {
  const timed = runs.filter((r) => r.indexMs !== undefined && r.fusion);
  if (timed.length === 0) return undefined;
  const weighted = median(timed.map((r) => r.indexMs! + r.fusion!.weightedMs));
  const learned = median(timed.map((r) => r.indexMs! + r.fusion!.learnedMs));
  const fusionOnly = median(timed.map((r) => r.fusion!.learnedMs - r.fusion!.weightedMs));
  return {
    instances: timed.length,
    weightedMedianMs: +weighted.toFixed(1),
    learnedMedianMs: +learned.toFixed(1),
    ratio: +(learned / weighted).toFixed(3),
    learnedExtraMedianMs: +fusionOnly.toFixed(1),
  };
}
