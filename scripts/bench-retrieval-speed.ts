/**
 * What a setting costs the next instance: the instance's index time plus one retrieval on the live index —
 * searches run again, no memo — under the default, under the default as it was before issue 44 (no literals,
 * keys or co-change channel; their index builds taken out of the index time) and, when a model is given, under
 * the learned fusion (issue 34 kept it within 10 %). The settings run in an order rotated across instances, so
 * none always meets warm caches. Also the memory a run took.
 */
import { readFileSync } from 'node:fs';
import type { SweInstance } from '../src/dataset/schema.ts';
import { defaultQueries, type QueryPreset } from '../localizer/retrieval/query.ts';
import { BEFORE_ISSUE_44 } from './bench-retrieval-configs.ts';
import type { DeepPartial, RetrievalOptions } from '../localizer/retrieval/options.ts';
import { retrieveFiles, type RetrievalIndex } from '../localizer/retrieval/retriever.ts';

/** per setting: one retrieval's milliseconds */
export interface FusionTimes {
  weightedMs: number;
  /** the default before issue 44: its queries and weights (no title query, literals or co-change) */
  beforeMs: number;
  learnedMs?: number;
}

export async function fusionTimes(
  index: RetrievalIndex,
  inst: SweInstance,
  learned: DeepPartial<RetrievalOptions> | undefined,
  rotation: number,
): Promise<FusionTimes> {
  type Setting = [keyof FusionTimes, QueryPreset | undefined, DeepPartial<RetrievalOptions>];
  const settings: Setting[] = [
    ['weightedMs', undefined, {}],
    ['beforeMs', BEFORE_ISSUE_44.queries, { weights: BEFORE_ISSUE_44.weights }],
    ...(learned ? [['learnedMs', undefined, learned] as Setting] : []),
  ];
  const out: Partial<FusionTimes> = {};
  for (let i = 0; i < settings.length; i++) {
    const [key, preset, options] = settings[(i + rotation) % settings.length]!;
    const t = performance.now();
    await retrieveFiles(index, defaultQueries(inst.problem_statement, preset), options);
    out[key] = performance.now() - t;
  }
  return out as FusionTimes;
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
  // before issue 44: the literals channel's index build taken out of the index time (the keys table is built on
  // its first search, so never in the index time, and the default does not search it)
  const literalsBuild = (r: (typeof timed)[number]) => Number(r.indexTimings?.literalsMs ?? 0);
  const before = median(timed.map((r) => r.indexMs! - literalsBuild(r) + r.fusion!.beforeMs));
  const withModel = timed.filter((r) => r.fusion!.learnedMs !== undefined);
  const learned = withModel.length ? median(withModel.map((r) => r.indexMs! + r.fusion!.learnedMs!)) : undefined;
  return {
    instances: timed.length,
    weightedMedianMs: +weighted.toFixed(1),
    beforeMedianMs: +before.toFixed(1),
    /** the default now over the default before issue 44 */
    ratioToBefore: +(weighted / before).toFixed(3),
    literalsBuildMedianMs: +median(timed.map(literalsBuild)).toFixed(1),
    ...(learned === undefined
      ? {}
      : {
          learnedMedianMs: +learned.toFixed(1),
          ratio: +(learned / weighted).toFixed(3),
          learnedExtraMedianMs: +median(withModel.map((r) => r.fusion!.learnedMs! - r.fusion!.weightedMs)).toFixed(1),
        }),
  };
}

/** The speed lines the benchmark prints. */
export function formatSpeed(speed: NonNullable<ReturnType<typeof speedSummary>>): string {
  const learned =
    speed.learnedMedianMs === undefined
      ? ''
      : `, learned ${(speed.learnedMedianMs / 1000).toFixed(2)} s (ratio ${speed.ratio}; the ranker's own median cost ${speed.learnedExtraMedianMs} ms)`;
  return [
    `next instance (index + one retrieval), median over ${speed.instances}: default ${(speed.weightedMedianMs / 1000).toFixed(2)} s${learned}`,
    `the default before issue 44 (its weights, no title query, literals or co-change): ${(speed.beforeMedianMs / 1000).toFixed(2)} s (now / before ${speed.ratioToBefore}; the literals table's build median ${speed.literalsBuildMedianMs} ms)`,
  ].join('\n');
}

/** kilobytes as megabytes, for the memory lines */
export function mb(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MB`;
}

/** the Chroma server's peak resident memory, read from /proc by the pid its state file names */
export function chromaPeakRssKb(stateFile: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number };
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = status.match(/VmHWM:\s+(\d+) kB/);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
