/**
 * The oracle at function and line level: stages that write the same artifacts as the model's function- and
 * line-level stages (localizer/hierarchy/stage.ts), filled from the gold patch (gold-locations.ts), so that
 * every later stage runs unchanged on perfect localization. `locfix run --oracle-from function|line` puts them
 * in place of the model's stages; like the file oracle they read the answer, so their runs are upper bounds.
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { modifiedExistingFiles } from '../../src/patch.ts';
import { STAGE, type PipelineStage } from '../../src/run/stage.ts';
import type { FunctionStageOutput, LineStageOutput } from '../hierarchy/stage.ts';
import type { ResolvedElement } from '../hierarchy/related-elements.ts';
import { goldEditLocationSet, goldLocations, type GoldLocations } from './gold-locations.ts';

export const ORACLE_LOCALIZER = 'oracle';

/** What the oracle stages need of the run's services. */
export interface OracleServices {
  snapshot(repo: string, commit: string): Promise<RepoSnapshot>;
}

const NO_USAGE = { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 };

/** The gold patch's locations, read from the instance's base commit. */
export async function oracleLocations(services: OracleServices, instance: SweInstance): Promise<GoldLocations> {
  if (!instance.patch.trim()) throw new Error(`oracle: ${instance.instance_id} has no gold patch`);
  const snapshot = await services.snapshot(instance.repo, instance.base_commit);
  const paths = modifiedExistingFiles(instance.patch);
  const sources = paths.length ? await snapshot.readFiles(paths) : new Map<string, string>();
  const gold = goldLocations(instance.patch, (p) => sources.get(p));
  if (gold.files.length === 0) {
    const why = gold.unplaced.map((u) => `${u.path}: ${u.reason}`).join('; ') || 'the gold patch edits no existing file';
    throw new Error(`oracle: nothing of ${instance.instance_id}'s gold patch can be shown (${why})`);
  }
  return gold;
}

function elementsOf(gold: GoldLocations): ResolvedElement[] {
  return gold.files.flatMap((f) =>
    f.locations.map((raw) => {
      const [kind, value] = raw.split(': ') as ['function' | 'line', string];
      const range = kind === 'line' ? { start: Number(value), end: Number(value) } : f.functionRanges[value]!;
      return { path: f.path, kind, raw, name: kind === 'line' ? `<line ${value}>` : value, range };
    }),
  );
}

/** Function level from the gold patch: each gold file's edited functions, and its lines outside any function. */
export function oracleFunctionStage(services: OracleServices): PipelineStage<FunctionStageOutput> {
  return {
    name: STAGE.functions,
    usesModel: false,
    run: async (input) => {
      const t0 = performance.now();
      const gold = await oracleLocations(services, input.instance);
      const files = gold.files.map((f) => f.path);
      return {
        fileLocalizer: ORACLE_LOCALIZER,
        handoff: 'top',
        handed: files,
        files,
        locations: Object.fromEntries(gold.files.map((f) => [f.path, f.locations])),
        elements: elementsOf(gold),
        codeElements: gold.elements,
        unresolved: [],
        ignored: gold.unplaced.map((u) => `${u.path} (${u.reason})`),
        attempts: 0,
        rawOutputs: [],
        missingFiles: [],
        trace: [],
        usage: NO_USAGE,
        timingsMs: { total: performance.now() - t0 },
        oracle: true,
      };
    },
  };
}

/** Line level from the gold patch: one location set holding every changed line of every gold file. */
export function oracleLineStage(services: OracleServices): PipelineStage<LineStageOutput> {
  return {
    name: STAGE.lines,
    usesModel: false,
    run: async (input) => {
      const t0 = performance.now();
      const gold = await oracleLocations(services, input.instance);
      const set = goldEditLocationSet(gold);
      return {
        fileLocalizer: ORACLE_LOCALIZER,
        handoff: 'top',
        files: gold.files.map((f) => f.path),
        locationSets: [set],
        samples: [],
        context: set.files.map((f) => ({ path: f.path, intervals: f.ranges })),
        attempts: 0,
        missingFiles: [],
        trace: [],
        usage: NO_USAGE,
        timingsMs: { total: performance.now() - t0 },
        oracle: true,
      };
    },
  };
}
