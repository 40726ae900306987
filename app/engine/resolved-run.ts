/**
 * A run's choices parsed once, at the edge: the localizer resolved by its registry entry, and the function- and
 * line-level stages' options by their own schemas. The run config (src/config.ts) keeps these three blocks in
 * the form the user wrote them — it is what a manifest records and a resume compares — and it sits below the
 * localizers, so it cannot name their schemas; this is the lowest layer that knows every stage, and the one
 * place they are parsed. A misspelled key anywhere in them fails here, before a run folder, a dataset or a
 * service is touched.
 */
import { type FunctionLevelOptions, LineLevelOptionsSchema, type LineLevelOptions, parseFunctionLevel } from '../../localizer/hierarchy/options.ts';
import { parseLocalizerOptions } from '../../localizer/options.ts';
import { resolveLocalizer, type ResolvedLocalizer } from '../../localizer/registry.ts';
import type { RunConfig } from '../../src/config.ts';

export interface ResolvedRun {
  localizer: ResolvedLocalizer;
  functionLevel: FunctionLevelOptions;
  lineLevel: LineLevelOptions;
  /** the file oracle, when the run takes localization from the gold patch (`oracleFrom`) */
  oracle?: ResolvedLocalizer;
}

export async function resolveRun(config: Pick<RunConfig, 'localizer' | 'functionLevel' | 'lineLevel' | 'oracleFrom'>): Promise<ResolvedRun> {
  return {
    localizer: await resolveLocalizer(config.localizer.name, config.localizer.options),
    functionLevel: parseFunctionLevel(config.functionLevel ?? {}),
    lineLevel: parseLocalizerOptions('lineLevel', LineLevelOptionsSchema, config.lineLevel),
    ...(config.oracleFrom ? { oracle: await resolveLocalizer('oracle', {}) } : {}),
  };
}
