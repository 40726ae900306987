/**
 * The Agentless localizer's options, each with its default where it has one (a config file or `--localizer-options`;
 * README "Agentless localization"): one schema is the type, the defaults and the check.
 */
import { z } from 'zod';
import { positiveInt, userInputSchema } from '../options.ts';

export const AgentlessOptionsSchema = z
  .object({
    /** files of each list that enter the combination (combine.py --top_n is 3) */
    combineTopN: positiveInt().default(3),
    /** chunks retrieved (Agentless retrieves 100) */
    retrievalTopChunks: positiveInt().default(100),
    /** false: skip the irrelevant-folder pass and retrieval (model list only) */
    retrieval: z.boolean({ message: 'must be true or false' }).default(true),
    /** Agentless asks with max_tokens 300 (files) / 2048 (folders); default: the server's limit, which reasoning models
     * need (their reasoning counts against max_tokens) */
    maxTokens: positiveInt().optional(),
    irrelevantMaxTokens: positiveInt().optional(),
    chunkTokens: positiveInt().optional(),
    /**
     * an Agentless-chunk index on a running Chroma server (`--localizer-options '{"agentlessIndex":
     * {"chromaUrl":"http://127.0.0.1:8000","embedder":"lexical","cacheDir":"~/.cache/locfix"}}'`); the localizer never
     * starts one it could not stop
     */
    agentlessIndex: z
      .object({ chromaUrl: z.string().min(1), embedder: z.string().optional(), cacheDir: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

/** What a user writes (recorded as written); `AgentlessOptionsSchema.parse` resolves it. */
export const AgentlessInputSchema = userInputSchema(AgentlessOptionsSchema) as z.ZodType<z.input<typeof AgentlessOptionsSchema>>;

export type AgentlessOptions = z.output<typeof AgentlessOptionsSchema>;
