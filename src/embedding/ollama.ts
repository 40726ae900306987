/** Embeddings from an Ollama server (`/api/embed`) through the official `ollama` client. */
import { KindedError } from '../run/kinded-error.ts';
import { ERROR_KINDS } from '../util/error-kinds.ts';
import { Ollama } from 'ollama';
import type { Embedder } from './types.ts';
import { defaultPrefixesFor, prefixedEmbedCalls, prefixTag, type TaskPrefixes } from './prefixes.ts';

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_OLLAMA_EMBED_MODEL = 'nomic-embed-text';

export interface OllamaEmbedderOptions {
  model?: string;
  host?: string;
  /** texts per request; default 32 */
  batchSize?: number;
  /** default: nomic prefixes for nomic-embed models, none otherwise */
  prefixes?: TaskPrefixes;
  /** passed to the server: cut inputs longer than the model's context instead of failing */
  truncate?: boolean;
}

export class OllamaEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly host: string;
  private readonly client: Ollama;
  private readonly batchSize: number;
  private readonly prefixes: TaskPrefixes;
  private readonly calls: ReturnType<typeof prefixedEmbedCalls>;
  private readonly truncate: boolean;

  constructor(options: OllamaEmbedderOptions = {}) {
    this.model = options.model ?? DEFAULT_OLLAMA_EMBED_MODEL;
    this.host = options.host ?? DEFAULT_OLLAMA_HOST;
    this.batchSize = options.batchSize ?? 32;
    this.prefixes = options.prefixes ?? defaultPrefixesFor(this.model);
    this.truncate = options.truncate ?? true;
    this.client = new Ollama({ host: this.host });
    // the host is not part of the id: the same model gives the same vectors wherever it runs
    this.id = `ollama:${this.model}:${prefixTag(this.prefixes)}`;
    this.calls = prefixedEmbedCalls(this.prefixes, this.batchSize, (input) => this.embedBatch(input));
  }

  private async embedBatch(input: string[]): Promise<number[][]> {
    let response: Awaited<ReturnType<Ollama['embed']>>;
    try {
      response = await this.client.embed({ model: this.model, input, truncate: this.truncate });
    } catch (err) {
      throw new KindedError(ERROR_KINDS.embedderFailed, `ollama embed (model ${this.model} at ${this.host}) failed: ${(err as Error).message}`, undefined, {
        cause: err,
      });
    }
    if (!Array.isArray(response.embeddings) || response.embeddings.length !== input.length) {
      throw new KindedError(
        ERROR_KINDS.embedderFailed,
        `ollama embed (model ${this.model} at ${this.host}) returned ${response.embeddings?.length ?? 'no'} vectors for ${input.length} inputs`,
      );
    }
    return response.embeddings;
  }

  embedDocuments(texts: readonly string[]): Promise<number[][]> {
    return this.calls.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<number[]> {
    return this.calls.embedQuery(text);
  }
}
