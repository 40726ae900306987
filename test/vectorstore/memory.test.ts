import { describe, expect, it } from 'vitest';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';

describe('memory vector store', () => {
  it('answers like the Chroma store: cosine order, id and metadata filters', async () => {
    const store = new MemoryVectorStore();
    const c = await store.collection('m');
    await c.upsert([
      { id: 'x', embedding: [2, 0], metadata: { blob: 'a' } },
      { id: 'y', embedding: [0, 1], metadata: { blob: 'b' } },
      { id: 'xy', embedding: [1, 1], metadata: { blob: 'a' } },
    ]);
    const hits = await c.query([1, 0], 3);
    expect(hits.map((h) => h.id)).toEqual(['x', 'xy', 'y']);
    expect(hits[1].score).toBeCloseTo(Math.SQRT1_2, 6);
    expect((await c.query([1, 0], 3, { ids: ['y', 'xy'] })).map((h) => h.id)).toEqual(['xy', 'y']);
    expect((await c.query([0, 1], 3, { whereIn: { field: 'blob', values: ['a'] } })).map((h) => h.id)).toEqual(['xy', 'x']);
    expect(await c.existing(['x', 'q'])).toEqual(new Set(['x']));
    await c.delete(['x']);
    expect(await c.count()).toBe(2);
    await store.deleteCollection('m');
    expect(await (await store.collection('m')).count()).toBe(0);
  });
});
