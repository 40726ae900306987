/** Embeddings from any OpenAI-compatible `/v1/embeddings` endpoint through the official `openai` client. */
import { KindedError } from '../run/kinded-error.ts';
import { ERROR_KINDS } from '../util/error-kinds.ts';
import OpenAI from 'openai';
import type { Embedder } from './types.ts';
import { NO_PREFIXES, prefixedEmbedCalls, prefixTag, type TaskPrefixes } from './prefixes.ts';

export const DEFAULT_OPENAI_EMBED_MODEL = 'text-embedding-3-small';

export interface OpenAIEmbedderOptions {
  model?: string;
  /** e.g. http://127.0.0.1:8000/v1; default: the openai package's default (OPENAI_BASE_URL or api.openai.com) */
  baseURL?: string;
  /** default OPENAI_API_KEY, or a placeholder for local servers that need none */
  apiKey?: string;
  /** texts per request; default 64 */
  batchSize?: number;
  /** default none (OpenAI models need none; set nomic prefixes when serving nomic-embed-text this way) */
  prefixes?: TaskPrefixes;
  /** request this many dimensions (models that support it) */
  dimensions?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  private readonly client: OpenAI;
  private readonly batchSize: number;
  private readonly prefixes: TaskPrefixes;
  private readonly calls: ReturnType<typeof prefixedEmbedCalls>;
  private readonly dimensions?: number;

  constructor(options: OpenAIEmbedderOptions = {}) {
    this.model = options.model ?? DEFAULT_OPENAI_EMBED_MODEL;
    this.batchSize = options.batchSize ?? 64;
    this.prefixes = options.prefixes ?? NO_PREFIXES;
    this.dimensions = options.dimensions;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? 'no-key',
      maxRetries: options.maxRetries ?? 3,
      timeout: options.timeoutMs ?? 120_000,
    });
    this.id = `openai:${this.model}:${prefixTag(this.prefixes)}${this.dimensions ? `:${this.dimensions}` : ''}`;
    this.calls = prefixedEmbedCalls(this.prefixes, this.batchSize, (input) => this.embedBatch(input));
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    let response: Awaited<ReturnType<OpenAI['embeddings']['create']>>;
    try {
      response = await this.client.embeddings.create({
        model: this.model,
        input,
        encoding_format: 'float',
        ...(this.dimensions ? { dimensions: this.dimensions } : {}),
      });
    } catch (err) {
      throw new KindedError(
        ERROR_KINDS.embedderFailed,
        `openai embeddings (model ${this.model} at ${this.client.baseURL}) failed: ${(err as Error).message}`,
        undefined,
        {
          cause: err,
        },
      );
    }
    const data = [...response.data].sort((a, b) => a.index - b.index);
    if (data.length !== input.length) {
      throw new KindedError(ERROR_KINDS.embedderFailed, `openai embeddings (model ${this.model}) returned ${data.length} vectors for ${input.length} inputs`);
    }
    return data.map((d) => d.embedding);
  }

  embedDocuments(texts: readonly string[]): Promise<number[][]> {
    return this.calls.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<number[]> {
    return this.calls.embedQuery(text);
  }
}
