/**
 * The retrieval localizer's graph channel in a run: with `weights.graph` on it takes the context's code
 * graph (Services.graph in `locfix run`) and says, per file, which named entity led there; without a
 * graph the channel is off and the answer carries a warning instead of silently ranking without it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RetrievalLocalizer } from '../../localizer/retrieval/localizer.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { shopSnapshot } from '../locagent/fixture.ts';

describe('the retrieval localizer with the graph channel', () => {
  it('uses the index’s graph channel when weights.graph is on, with graph evidence; warns when the index has none', async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-retrieval-'));
    try {
      const snapshot = shopSnapshot();
      const index = await buildRepoIndex(snapshot, { embedder: new LexicalEmbedder({ dims: 64 }), vectorStore: new MemoryVectorStore(), cacheDir });
      const instance = {
        instance_id: 'acme__shop-1',
        repo: 'acme/shop',
        base_commit: 'c0ffee',
        problem_statement: 'Cart.total() is wrong',
        patch: '',
      } as never;
      const localizer = new RetrievalLocalizer({ retrieval: { weights: { graph: 1 } } });
      const withGraph = await localizer.localize({ instance, snapshot, index: async () => index });
      const pricing = withGraph.files.find((f) => f.path === 'shop/pricing.py')!;
      expect(pricing.evidence!.graph).toEqual([
        expect.objectContaining({ from: 'shop/cart.py:Cart.total', to: 'shop/pricing.py:apply_discount', relation: 'invokes' }),
      ]);
      expect(withGraph.warnings ?? []).toEqual([]);
      const noGraph = await localizer.localize({ instance, snapshot, index: async () => ({ ...index, graphNeighbors: undefined }) as never });
      expect(noGraph.warnings).toEqual([expect.stringContaining('no code graph')]);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
