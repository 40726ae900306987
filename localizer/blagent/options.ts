/** BLAgent's options: one zod schema, the paper's settings as defaults (README "Options" table). */
import { z } from 'zod';
import { nonNegativeInt, parseLocalizerOptions, positiveInt } from '../options.ts';
import { RetrievalTuningSchema, resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from '../retrieval/options.ts';

export const BlagentOptionsSchema = z
  .object({
    /** files taken from each query's ranking into the pool */
    m: positiveInt().default(10),
    /** pool size limit (the reference implementation let it grow to ~20) */
    poolCap: positiveInt().default(15),
    /** M: files Phase 2 reranks (5 as in the paper; the reference code's headline runs appear to use 10) */
    earFiles: positiveInt().default(5),
    /** retrieved chunks per file whose functions EAR shows in full */
    anchorChunks: positiveInt().default(5),
    /** Phase 1 tool calls */
    maxSteps: positiveInt().default(15),
    /** unusable replies tolerated per phase before falling back */
    maxRetries: nonNegativeInt().default(5),
    /** older skeletons cut to one-line 'notes' (the agent memory the paper recommends, §6), 'outline's, or the 'full' ReAct history */
    phase1History: z.enum(['full', 'outline', 'notes'], { message: 'must be one of "full", "outline", "notes"' }).default('notes'),
    /** 'function': the §3.7 variant, EAR names Class::method entities */
    level: z.enum(['file', 'function'], { message: 'must be "file" or "function"' }).default('file'),
    /** EAR prompt limit in tokens, about the paper's own EAR average (≈15.3k, §3.7) */
    earTokenBudget: positiveInt().default(16_000),
    /** EAR shows an unanchored assignment longer than this many lines by its first line only (0 = no limit) */
    earAssignmentLines: nonNegativeInt('must be an integer >= 0 (0 = no limit)').default(0),
    /** a longer skeleton sheds docstrings, then signatures, then its tail (~200 signatures) */
    skeletonMaxTokens: positiveInt().default(3_000),
    temperature: z.number({ message: 'must be a number >= 0' }).min(0, { message: 'must be a number >= 0' }).default(0),
    maxTokens: positiveInt().optional(),
    seed: z.number().int().optional(),
    /** without a chat model: rank in retrieval order instead of failing */
    allowNoLlm: z.boolean().default(false),
    /** options of the underlying retriever (weights, depths) */
    retrieval: RetrievalTuningSchema.optional(),
  })
  .strict();

export type BlagentOptions = z.input<typeof BlagentOptionsSchema>;
export type ResolvedBlagentOptions = Omit<z.output<typeof BlagentOptionsSchema>, 'retrieval'> & { retrieval: RetrievalOptions };
export type Phase1History = z.output<typeof BlagentOptionsSchema>['phase1History'];

/** The options with defaults, and the retriever's options derived from m, poolCap and anchorChunks. */
export function resolveBlagentOptions(options: Record<string, unknown> = {}): ResolvedBlagentOptions {
  return deriveBlagentOptions(parseLocalizerOptions('blagent', BlagentOptionsSchema, options));
}

/** The retriever's options derived from options the schema already parsed (the registry parses once). */
export function deriveBlagentOptions(o: z.output<typeof BlagentOptionsSchema>): ResolvedBlagentOptions {
  const partial = (o.retrieval ?? {}) as DeepPartial<RetrievalOptions>;
  const retrieval = resolveRetrievalOptions({
    ...partial,
    poolPerQuery: o.m,
    poolCap: o.poolCap,
    evidencePerFile: Math.max(o.anchorChunks, partial.evidencePerFile ?? 0),
  });
  return { ...o, retrieval };
}
