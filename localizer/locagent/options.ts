/** The LocAgent localizer's options: one zod schema, LocAgent's settings (auto_search_main.py) as defaults. */
import { z } from 'zod';
import { nonNegativeInt, positiveInt } from '../options.ts';

export const LocagentOptionsSchema = z
  .object({
    /** model calls per sample, the final answer included (LocAgent's max_iteration_num: 20) */
    maxSteps: positiveInt().default(20),
    /** independent runs merged by reciprocal rank (LocAgent's --num_samples 2, --ranking_method mrr) */
    samples: positiveInt().default(2),
    /** LocAgent samples at 1.0 */
    temperature: z.number({ message: 'must be a number >= 0' }).min(0, { message: 'must be a number >= 0' }).default(1),
    /** per-call completion limit; default the server's */
    maxTokens: positiveInt().optional(),
    seed: z.number().int().optional(),
    /** prompt + completion tokens one sample may use; when spent, the agent is asked for its answer once more */
    tokenBudget: positiveInt().default(400_000),
    /** wall clock per instance, all samples (LocAgent's --timeout 900 s); 0 = none */
    timeLimitSeconds: nonNegativeInt().default(900),
    /** a tool result longer than this many tokens is cut, saying so */
    observationTokens: positiveInt().default(8_000),
    /** files handed on after the agent's own (most-shown files of its trajectory fill up to this many) */
    files: positiveInt().default(10),
  })
  .strict();

export type LocagentOptions = z.output<typeof LocagentOptionsSchema>;
