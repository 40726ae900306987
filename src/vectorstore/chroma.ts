/**
 * VectorStore on a Chroma server through the `chromadb` client. Embeddings are always supplied by locfix
 * (collections are created with no embedding function); collections use cosine space.
 */
import os from 'node:os';
import { ChromaClient, type Collection, type Where } from 'chromadb';
import type { VectorCollection, VectorHit, VectorMetadata, VectorQueryOptions, VectorRecord, VectorStore } from './types.ts';

/**
 * HNSW build settings of new collections. Chroma's default ef_construction (100) makes inserts the largest
 * part of re-indexing a commit that changed thousands of chunks; 40 cut astropy's next-commit index time by
 * ~18% (2.5 s vs 3.1 s mean, two alternating runs each), and the full Lite run ranks as well (Top-10 0.877
 * both, MRR 0.700 vs 0.701; BENCHMARKS.md). Queries still search with ef_search 100. Existing collections
 * keep the settings they were created with (Chroma ignores a configuration passed for an existing one).
 */
export interface HnswBuildSettings {
  efConstruction: number;
  maxNeighbors: number;
}

export const DEFAULT_HNSW_BUILD: HnswBuildSettings = { efConstruction: 40, maxNeighbors: 16 };

/** Chroma rejects very large requests; upserts and id lookups go in batches of this many records. */
const WRITE_BATCH = 1000;
const ID_LOOKUP_BATCH = 5000;

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/;

function toArray(v: readonly number[] | Float32Array): number[] {
  return Array.isArray(v) ? (v as number[]) : Array.from(v);
}

/**
 * An embedding as Chroma's base64 wire form: little-endian float32 bytes. The chromadb client builds the
 * same string one byte at a time through String.fromCharCode (measured: ~4 s of client CPU per 20,000
 * 1024-d vectors); Buffer does it in native code from the Float32Array the embedder already produced.
 */
export function embeddingToBase64(v: readonly number[] | Float32Array): string {
  const f32 = v instanceof Float32Array ? v : Float32Array.from(v);
  const bytes = Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength);
  if (os.endianness() === 'LE') return bytes.toString('base64');
  const le = Buffer.allocUnsafe(f32.length * 4);
  for (let i = 0; i < f32.length; i++) le.writeFloatLE(f32[i], i * 4);
  return le.toString('base64');
}

class ChromaCollection implements VectorCollection {
  constructor(
    readonly name: string,
    private readonly collection: Collection,
    private readonly client: ChromaClient,
    /** server base URL for the direct upsert request */
    private readonly baseUrl: string,
  ) {}

  count(): Promise<number> {
    return this.collection.count();
  }

