/**
 * Content-keyed embedding cache: key = sha256(embedder.id + "\0" + text), so a text is embedded once per
 * embedder, whichever commit, path or process asks for it again.
 *
 * On disk, one append-only file per embedder holds binary records
 *   [32-byte key][uint32 LE dims][dims × float32 LE]
 * which is ~4 bytes per dimension instead of ~20 in JSON. The whole file is read at open. Appends are one
 * write per batch; a record torn by a crash is detected by its length and cut off at the next open.
 *
 * Several locfix processes may share one cache folder. Opening (read + cutting a torn tail) and appending
 * hold `<file>.lock` (util/file-lock.ts): without it, a process opening while another appends reads the
 * half-written record as a torn tail and cuts it off — or, worse, cuts records written after its read.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Embedder } from './types.ts';
import { safeFileName } from '../util/fsx.ts';
import { withFileLock } from '../util/file-lock.ts';

const KEY_BYTES = 32;

export class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  private pending: { key: Buffer; vector: Float32Array }[] = [];

  private constructor(
    readonly embedderId: string,
    /** backing file */
    readonly file: string,
  ) {}

  /** A cache persisted under `dir` (created when missing), loaded into memory. */
  static async open(dir: string, embedderId: string): Promise<EmbeddingCache> {
    const file = path.join(dir, `${safeFileName(embedderId)}.f32`);
    const cache = new EmbeddingCache(embedderId, file);
    await fs.mkdir(dir, { recursive: true });
    await withFileLock(`${file}.lock`, () => cache.load(), { what: `embedding cache ${file}` });
    return cache;
  }

  private async load(): Promise<void> {
    const file = this.file;
    let data: Buffer;
    try {
      data = await fs.readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    let at = 0;
    while (at + KEY_BYTES + 4 <= data.length) {
      const dims = data.readUInt32LE(at + KEY_BYTES);
      const end = at + KEY_BYTES + 4 + dims * 4;
      if (dims === 0 || end > data.length) break; // torn tail
      const key = data.toString('latin1', at, at + KEY_BYTES);
      const vector = new Float32Array(dims);
      for (let i = 0; i < dims; i++) vector[i] = data.readFloatLE(at + KEY_BYTES + 4 + i * 4);
      this.vectors.set(key, vector);
      at = end;
    }
    if (at < data.length) await fs.truncate(file, at);
  }

  get size(): number {
    return this.vectors.size;
  }

  private keyBuffer(text: string): Buffer {
    return createHash('sha256').update(this.embedderId).update('\0').update(text).digest();
  }

  get(text: string): Float32Array | undefined {
    return this.vectors.get(this.keyBuffer(text).toString('latin1'));
  }

  set(text: string, vector: readonly number[] | Float32Array): void {
    const key = this.keyBuffer(text);
    const v = vector instanceof Float32Array ? vector : Float32Array.from(vector);
    this.vectors.set(key.toString('latin1'), v);
    this.pending.push({ key, vector: v });
  }

  /** writes records added since the last flush */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const records = this.pending;
    this.pending = [];
    let bytes = 0;
    for (const r of records) bytes += KEY_BYTES + 4 + r.vector.length * 4;
    const out = Buffer.allocUnsafe(bytes);
    let at = 0;
    for (const r of records) {
      r.key.copy(out, at);
      out.writeUInt32LE(r.vector.length, at + KEY_BYTES);
      at += KEY_BYTES + 4;
      for (let i = 0; i < r.vector.length; i++, at += 4) out.writeFloatLE(r.vector[i], at);
    }
    await withFileLock(`${this.file}.lock`, () => fs.appendFile(this.file, out), { what: `embedding cache ${this.file}` });
  }
}

export interface CachedEmbedResult {
  vectors: Float32Array[];
  /** how many texts the embedder was actually asked for */
  computed: number;
}

/** Embeds documents through the cache: only texts not cached go to the embedder (deduplicated). */
export async function embedDocumentsCached(embedder: Embedder, cache: EmbeddingCache | undefined, texts: readonly string[]): Promise<CachedEmbedResult> {
  if (cache && cache.embedderId !== embedder.id) {
    throw new Error(`embedding cache belongs to "${cache.embedderId}" but the embedder is "${embedder.id}"`);
  }
  const vectors: (Float32Array | undefined)[] = texts.map((t) => cache?.get(t));
  const missing = new Map<string, number[]>();
  texts.forEach((t, i) => {
    if (vectors[i]) return;
    const at = missing.get(t);
    if (at) at.push(i);
    else missing.set(t, [i]);
  });
  if (missing.size > 0) {
    const uniq = [...missing.keys()];
    const computed = await embedder.embedDocuments(uniq);
    if (computed.length !== uniq.length) {
      throw new Error(`embedder ${embedder.id} returned ${computed.length} vectors for ${uniq.length} texts`);
    }
    uniq.forEach((t, j) => {
      const v = Float32Array.from(computed[j]);
      cache?.set(t, v);
      for (const i of missing.get(t) as number[]) vectors[i] = v;
    });
    await cache?.flush();
  }
  return { vectors: vectors as Float32Array[], computed: missing.size };
}
