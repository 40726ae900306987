/**
 * The model-free localizer: locfix's hybrid retrieval (dense + BM25 + definitions + paths, fused) over the
 * raw issue and its structural query. Also the fallback order for the LLM localizers.
 */
import { defaultQueries, type QueryPreset } from './retrieval/query.ts';
import { retrieveFiles } from './retrieval/retriever.ts';
import { resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from './retrieval/options.ts';
import type { FileLocalizer, LocalizerContext } from './types.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';

export interface RetrievalLocalizerOptions {
  queries?: QueryPreset;
  retrieval?: DeepPartial<RetrievalOptions>;
}

export class RetrievalLocalizer implements FileLocalizer {
  readonly name = 'retrieval';
  private readonly options: RetrievalOptions;

  constructor(private readonly settings: RetrievalLocalizerOptions = {}) {
    this.options = resolveRetrievalOptions(settings.retrieval);
  }

  async localize(ctx: LocalizerContext): Promise<FileLocalization> {
    const t0 = performance.now();
    const index = await ctx.index();
    const tIndex = performance.now();
    const result = await retrieveFiles(index, defaultQueries(ctx.instance.problem_statement, this.settings.queries), this.options);
    return {
      localizer: this.name,
      files: result.ranking.map((f) => ({
        path: f.path,
        score: f.score,
        evidence: { channels: f.channels, chunks: f.chunks.slice(0, 5), definitions: f.definitions.slice(0, 5), pathSignals: f.pathSignals.slice(0, 5) },
      })),
      trace: [{ type: 'note', step: 'retrieval', message: `pool of ${result.pool.length} candidates`, data: { pool: result.pool } }],
      usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 },
      timingsMs: { index: tIndex - t0, retrieve: performance.now() - tIndex },
    };
  }
}
