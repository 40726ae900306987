/**
 * Every tunable of the model-free retriever in one place; nothing here is per repository. The channel weights
 * were chosen on real issues that are not evaluation data (issue 44: SWE-bench dev, Multimodal dev and the
 * Multilingual development rows, `npm run tune:fusion`, checked by cross-validation grouped by repository); the
 * depths and the rest were chosen on the even-indexed SWE-bench Lite instances and checked on the odd ones
 * (issue 2). BENCHMARKS.md has both.
 */
import { z } from 'zod';
import { userInputSchema } from '../options.ts';
import type { Normalization } from './fusion.ts';
import type { MentionSource } from './structural-query.ts';

const weight = () => z.number({ message: 'must be a number >= 0' }).nonnegative({ message: 'must be a number >= 0' });
const factor = () => z.number({ message: 'must be a number' });
const depth = () =>
  z.number({ message: 'must be a positive integer' }).int({ message: 'must be a positive integer' }).positive({ message: 'must be a positive integer' });

/** Each fusion channel's weight; chosen on the development sets by tune:fusion (out of fold Top-1/3/5 .644/.803/.867
 * against .631/.800/.861 for the weights before, which Lite's even rows had chosen). */
const ChannelWeightsSchema = z
  .object({
    /** dense (embedding) chunk search, file score = max over its chunks */
    dense: weight().default(0.25),
    /** BM25 over chunks, file score = max over its chunks; adds nothing the file-level search lacks */
    chunkBm25: weight().default(0),
    /** BM25 over whole files */
    fileBm25: weight().default(1),
    /** files that define the identifiers a query's signals name */
    definitions: weight().default(0.5),
    /** files named by path, dotted module or traceback frame */
    paths: weight().default(2),
    /** files changed by earlier commits whose messages resemble the query (similar past fixes) */
    history: weight().default(1),
    /** files one code-graph step (calls, inheritance) from the definitions the query names; needs an index with a graph */
    graph: weight().default(0),
    /**
     * files holding string literals the query quotes (error messages, log lines); 0.5 was chosen on the development
     * sets (SWE-bench dev, Multimodal dev, Multilingual dev; BENCHMARKS.md), where it was better or equal at every
     * depth (a replayed recording made before the channel asks for weights.literals 0 or a new recording)
     */
    literals: weight().default(0.5),
    /**
     * files reading the configuration keys and command-line flags the query names (`autodoc_typehints`,
     * `--collect-only`); off by default: on the development sets it helped the Multilingual rows and cost SWE-bench
     * dev rows at rank 1 at every weight tried (BENCHMARKS.md)
     */
    keys: weight().default(0),
    /**
     * files earlier commits changed together with the files the query names (paths and definitions; see
     * coChangeSeeds); 0.5 was chosen on the development sets, where it raised Top-1, Top-3 and Top-5 on all three
     * (BENCHMARKS.md; a replayed recording made before the channel asks for weights.coChange 0 or a new recording)
     */
    coChange: weight().default(0.5),
  })
  .strict();

/**
 * The retriever's options, each named once with its default (moatless-style: the schema is the type and the
 * defaults). `resolveRetrievalOptions` parses a partial block into the whole one; `RetrievalTuningSchema`, derived
 * from this one without its defaults, checks what a config file or `--localizer-options` gives (`retrieval: {...}`),
 * so a misspelled key fails at start and the recorded options are what the user wrote.
 */
