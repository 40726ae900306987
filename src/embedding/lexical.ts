/**
 * Offline lexical embedder: no model, deterministic, fast.
 *
 * Each text becomes a bag of code-aware tokens (src/text/code-tokens.ts). A token's weight is
 * (1 + ln tf) × a weight for its shape — whole identifiers, dotted names and paths say more about
 * *where* something lives than the camelCase/snake_case parts they split into. Weights are added into a
 * fixed number of buckets by a signed hash (the sign halves the bias that collisions add to dot products)
 * and the vector is L2-normalized, so cosine similarity approximates a weighted token-overlap score.
 */
import type { Embedder } from './types.ts';
import { forEachCodeToken, type TokenKind } from '../text/code-tokens.ts';

export interface LexicalEmbedderOptions {
  /** vector size; default 1024 */
  dims?: number;
  /** weight per token shape; defaults below */
  kindWeights?: Partial<Record<TokenKind, number>>;
}

export const DEFAULT_KIND_WEIGHTS: Record<TokenKind, number> = {
  identifier: 1.0,
  part: 0.5,
  dotted: 1.5,
  path: 2.0,
};

/** FNV-1a over UTF-16 code units, then a murmur3 finalizer so low bits mix well. */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class LexicalEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  private readonly weights: Record<TokenKind, number>;

  constructor(options: LexicalEmbedderOptions = {}) {
    const dims = options.dims ?? 1024;
    if (!Number.isInteger(dims) || dims < 16) throw new Error(`lexical embedder: dims must be an integer >= 16, got ${dims}`);
    this.dims = dims;
    this.weights = { ...DEFAULT_KIND_WEIGHTS, ...options.kindWeights };
    const custom = options.kindWeights && Object.keys(options.kindWeights).length > 0;
    // the weights change the vectors, so non-default weights must change the id (cache keys)
    const suffix = custom
      ? ':' +
        (Object.keys(this.weights) as TokenKind[])
          .sort()
          .map((k) => `${k}=${this.weights[k]}`)
          .join(',')
      : '';
    this.id = `lexical:v1:${dims}${suffix}`;
  }

  /** Synchronous core, also used directly by the index (no promise per chunk). */
  embed(text: string): Float32Array {
    const tf = new Map<string, number>();
    const bestKind = new Map<string, number>();
    const weights = this.weights;
    forEachCodeToken(text, (token, kind) => {
      tf.set(token, (tf.get(token) ?? 0) + 1);
      const w = weights[kind];
      const prev = bestKind.get(token);
      if (prev === undefined || w > prev) bestKind.set(token, w);
    });
    const v = new Float32Array(this.dims);
    for (const [token, count] of tf) {
      const h = hash32(token);
      const w = (bestKind.get(token) as number) * (1 + Math.log(count));
      const bucket = h % this.dims;
      // the top bit is independent of `h % dims` for power-of-two dims and nearly so otherwise
      v[bucket] += h & 0x80000000 ? -w : w;
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i] * v[i];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) v[i] *= inv;
    }
    return v;
  }

  async embedDocuments(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => Array.from(this.embed(t)));
  }

  async embedQuery(text: string): Promise<number[]> {
    return Array.from(this.embed(text));
  }
}
