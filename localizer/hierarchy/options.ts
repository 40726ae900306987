/**
 * The options of the function-level and line-level stages (config keys `functionLevel` and `lineLevel`), one
 * schema each, checked when the run is assembled (before any instance) and handed typed to the stages. The
 * run's `topFiles` and `handoff` are set at the top level of the configuration, not here.
 */
import { z } from 'zod';
import { positiveInt } from '../../src/util/schema-types.ts';
import type { EditLocationsOptions } from './edit-locations.ts';
import type { RelatedElementsOptions } from './related-elements.ts';

const temperature = () => z.number({ message: 'must be a number >= 0' }).nonnegative({ message: 'must be a number >= 0' });

export const FunctionLevelOptionsSchema = z
  .object({
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
  .strict() satisfies z.ZodType<Omit<RelatedElementsOptions, 'topFiles' | 'handoff'>>;

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

export type FunctionLevelOptions = z.infer<typeof FunctionLevelOptionsSchema>;
export type LineLevelOptions = z.infer<typeof LineLevelOptionsSchema>;
