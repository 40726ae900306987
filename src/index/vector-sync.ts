/**
 * Brings a vector collection up to date with a stream of chunks while the caller keeps parsing: chunks are
 * offered as files are processed, and full batches are checked against the store, embedded (through the
 * content-keyed cache) and upserted in the background, one batch at a time. The vector-store server runs
 * in its own process, so its indexing overlaps with parsing on the other core.
 *
 * Two ways to name a stored vector:
 * - by chunk (`chunkId`: path + text): what is stored is known before embedding, so an expensive model
 *   embeds only chunks not stored yet;
 * - by vector (`vectorIds` given): a hash of the vector's bytes. For an embedder that is cheap to run
 *   (the lexical one), every new chunk text is embedded and only vectors the store lacks are sent. A
 *   reformatted or re-indented chunk has a new text but often the very same vector (the lexical embedder
 *   reads tokens, not layout): on astropy's commits across its reformat, 59–65 % of the "new" chunks had a
 *   vector already stored, and inserting into the HNSW graph is the costliest part of indexing a commit.
 */
import { createHash } from 'node:crypto';
import type { Embedder } from '../embedding/types.ts';
import { embedDocumentsCached, type EmbeddingCache } from '../embedding/cache.ts';
import { LexicalEmbedder } from '../embedding/lexical.ts';
import type { VectorCollection } from '../vectorstore/types.ts';

export interface SyncableChunk {
  id: string;
  text: string;
  path: string;
  blob: string;
  startLine: number;
  endLine: number;
}

export interface VectorSyncStats {
  embedMs: number;
  /** wall time of existence checks and upserts (excluding embedding) */
  storeMs: number;
  upserted: number;
  embedded: number;
}

/** smallest batch sent while the store is idle */
const EAGER_BATCH = 64;

export class VectorSync {
  readonly stats: VectorSyncStats = { embedMs: 0, storeMs: 0, upserted: 0, embedded: 0 };
  private buffer: SyncableChunk[] = [];
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly queued = new Set<string>();

  constructor(
    private readonly collection: VectorCollection,
    /** ids known to be stored in the collection; updated as batches land */
    private readonly stored: Set<string>,
    private readonly embedder: Embedder,
    /** undefined: every text is embedded (cheap embedders whose vectors the store keeps anyway) */
    private readonly cache: EmbeddingCache | undefined,
    private readonly batchSize: number,
    private readonly onBatch?: (done: number) => void,
    /** by-vector naming: chunk id -> vector id, filled as chunks are embedded; `stored` then holds vector ids */
    private readonly vectorIds?: Map<string, string>,
  ) {}

  /** the id under which a chunk's vector is stored (undefined: by-vector naming, chunk not embedded yet) */
  storedIdOf(chunkId: string): string | undefined {
    return this.vectorIds ? this.vectorIds.get(chunkId) : chunkId;
  }

  offer(chunks: readonly SyncableChunk[]): void {
    for (const c of chunks) {
      const storedId = this.storedIdOf(c.id);
      if ((storedId !== undefined && this.stored.has(storedId)) || this.queued.has(c.id)) continue;
      this.queued.add(c.id);
      this.buffer.push(c);
    }
    // a full batch goes out at once; so does a smaller one when the store has nothing to do, so that its
    // process starts working while the caller is still parsing the first files of a commit
    if (this.buffer.length >= this.batchSize || (this.pending === 0 && this.buffer.length >= Math.min(EAGER_BATCH, this.batchSize))) this.schedule();
  }

  /** number of batches waiting or running; callers may pause producing when this grows */
  pending = 0;
  private waiters: (() => void)[] = [];

  /** resolves once at most `max` batches are waiting or running */
  async waitUntilPendingAtMost(max: number): Promise<void> {
    while (this.pending > max) await new Promise<void>((r) => this.waiters.push(r));
  }

  private schedule(): void {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.pending++;
    this.chain = this.chain.then(async () => {
      try {
        if (this.failure === undefined) await this.flush(batch);
      } catch (err) {
        this.failure = err;
      } finally {
        this.pending--;
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    });
  }

  private async flush(batch: SyncableChunk[]): Promise<void> {
    if (this.vectorIds) return this.flushByVector(batch, this.vectorIds);
    let t = performance.now();
    const present = await this.collection.existing(batch.map((c) => c.id));
    this.stats.storeMs += performance.now() - t;
    const missing: SyncableChunk[] = [];
    for (const c of batch) {
      if (present.has(c.id)) this.stored.add(c.id);
      else missing.push(c);
    }
    if (missing.length === 0) return;
    t = performance.now();
    const { vectors, computed } = await this.embed(missing.map((c) => c.text));
    this.stats.embedMs += performance.now() - t;
    this.stats.embedded += computed;
    t = performance.now();
    // ids and vectors only: searches map ids back to the querying commit's own chunk objects, so nothing
    // reads metadata back, and Chroma's per-record metadata rows cost about a quarter of its upsert time
    await this.collection.upsert(missing.map((c, j) => ({ id: c.id, embedding: vectors[j] })));
    this.stats.storeMs += performance.now() - t;
    for (const c of missing) this.stored.add(c.id);
    this.stats.upserted += missing.length;
    this.onBatch?.(this.stats.upserted);
  }

  private async flushByVector(batch: SyncableChunk[], vectorIds: Map<string, string>): Promise<void> {
    let t = performance.now();
    const { vectors, computed } = await this.embed(batch.map((c) => c.text));
    this.stats.embedMs += performance.now() - t;
    this.stats.embedded += computed;
    // one record per distinct vector the store does not have yet
    const fresh = new Map<string, Float32Array | number[]>();
    batch.forEach((c, j) => {
      const id = vectorId(vectors[j]!);
      vectorIds.set(c.id, id);
      if (!this.stored.has(id)) fresh.set(id, vectors[j]!);
    });
    if (fresh.size === 0) return;
    t = performance.now();
    const present = await this.collection.existing([...fresh.keys()]);
    for (const id of present) {
      this.stored.add(id);
      fresh.delete(id);
    }
    if (fresh.size > 0) await this.collection.upsert([...fresh].map(([id, embedding]) => ({ id, embedding })));
    this.stats.storeMs += performance.now() - t;
    for (const id of fresh.keys()) this.stored.add(id);
    this.stats.upserted += fresh.size;
    this.onBatch?.(this.stats.upserted);
  }

  /**
   * Vectors for the texts. The lexical embedder is called directly (synchronous, Float32Array out, no
   * number[] round trip); with no cache every distinct text is computed.
   */
  private async embed(texts: string[]): Promise<{ vectors: (Float32Array | number[])[]; computed: number }> {
    if (this.cache === undefined && this.embedder instanceof LexicalEmbedder) {
      const lexical = this.embedder;
      return { vectors: texts.map((text) => lexical.embed(text)), computed: texts.length };
    }
    return embedDocumentsCached(this.embedder, this.cache, texts);
  }

  /** sends the chunks offered so far without waiting for a full batch */
  sendBuffered(): void {
    this.schedule();
  }

  /** flushes the rest and waits for every batch; rethrows the first failure */
  async finish(): Promise<void> {
    this.schedule();
    await this.chain;
    if (this.failure !== undefined) throw this.failure;
  }
}

/** Name of a vector by its content: SHA-1 of its float32 bytes (identical vectors share one record). */
export function vectorId(vector: Float32Array | readonly number[]): string {
  const f32 = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  return (
    'v' +
    createHash('sha1')
      .update(Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength))
      .digest('hex')
  );
}
