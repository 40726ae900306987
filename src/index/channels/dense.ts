/**
 * The dense channel: chunk vectors in the vector store. Chunks stream into the store while files are
 * parsed (parsing pauses when the store falls more than two batches behind); a commit's search is kept to
 * the ids of its own chunks and the hits are mapped back to this commit's chunk objects, so line numbers
 * are always this commit's. Vectors the store already has are never recomputed; texts embedded before come
 * from the content-keyed embedding cache.
 */
import path from 'node:path';
import { EmbeddingCache } from '../../embedding/cache.ts';
import { LexicalEmbedder } from '../../embedding/lexical.ts';
import type { VectorCollection } from '../../vectorstore/types.ts';
import type { BuildRepoIndexDeps } from '../build-options.ts';
import { sha256hex } from '../file-records.ts';
import type { IndexMemo } from '../index-memo.ts';
import type { ChunkHit, IndexedChunk } from '../types.ts';
import { VectorSync } from '../vector-sync.ts';
import type { IndexChannel } from './types.ts';

export interface DensePart {
  searchDense(queryText: string, k: number): Promise<ChunkHit[]>;
}

/**
 * Vector collection for (repository, embedder, parser, vector naming): readable prefix + hash, within
 * Chroma's limits. The two namings never share a collection (their ids mean different things).
 */
export function collectionNameFor(repo: string, embedderId: string, parserId: string, naming: 'chunk' | 'vector' = 'chunk'): string {
  const readable =
    repo
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'repo';
  const hash = naming === 'chunk' ? sha256hex(repo, embedderId, parserId) : sha256hex(repo, embedderId, parserId, 'vector-named');
  return `lf-${readable}-${hash.slice(0, 16)}`;
}

async function embeddingCacheFor(memo: IndexMemo, deps: BuildRepoIndexDeps): Promise<EmbeddingCache | undefined> {
  const persist = deps.persistEmbeddings ?? !deps.embedder.id.startsWith('lexical:');
  // an in-memory cache only pays off when the same text is embedded twice, which chunk ids (path + text)
  // and the stored-id set already rule out within a process; it held ~4 KB per chunk for nothing
  if (!persist) return undefined;
  const key = `disk:${path.resolve(deps.cacheDir)}:${deps.embedder.id}`;
  let c = memo.embeddingCaches.get(key);
  if (!c) {
    c = EmbeddingCache.open(path.join(deps.cacheDir, 'embeddings'), deps.embedder.id);
    memo.embeddingCaches.set(key, c);
  }
  return c;
}

export const denseChannel: IndexChannel<DensePart> = {
  name: 'dense',
  async open({ snapshot, deps, memo, parserId, timings, progress }) {
    const naming = deps.vectorNaming ?? (deps.embedder instanceof LexicalEmbedder ? 'vector' : 'chunk');
    const collectionName = collectionNameFor(snapshot.repo, deps.embedder.id, parserId, naming);
    const collection = await deps.vectorStore.collection(collectionName);
    let stored = memo.storedIds.get(collectionName);
    if (!stored) {
      stored = new Set();
      memo.storedIds.set(collectionName, stored);
    }
    let vectorIds: Map<string, string> | undefined;
    if (naming === 'vector') {
      const key = `${snapshot.repo}\0${collectionName}`;
      vectorIds = memo.vectorIds.get(key);
      if (!vectorIds) memo.vectorIds.set(key, (vectorIds = new Map()));
    }
    const sync = new VectorSync(
      collection,
      stored,
      deps.embedder,
      await embeddingCacheFor(memo, deps),
      deps.embedBatchSize ?? 512,
      (n) => progress(`${snapshot.repo}: stored ${n} chunk vectors`),
      vectorIds,
    );
    return {
      add: (record) => sync.offer(record.chunks),
      // parsing is synchronous: do not run far ahead of the vector store (memory)
      throttle: () => (sync.pending > 2 ? sync.waitUntilPendingAtMost(2) : undefined),
      flush: () => sync.sendBuffered(),
      async finish(records) {
        const t = performance.now();
        try {
          await sync.finish();
        } catch (err) {
          throw new Error(
            `indexing ${snapshot.repo}@${snapshot.commit}: storing chunk vectors in collection ${collectionName} failed: ${(err as Error).message}`,
            {
              cause: err,
            },
          );
        }
        timings.vectorWaitMs = performance.now() - t;
        timings.embedMs = sync.stats.embedMs;
        timings.textsEmbedded = sync.stats.embedded;
        timings.chunksUpserted = sync.stats.upserted;
        timings.vectorSyncMs = sync.stats.storeMs;
        // the chunks behind each stored vector of this commit (by-vector naming: several chunks may share one)
        const chunksByStoredId = new Map<string, IndexedChunk[]>();
        let total = 0;
        for (const r of records) {
          for (const c of r.chunks) {
            total++;
            const id = sync.storedIdOf(c.id);
            if (id === undefined) throw new Error(`internal: chunk ${c.id} of ${c.path} has no stored vector after indexing`);
            const list = chunksByStoredId.get(id);
            if (list) list.push(c);
            else chunksByStoredId.set(id, [c]);
          }
        }
        const commitIds = [...chunksByStoredId.keys()];
        const strategy = deps.denseFilter ?? 'ids';
        const embedder = deps.embedder;
        const queryVector = async (text: string): Promise<Float32Array | number[]> => {
          const key = `${embedder.id}\0${text}`;
          let v = memo.queryVectors.get(key);
          if (!v) {
            v = await embedder.embedQuery(text);
            memo.queryVectors.set(key, v);
          }
          return v;
        };
        return {
          async searchDense(queryText, k) {
            if (k <= 0 || total === 0) return [];
            const vector = await queryVector(queryText);
            const want = Math.min(k, total);
            if (strategy === 'ids') {
              const hits = await collection.query(vector, Math.min(want, commitIds.length), { ids: commitIds });
              return hits.flatMap((h) => (chunksByStoredId.get(h.id) ?? []).map((chunk) => ({ chunk, score: h.score }))).slice(0, want);
            }
            return overfetch(collection, vector, want, chunksByStoredId);
          },
        };
      },
    };
  },
};

async function overfetch(
  collection: VectorCollection,
  vector: Float32Array | number[],
  want: number,
  chunksByStoredId: Map<string, IndexedChunk[]>,
): Promise<ChunkHit[]> {
  const total = await collection.count();
  let fetch = Math.min(total, Math.max(want * 2, want + 50));
  for (;;) {
    const hits = await collection.query(vector, fetch);
    const out: ChunkHit[] = [];
    for (const h of hits) {
      for (const chunk of chunksByStoredId.get(h.id) ?? []) {
        out.push({ chunk, score: h.score });
        if (out.length === want) return out;
      }
    }
    if (fetch >= total) return out;
    fetch = Math.min(total, fetch * 4);
  }
}
