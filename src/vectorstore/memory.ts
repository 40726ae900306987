/**
 * In-process VectorStore with exact (brute-force) cosine search. For tests, small experiments and runs
 * that must not start a server; nothing is persisted.
 */
import type { VectorCollection, VectorHit, VectorMetadata, VectorQueryOptions, VectorRecord, VectorStore } from './types.ts';

class MemoryCollection implements VectorCollection {
  private readonly vectors = new Map<string, { v: Float32Array; norm: number; metadata?: VectorMetadata }>();
  constructor(readonly name: string) {}

  async count(): Promise<number> {
    return this.vectors.size;
  }

  async existing(ids: readonly string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.vectors.has(id)));
  }

  async upsert(records: readonly VectorRecord[]): Promise<void> {
    for (const r of records) {
      const v = Float32Array.from(r.embedding);
      let n = 0;
      for (let i = 0; i < v.length; i++) n += v[i] * v[i];
      this.vectors.set(r.id, { v, norm: Math.sqrt(n), metadata: r.metadata ? { ...r.metadata } : undefined });
    }
  }

  async query(embedding: readonly number[] | Float32Array, k: number, options: VectorQueryOptions = {}): Promise<VectorHit[]> {
    if (k <= 0) return [];
    let qn = 0;
    for (let i = 0; i < embedding.length; i++) qn += embedding[i] * embedding[i];
    qn = Math.sqrt(qn);
    const allowed = options.ids ? new Set(options.ids) : undefined;
    const where = options.whereIn ? new Set<string | number>(options.whereIn.values) : undefined;
    const hits: VectorHit[] = [];
    for (const [id, rec] of this.vectors) {
      if (allowed && !allowed.has(id)) continue;
      if (where && !where.has(rec.metadata?.[options.whereIn!.field] as string | number)) continue;
      let dot = 0;
      const v = rec.v;
      for (let i = 0; i < v.length; i++) dot += v[i] * embedding[i];
      const score = qn > 0 && rec.norm > 0 ? dot / (qn * rec.norm) : 0;
      hits.push({ id, score, ...(options.includeMetadata && rec.metadata ? { metadata: rec.metadata } : {}) });
    }
    hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return hits.slice(0, k);
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.vectors.delete(id);
  }
}

export class MemoryVectorStore implements VectorStore {
  private readonly collections = new Map<string, MemoryCollection>();

  async collection(name: string): Promise<VectorCollection> {
    let c = this.collections.get(name);
    if (!c) {
      c = new MemoryCollection(name);
      this.collections.set(name, c);
    }
    return c;
  }

  async deleteCollection(name: string): Promise<void> {
    this.collections.delete(name);
  }
}