export const RetrievalOptionsSchema = z
  .object({
    /** 'weighted' = weighted normalized-score fusion; 'rrf' = reciprocal-rank fusion; 'learned' = the weighted
     * fusion's first files reordered by a trained model over the channels' evidence (learned/) */
    fusion: z.enum(['weighted', 'rrf', 'learned'], { message: 'must be "weighted", "rrf" or "learned"' }).default('weighted'),
    /** the learned ranker's model file (undefined: the one shipped with locfix, models/file-ranker.json) */
    rankerModel: z.string({ message: 'must be a path to a model file' }).optional(),
    normalization: z.enum(['max', 'minmax'], { message: 'must be "max" or "minmax"' }).default('max'),
    rrfK: factor().default(60),
    weights: ChannelWeightsSchema.prefault({}),
    /** per query label; labels not listed get 1 */
    queryWeights: z.record(z.string(), factor()).default({}),
    /** which queries search the commit history: 'all', or query labels. Default: the prose ones — the raw
     * issue and BLAgent's behavioural T1 read like commit messages; identifier lists (structural, T0) less so
     * (measured: raw only beats all queries on MRR, 0.699 vs 0.687, same Top-10) */
    historyQueries: z.union([z.literal('all'), z.array(z.string())], { message: 'must be "all" or a list of query labels' }).default(['raw', 'T1']),
    /** file score from chunk hits: the best chunk (topN 1, BLAgent's max) or the best topN, damped by decay */
    chunkAggregation: z
      .object({ topN: depth().default(2), decay: factor().default(0.5) })
      .strict()
      .prefault({}),
    /** chunks asked from each chunk search, files from the file search */
    chunkDepth: depth().default(300),
    fileDepth: depth().default(200),
    /** candidate pool: top-m of each query's own ranking, unique, capped */
    poolPerQuery: depth().default(10),
    poolCap: depth().default(15),
    /** files kept in the stored full ranking (metrics beyond the pool use it) */
    rankingDepth: depth().default(100),
    /** evidence chunks kept per ranked file */
    evidencePerFile: depth().default(3),
    /** how much a name mention counts, by where it was seen */
    mentionWeights: z
      .object({ frame: factor().default(1), backtick: factor().default(1), code: factor().default(0.5), prose: factor().default(0.6) })
      .strict()
      .prefault({}),
    /** extra weight when a `Class.method` mention matches a definition's qualified name */
    qualifiedWeight: factor().default(1),
    /** a name defined in n files contributes weight / n^definitionSpreadExponent to each */
    definitionSpreadExponent: factor().default(1),
    /** names defined in more files than this are ignored for the boost */
    maxDefiningFiles: depth().default(30),
    /** path-signal weights: explicit path, the innermost repository frame, dotted module path, a named
     * identifier that is a module's name, the module a named test file tests */
    pathWeights: z
      .object({
        path: factor().default(1),
        frame: factor().default(1),
        module: factor().default(0.7),
        moduleName: factor().default(0),
        testedModule: factor().default(0),
      })
      .strict()
      .prefault({}),
    /** each further (outer) repository frame counts this factor less than the previous one */
    frameDecay: factor().default(0.5),
    /** the co-change channel's seeds: this many of a query's best files by paths and by definitions, each */
    coChangeSeeds: depth().default(3),
  })
  .strict();

export type RetrievalOptions = z.output<typeof RetrievalOptionsSchema> & {
  normalization: Normalization;
  mentionWeights: Record<MentionSource, number>;
};
export type ChannelWeights = RetrievalOptions['weights'];

/** The retriever's options as a config file or `--localizer-options` gives them: every key optional, none filled in. */
export const RetrievalTuningSchema = userInputSchema(RetrievalOptionsSchema) as z.ZodType<DeepPartial<RetrievalOptions>>;

export const DEFAULT_RETRIEVAL_OPTIONS: RetrievalOptions = RetrievalOptionsSchema.parse({}) as RetrievalOptions;

/** The whole options from a partial block: every key it leaves out at its default; a bad value names the key. */
export function resolveRetrievalOptions(partial: DeepPartial<RetrievalOptions> = {}): RetrievalOptions {
  const parsed = RetrievalOptionsSchema.safeParse(partial);
  if (parsed.success) return parsed.data as RetrievalOptions;
  const issue = parsed.error.issues[0]!;
  throw new Error(`retrieval option ${issue.path.join('.')} ${issue.message}, got ${JSON.stringify(valueAt(partial, issue.path))}`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, key) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined), value);
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
