/**
 * The options of the function-level and line-level stages (config keys `functionLevel` and `lineLevel`), one
 * schema each, checked when the run is assembled (before any instance) and handed typed to the stages. The
 * run's `topFiles` and `handoff` are set at the top level of the configuration, not here.
 */
import { z } from 'zod';
import { positiveInt } from '../../src/util/schema-types.ts';
import type { EditLocationsOptions } from './edit-locations.ts';
import type { RelatedElementsOptions } from './related-elements.ts';
import { FunctionRankingOptionsSchema, type FunctionRankingOptions } from '../function-ranking/options.ts';
import { parseLocalizerOptions } from '../options.ts';
import { KindedError } from '../../src/run/kinded-error.ts';
import { ERROR_KINDS } from '../../src/util/error-kinds.ts';

const temperature = () => z.number({ message: 'must be a number >= 0' }).nonnegative({ message: 'must be a number >= 0' });

/** The model's function level (Agentless' related elements), `localizer` "model" or left out. */
export const ModelFunctionLevelSchema = z
  .object({
    localizer: z.literal('model').optional(),
    /** attempts in all, the first at `temperature` (Agentless' MAX_RETRIES: 5) */
    maxAttempts: positiveInt(),
    temperature: temperature(),
    retryTemperature: temperature(),
    maxTokens: positiveInt(),
    /** files are dropped from the end while the prompt has this many tokens or more (Agentless: 128000) */
    maxContextTokens: positiveInt(),
    /** the compressed skeletons (Agentless' --compress_assign 30/10/10) */
    skeleton: z
      .object({ keepConstant: z.boolean(), compressAssign: z.boolean(), totalLines: positiveInt(), prefixLines: positiveInt(), suffixLines: positiveInt() })
      .partial()
      .strict(),
  })
  .partial()
  .strict() satisfies z.ZodType<Omit<RelatedElementsOptions, 'topFiles' | 'handoff'> & { localizer?: 'model' }>;

export const LineLevelOptionsSchema = z
  .object({
    /** samples per request (default 4) */
    samples: positiveInt(),
    temperature: temperature(),
    retryTemperature: temperature(),
    maxAttempts: positiveInt(),
    /** lines of context on each side of a related element (default 10) */
    contextWindow: z
      .number({ message: 'must be an integer >= 0' })
      .int({ message: 'must be an integer >= 0' })
      .nonnegative({ message: 'must be an integer >= 0' }),
    maxTokens: positiveInt(),
    maxContextTokens: positiveInt(),
  })
  .partial()
  .strict() satisfies z.ZodType<Omit<EditLocationsOptions, 'topFiles'>>;

export type ModelFunctionLevelOptions = z.infer<typeof ModelFunctionLevelSchema>;
/** The function level: the model's (the default) or, with `"localizer": "retrieval"`, the model-free ranking. */
export type FunctionLevelOptions = ModelFunctionLevelOptions | FunctionRankingOptions;

/** The config's `functionLevel` parsed by the schema of the function level it names, each with its own keys. */
export function parseFunctionLevel(input: unknown): FunctionLevelOptions {
  const named = typeof input === 'object' && input !== null ? (input as { localizer?: unknown }).localizer : undefined;
  if (named === 'retrieval') return parseLocalizerOptions('functionLevel', FunctionRankingOptionsSchema, input);
  if (named !== undefined && named !== 'model')
    throw new KindedError(
      ERROR_KINDS.badOptions,
      `functionLevel option localizer must be "model" (Agentless' related elements, the default) or "retrieval" (no model), got ${JSON.stringify(named)}`,
    );
  return parseLocalizerOptions('functionLevel', ModelFunctionLevelSchema, input);
}

/** Whether the function level calls a model (the model-free ranking does not). */
export function isModelFunctionLevel(options: FunctionLevelOptions): options is ModelFunctionLevelOptions {
  return options.localizer !== 'retrieval';
}
export type LineLevelOptions = z.infer<typeof LineLevelOptionsSchema>;
