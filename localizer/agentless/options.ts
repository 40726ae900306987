/** The Agentless localizer's serializable options (a config file or `--options`); README "Agentless localization". */
import { z } from 'zod';
import { positiveInt } from '../options.ts';

/** What the localizer uses where its options say nothing (combine.py's --top_n is 3; Agentless retrieves 100 chunks). */
export const AGENTLESS_DEFAULTS = { retrieval: true, combineTopN: 3, retrievalTopChunks: 100 } as const;

export const AgentlessOptionsSchema = z
  .object({
    /** files of each list that enter the combination (combine.py --top_n) */
    combineTopN: positiveInt().optional(),
    /** chunks retrieved */
    retrievalTopChunks: positiveInt().optional(),
    /** false: skip the irrelevant-folder pass and retrieval (model list only) */
    retrieval: z.boolean({ message: 'must be true or false' }).optional(),
    maxTokens: positiveInt().optional(),
    irrelevantMaxTokens: positiveInt().optional(),
    chunkTokens: positiveInt().optional(),
    /** an Agentless-chunk index on a running Chroma server (the localizer never starts one it could not stop) */
    agentlessIndex: z
      .object({ chromaUrl: z.string().min(1), embedder: z.string().optional(), cacheDir: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();
