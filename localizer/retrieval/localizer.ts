/**
 * The model-free localizer: locfix's hybrid retrieval (dense + BM25 + definitions + paths + history, fused)
 * over the raw issue and its structural query. `locfix localize --localizer retrieval` and `locfix retrieve`
 * both run it, so both write the one file-localization artifact shape. Also the fallback order of the LLM
 * localizers.
 */
import path from 'node:path';
import { z } from 'zod';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { defaultQueries, QUERY_PRESETS, type QueryPreset, type RetrievalQuery } from './query.ts';
import { type RetrievalResult, retrieveResolved } from './retriever.ts';
import { RetrievalTuningSchema, resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from './options.ts';
import type { FileLocalizer, LocalizerContext } from '../types.ts';
import { loadRankerModel } from './learned/model.ts';
import { agreementWith, scoreSignals, signals, type ConfidenceSignals } from '../../src/artifacts/confidence.ts';

/** What a config file or `--options` may set (the queries of other stages are given in code, `queriesFor`). */
export const RetrievalOptionsSchema = z
  .object({
    queries: z
      .enum(QUERY_PRESETS, {
        message: `must be ${QUERY_PRESETS.slice(0, -1)
          .map((p) => `"${p}"`)
          .join(', ')} or "${QUERY_PRESETS.at(-1)}"`,
      })
      .optional(),
    /** 'drop' (default) searches the issue without its `pip list` / show_versions tables; 'keep' as written */
    environmentReports: z.enum(['drop', 'keep'], { message: 'must be "drop" or "keep"' }).optional(),
    /** the retriever's weights and depths (localizer/retrieval/options.ts) */
    retrieval: RetrievalTuningSchema.optional(),
  })
  .strict();

export interface RetrievalLocalizerOptions {
  queries?: QueryPreset;
  environmentReports?: 'drop' | 'keep';
  retrieval?: DeepPartial<RetrievalOptions>;
  /** queries written elsewhere (e.g. an LLM's T0/T1) for the instances it answers; the others get the preset's */
  queriesFor?: (instance: SweInstance) => RetrievalQuery[] | undefined;
}

/** Evidence kept per ranked file: enough to see why it ranked, small enough for 300-instance runs. */
const EVIDENCE_ITEMS = 5;

export class RetrievalLocalizer implements FileLocalizer {
  readonly name = 'retrieval';
  private readonly options: RetrievalOptions;
  /** with the learned fusion: which model file ranks (its sha256 and training data), recorded with each answer */
  readonly ranker?: { sha256: string; trainingData: string };

  constructor(private readonly settings: RetrievalLocalizerOptions = {}) {
    this.options = resolveRetrievalOptions(settings.retrieval);
    // a missing or incompatible model file is an error at start, not one per instance
    if (this.options.fusion === 'learned') {
      const loaded = loadRankerModel(this.options.rankerModel);
      this.ranker = { sha256: loaded.sha256!, trainingData: loaded.model.training.dataSha256 };
    }
  }

  async localize(ctx: LocalizerContext): Promise<FileLocalization> {
    const t0 = performance.now();
    const index = await ctx.index();
    const tIndex = performance.now();
    const queries =
      this.settings.queriesFor?.(ctx.instance) ??
      defaultQueries(ctx.instance.problem_statement, this.settings.queries, { environmentReports: this.settings.environmentReports });
    // the graph channel needs the commit's code graph; an index without one leaves it off, and the answer says so
    const graphWarnings =
      this.options.weights.graph > 0 && !index.graphNeighbors ? ['weights.graph is set but this index has no code graph: the graph channel was off'] : [];
    const result = await retrieveResolved(index, queries, this.options);
    const listing = await ctx.snapshot.listFiles().then(
      (entries) => entries.map((e) => e.path),
      () => undefined, // the index was built from this listing; a second read failing leaves only the check out
    );
    const warnings = [...(listing ? coverageWarnings(index.filePaths.length, listing) : []), ...graphWarnings];
    return {
      localizer: this.name,
      files: result.ranking.map((f) => ({
        path: f.path,
        score: f.score,
        evidence: {
          channels: f.channels,
          chunks: f.chunks.slice(0, EVIDENCE_ITEMS),
          definitions: f.definitions.slice(0, EVIDENCE_ITEMS),
          pathSignals: f.pathSignals.slice(0, EVIDENCE_ITEMS),
          ...(f.graph ? { graph: f.graph.slice(0, EVIDENCE_ITEMS) } : {}),
        },
      })),
      trace: [{ type: 'note', step: 'retrieval', message: `pool of ${result.pool.length} candidates`, data: { pool: result.pool } }],
      usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 },
      timingsMs: { index: Math.round(tIndex - t0), retrieve: Math.round(performance.now() - tIndex) },
      details: {
        repo: ctx.instance.repo,
        base_commit: ctx.snapshot.commit,
        options: this.options,
        ...(this.ranker ? { ranker: this.ranker } : {}),
        perQuery: result.perQuery,
        indexStats: { ...index.timings },
        ...(index.fileSelection ? { fileSelection: index.fileSelection } : {}),
      },
      confidence: retrievalConfidence(result),
      ...(warnings.length ? { warnings } : {}),
    };
  }
}

/** The retrieval signals: score ratio and margin of the first two files, channel and query agreement. */
export function retrievalConfidence(result: Pick<RetrievalResult, 'ranking' | 'perQuery' | 'channelTops'>): ConfidenceSignals {
  const top = result.ranking[0]?.path;
  return signals({
    ...scoreSignals(result.ranking.slice(0, 2).map((f) => f.score)),
    'channel-agreement': agreementWith(
      top,
      result.channelTops.map((c) => [c.top]),
      result.channelTops.map((c) => c.weight),
    ),
    'query-agreement':
      result.perQuery.length > 1
        ? agreementWith(
            top,
            result.perQuery.map((q) => q.files.map((f) => f.path)),
          )
        : undefined,
  });
}

/** Extensions of source files in languages locfix does not parse (what a warning names). */
const UNPARSED_SOURCE = new Set([
  '.kt',
  '.kts',
  '.swift',
  '.scala',
  '.cs',
  '.fs',
  '.ex',
  '.exs',
  '.erl',
  '.hs',
  '.lua',
  '.dart',
  '.m',
  '.mm',
  '.clj',
  '.jl',
  '.r',
  '.pl',
  '.zig',
  '.nim',
  '.ml',
  '.vb',
  '.groovy',
]);

/**
 * Warnings for a retrieval whose index cannot cover the repository: nothing indexed at all, or more source
 * files in one language locfix does not parse than files indexed (the ranking then says little).
 */
export function coverageWarnings(indexed: number, repositoryFiles: readonly string[]): string[] {
  const unparsed = new Map<string, number>();
  for (const f of repositoryFiles) {
    const ext = path.extname(f).toLowerCase();
    if (UNPARSED_SOURCE.has(ext)) unparsed.set(ext, (unparsed.get(ext) ?? 0) + 1);
  }
  const top = [...unparsed].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const named = top.map(([ext, n]) => `${n} ${ext}`).join(', ');
  if (indexed === 0) {
    return [
      `no indexable source file among the repository's ${repositoryFiles.length} files${named ? ` (it has ${named} files, languages locfix does not parse)` : ''}: the ranking is empty`,
    ];
  }
  if (top.length && top[0]![1] > indexed)
    return [`only ${indexed} files indexed; the repository is mostly in a language locfix does not parse (${named} files)`];
  return [];
}