  async existing(ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += ID_LOOKUP_BATCH) {
      const res = await this.collection.get({ ids: ids.slice(i, i + ID_LOOKUP_BATCH), include: [] });
      for (const id of res.ids) found.add(id);
    }
    return found;
  }

  async upsert(records: readonly VectorRecord[]): Promise<void> {
    const base64 = await this.client.supportsBase64Encoding();
    for (let i = 0; i < records.length; i += WRITE_BATCH) {
      const batch = records.slice(i, i + WRITE_BATCH);
      const withMeta = batch.some((r) => r.metadata && Object.keys(r.metadata).length > 0);
      if (base64) await this.upsertBase64(batch, withMeta);
      else {
        await this.collection.upsert({
          ids: batch.map((r) => r.id),
          embeddings: batch.map((r) => toArray(r.embedding)),
          ...(withMeta ? { metadatas: batch.map((r) => r.metadata ?? {}) } : {}),
        });
      }
    }
  }

  /** the client's upsert request (same endpoint and body), with the embeddings encoded natively */
  private async upsertBase64(batch: readonly VectorRecord[], withMeta: boolean): Promise<void> {
    const c = this.collection;
    const url = `${this.baseUrl}/api/v2/tenants/${encodeURIComponent(c.tenant)}/databases/${encodeURIComponent(c.database)}/collections/${encodeURIComponent(c.id)}/upsert`;
    const body = JSON.stringify({
      ids: batch.map((r) => r.id),
      embeddings: batch.map((r) => embeddingToBase64(r.embedding)),
      ...(withMeta ? { metadatas: batch.map((r) => r.metadata ?? {}) } : {}),
    });
    const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...this.client.headers }, body });
    if (!res.ok) {
      const detail = (await res.text()).slice(0, 500);
      throw new Error(`Chroma upsert of ${batch.length} records into collection ${this.name} failed: HTTP ${res.status} ${detail}`);
    }
  }

  async query(embedding: readonly number[] | Float32Array, k: number, options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    if (k <= 0) return [];
    if (options.ids && options.ids.length === 0) return [];
    let where: Where | undefined;
    if (options.whereIn) {
      if (options.whereIn.values.length === 0) return [];
      where = { [options.whereIn.field]: { $in: [...options.whereIn.values] } } as Where;
    }
    const res = await this.collection.query({
      queryEmbeddings: [toArray(embedding)],
      nResults: k,
      ...(options.ids ? { ids: [...options.ids] } : {}),
      ...(where ? { where } : {}),
      include: options.includeMetadata ? ['distances', 'metadatas'] : ['distances'],
    });
    const ids = res.ids[0] ?? [];
    const distances = res.distances?.[0] ?? [];
    const metadatas = res.metadatas?.[0] ?? [];
    return ids.map((id, i) => ({
      id,
      // cosine space: distance = 1 - cosine similarity
      score: 1 - (distances[i] ?? 1),
      ...(options.includeMetadata && metadatas[i] ? { metadata: metadatas[i] as VectorMetadata } : {}),
    }));
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += WRITE_BATCH) await this.collection.delete({ ids: ids.slice(i, i + WRITE_BATCH) });
  }
}

export interface ChromaStoreOptions {
  /** server URL, e.g. http://127.0.0.1:8000 */
  url: string;
  tenant?: string;
  database?: string;
  /** HNSW settings for collections this store creates (default DEFAULT_HNSW_BUILD) */
  hnsw?: Partial<HnswBuildSettings>;
}

export class ChromaVectorStore implements VectorStore {
  readonly client: ChromaClient;
  private readonly baseUrl: string;
  private readonly collections = new Map<string, Promise<ChromaCollection>>();
  private readonly hnsw: HnswBuildSettings;

  constructor(options: ChromaStoreOptions) {
    const u = new URL(options.url);
    this.baseUrl = u.origin;
    this.hnsw = { ...DEFAULT_HNSW_BUILD, ...options.hnsw };
    this.client = new ChromaClient({
      host: u.hostname,
      port: u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80,
      ssl: u.protocol === 'https:',
      ...(options.tenant ? { tenant: options.tenant } : {}),
      ...(options.database ? { database: options.database } : {}),
    });
  }

  collection(name: string): Promise<VectorCollection> {
    if (!NAME_RE.test(name)) {
      throw new Error(`invalid vector collection name "${name}": 3–63 chars of [A-Za-z0-9._-], starting and ending alphanumeric`);
    }
    let c = this.collections.get(name);
    if (!c) {
      c = this.client
        .getOrCreateCollection({
          name,
          embeddingFunction: null,
          configuration: { hnsw: { space: 'cosine', ef_construction: this.hnsw.efConstruction, max_neighbors: this.hnsw.maxNeighbors } },
        })
        .then((col) => new ChromaCollection(name, col, this.client, this.baseUrl));
      // a failed lookup must not poison later calls
      c.catch(() => this.collections.delete(name));
      this.collections.set(name, c);
    }
    return c;
  }

  async deleteCollection(name: string): Promise<void> {
    this.collections.delete(name);
    try {
      await this.client.deleteCollection({ name });
    } catch (err) {
      if ((err as Error).name !== 'ChromaNotFoundError') throw err;
    }
  }
}
