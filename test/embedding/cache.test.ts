import { mkdtemp, readFile, appendFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmbeddingCache, embedDocumentsCached } from '../../src/embedding/cache.ts';
import type { Embedder } from '../../src/embedding/types.ts';

class CountingEmbedder implements Embedder {
  readonly id = 'test:counting';
  calls: string[][] = [];
  async embedDocuments(texts: readonly string[]): Promise<number[][]> {
    this.calls.push([...texts]);
    return texts.map((t) => [t.length, 0.5, -1]);
  }
  async embedQuery(text: string): Promise<number[]> {
    return [text.length, 0, 0];
  }
}

describe('embedding cache', () => {
  it('embeds only unseen texts, once each, and persists them compactly', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-embcache-'));
    const embedder = new CountingEmbedder();
    const cache = await EmbeddingCache.open(dir, embedder.id);
    const first = await embedDocumentsCached(embedder, cache, ['a', 'bb', 'a']);
    expect(first.computed).toBe(2);
    expect(embedder.calls).toEqual([['a', 'bb']]);
    expect(Array.from(first.vectors[2])).toEqual([1, 0.5, -1]);

    const again = await embedDocumentsCached(embedder, cache, ['bb', 'ccc']);
    expect(again.computed).toBe(1);
    expect(embedder.calls[1]).toEqual(['ccc']);

    // a new process sees everything; 3 records × (32 + 4 + 3·4) bytes
    expect((await stat(cache.file!)).size).toBe(3 * 48);
    const reopened = await EmbeddingCache.open(dir, embedder.id);
    expect(reopened.size).toBe(3);
    const third = await embedDocumentsCached(embedder, reopened, ['a', 'bb', 'ccc']);
    expect(third.computed).toBe(0);
    expect(Array.from(third.vectors[2])).toEqual([3, 0.5, -1]);
  });

  it('drops a torn record at the end of the file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-embcache-'));
    const embedder = new CountingEmbedder();
    const cache = await EmbeddingCache.open(dir, embedder.id);
    await embedDocumentsCached(embedder, cache, ['x', 'yy']);
    await appendFile(cache.file!, Buffer.alloc(20, 7));
    const reopened = await EmbeddingCache.open(dir, embedder.id);
    expect(reopened.size).toBe(2);
    expect((await readFile(cache.file!)).length).toBe(2 * 48);
  });

  it('keys by embedder id', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-embcache-'));
    const cache = await EmbeddingCache.open(dir, 'other:model');
    cache.set('a', [1, 2, 3]);
    await expect(embedDocumentsCached(new CountingEmbedder(), cache, ['a'])).rejects.toThrow(/belongs to "other:model"/);
  });
});
