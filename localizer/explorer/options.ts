/**
 * The explorer localizer's options: one zod schema. The defaults are the explorer study's runner (600 s per
 * instance) and mini-swe-agent's observation window (10,000 characters, head and tail kept).
 */
import { z } from 'zod';
import { nonNegativeInt, positiveInt } from '../options.ts';

export const ExplorerOptionsSchema = z
  .object({
    /** model replies per instance, the final answer included */
    maxSteps: positiveInt().default(50),
    /** prompt + completion tokens per instance; when spent, the model is asked once more for its answer */
    tokenBudget: positiveInt().default(500_000),
    /** wall clock per instance (the study's 600 s); running out is an error row, as in the study; 0 = none */
    timeLimitSeconds: nonNegativeInt().default(600),
    /** per-command time limit inside the sandbox */
    commandTimeoutSeconds: positiveInt().default(30),
    /** an observation longer than this is shown as its head and tail, saying how much was left out */
    observationChars: positiveInt().default(10_000),
    /** bytes of a command's output the sandbox keeps (head and tail) before the observation cut */
    maxOutputBytes: positiveInt().default(1_000_000),
    temperature: z.number({ message: 'must be a number >= 0' }).min(0, { message: 'must be a number >= 0' }).default(0),
    maxTokens: positiveInt().optional(),
    seed: z.number().int().optional(),
    /** the sandbox image: needs coreutils, grep, findutils and sed */
    image: z.string().min(1).default('locfix/base:bookworm'),
    /** sandbox limits */
    memoryMb: positiveInt().default(2048),
    cpus: z.number().positive().default(1),
  })
  .strict();

export type ExplorerOptions = z.output<typeof ExplorerOptionsSchema>;
