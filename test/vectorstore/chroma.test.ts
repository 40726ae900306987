/** The Chroma vector store against a real local Chroma server started by locfix. */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromaHeartbeat, startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { ChromaVectorStore, embeddingToBase64 } from '../../src/vectorstore/chroma.ts';

let server: ChromaServer;
let store: ChromaVectorStore;
let cacheDir = '';

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-chroma-'));
  server = await startChromaServer({ dataDir: path.join(cacheDir, 'chroma') });
  store = new ChromaVectorStore({ url: server.url });
});

afterAll(async () => {
  await server?.stop();
});

describe('local Chroma server', () => {
  it('listens on loopback, records itself and is reused while alive', async () => {
    expect(server.owned).toBe(true);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const state = JSON.parse(await readFile(path.join(cacheDir, 'chroma-server.json'), 'utf8'));
    expect(state.port).toBe(server.port);
    const again = await startChromaServer({ dataDir: path.join(cacheDir, 'chroma') });
    expect(again.owned).toBe(false);
    expect(again.url).toBe(server.url);
    await again.stop(); // not ours: must not stop it
    expect(await chromaHeartbeat(server.url)).toBe(true);
  });

  it('stops a server it started', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-chroma-'));
    const own = await startChromaServer({ dataDir: path.join(dir, 'chroma') });
    expect(await chromaHeartbeat(own.url)).toBe(true);
    await own.stop();
    expect(await chromaHeartbeat(own.url, 500)).toBe(false);
  });
});

describe('embeddingToBase64', () => {
  it('encodes little-endian float32 bytes, as the chromadb client does', () => {
    const v = [0.5, -1, 123.25, 1e-30];
    const viaClient = Buffer.from(new Uint8Array(Float32Array.from(v).buffer)).toString('base64');
    expect(embeddingToBase64(v)).toBe(viaClient);
    const slice = Float32Array.from([9, ...v]).subarray(1);
    expect(embeddingToBase64(slice)).toBe(viaClient);
    expect(Buffer.from(embeddingToBase64(v), 'base64').readFloatLE(8)).toBe(123.25);
  });
});

describe('Chroma vector store', () => {
  it('upserts, counts, finds existing ids and queries by cosine similarity', async () => {
    const c = await store.collection('basic-test');
    await c.upsert([
      { id: 'x', embedding: [1, 0, 0], metadata: { path: 'a.py', startLine: 1 } },
      { id: 'y', embedding: Float32Array.from([0, 1, 0]), metadata: { path: 'b.py', startLine: 3 } },
      { id: 'xy', embedding: [Math.SQRT1_2, Math.SQRT1_2, 0], metadata: { path: 'c.py', startLine: 5 } },
    ]);
    expect(await c.count()).toBe(3);
    expect(await c.existing(['x', 'nope', 'xy'])).toEqual(new Set(['x', 'xy']));
    const hits = await c.query([1, 0, 0], 2, { includeMetadata: true });
    expect(hits.map((h) => h.id)).toEqual(['x', 'xy']);
    expect(hits[0].score).toBeCloseTo(1, 5);
    expect(hits[1].score).toBeCloseTo(Math.SQRT1_2, 5);
    expect(hits[0].metadata).toEqual({ path: 'a.py', startLine: 1 });
    // upsert replaces
    await c.upsert([{ id: 'x', embedding: [0, 0, 1] }]);
    expect(await c.count()).toBe(3);
    expect((await c.query([0, 0, 1], 1))[0].id).toBe('x');
  });

  it('restricts a query to given ids or metadata values', async () => {
    const c = await store.collection('filter-test');
    await c.upsert(Array.from({ length: 20 }, (_, i) => ({ id: `r${i}`, embedding: [1, i / 20, 0], metadata: { blob: i % 2 ? 'odd' : 'even' } })));
    const onlyIds = await c.query([1, 0, 0], 5, { ids: ['r19', 'r7'] });
    expect(onlyIds.map((h) => h.id)).toEqual(['r7', 'r19']);
    const odd = await c.query([1, 0, 0], 3, { whereIn: { field: 'blob', values: ['odd'] } });
    expect(odd.map((h) => h.id)).toEqual(['r1', 'r3', 'r5']);
    expect(await c.query([1, 0, 0], 3, { ids: [] })).toEqual([]);
    await c.delete(['r1']);
    expect(await c.count()).toBe(19);
  });

  it('keeps data across a restart of the server on the same folder', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-chroma-'));
    const first = await startChromaServer({ dataDir: path.join(dir, 'chroma') });
    await (await new ChromaVectorStore({ url: first.url }).collection('persist-test')).upsert([{ id: 'p', embedding: [0, 1] }]);
    await first.stop();
    const second = await startChromaServer({ dataDir: path.join(dir, 'chroma') });
    try {
      expect(second.owned).toBe(true);
      const c = await new ChromaVectorStore({ url: second.url }).collection('persist-test');
      expect(await c.existing(['p'])).toEqual(new Set(['p']));
    } finally {
      await second.stop();
    }
  });

  it('stores float32 vectors exactly as given (base64 upsert path)', async () => {
    const c = await store.collection('exact-test');
    const v = Float32Array.from([0.1, -0.25, 1e-7, 3.5]);
    await c.upsert([{ id: 'v', embedding: v }]);
    const res = await store.client.getCollection({ name: 'exact-test' });
    const got = await res.get({ ids: ['v'], include: ['embeddings'] });
    expect(Float32Array.from(got.embeddings[0] as number[])).toEqual(v);
    // and a bad record is a clear error naming the collection
    await expect(c.upsert([{ id: 'w', embedding: [1, 2] }])).rejects.toThrow(/exact-test/);
  });

  it('creates collections with its HNSW build settings, and an existing collection keeps its own', async () => {
    await store.collection('hnsw-default');
    const created = await store.client.getCollection({ name: 'hnsw-default' });
    expect(created.configuration.hnsw).toMatchObject({ space: 'cosine', ef_construction: 40, max_neighbors: 16 });

    const tuned = new ChromaVectorStore({ url: server.url, hnsw: { efConstruction: 64, maxNeighbors: 24 } });
    await tuned.collection('hnsw-tuned');
    expect((await tuned.client.getCollection({ name: 'hnsw-tuned' })).configuration.hnsw).toMatchObject({ ef_construction: 64, max_neighbors: 24 });
    // reopening a collection made with other settings works and leaves them as they were
    const c = await tuned.collection('hnsw-default');
    await c.upsert([{ id: 'a', embedding: [1, 0] }]);
    expect((await store.client.getCollection({ name: 'hnsw-default' })).configuration.hnsw).toMatchObject({ ef_construction: 40 });
  });

  it('rejects invalid collection names', () => {
    expect(() => store.collection('a')).toThrow(/invalid vector collection name/);
    expect(() => store.collection('has space')).toThrow(/invalid vector collection name/);
  });
});
