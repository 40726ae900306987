/**
 * Capabilities: a localizer gets from the run only what its registry entry declares, a run that cannot supply a
 * declared need stops before any instance with the fix named, and the two things that used to go around the
 * seams now go through them: the code graph is a channel of the repository index (one cache with the graph a
 * localizer asks for alone), and read-only workspaces open through the execution backend, whose sweep removes
 * what a killed invocation left of them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDockerBackend } from '../../sandbox/docker/local-backend.ts';
import { missingCapabilities } from '../../localizer/capabilities.ts';
import { localizerNeeds } from '../../localizer/registry.ts';
import { capabilitySupply, fileLocalizationStage, type LocalizationServices } from '../../localizer/stage.ts';
import type { FileLocalizer, LocalizerContext } from '../../localizer/types.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { codeGraphOf } from '../../src/index/channels/graph.ts';
import { IndexMemo } from '../../src/index/index-memo.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { ensureDocker } from '../support/docker.ts';
import { shopInstance, shopSnapshot } from '../locagent/fixture.ts';

const hasDocker = await ensureDocker('execution-backend workspaces');
const RUN_ID = `capabilities-test-${process.pid}`;

/** records the context it was given */
class Probe implements FileLocalizer {
  readonly name = 'probe';
  seen?: LocalizerContext;
  async localize(ctx: LocalizerContext) {
    this.seen = ctx;
    return { localizer: this.name, files: [], trace: [], usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 }, timingsMs: {} };
  }
}

const llm = { id: 'scripted:probe' } as ChatModel;
const services: LocalizationServices = {
  snapshot: async () => shopSnapshot(),
  index: () => Promise.reject(new Error('not asked')),
  graph: () => Promise.reject(new Error('not asked')),
  releaseRepo: () => undefined,
  llm,
};
const workspaces = { openWorkspace: () => Promise.reject(new Error('not asked')) };

async function contextFor(capabilities?: { needs: []; uses: Array<'model' | 'graph' | 'workspace' | 'parts'> }): Promise<LocalizerContext> {
  const probe = new Probe();
  const runDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-capabilities-'));
  try {
    const stage = fileLocalizationStage(probe, services, { runDir, workspaces, ...(capabilities ? { capabilities } : {}) });
    await stage.run({ instance: shopInstance() } as never);
    return probe.seen!;
  } finally {
    await rm(runDir, { recursive: true, force: true });
  }
}

describe('capabilities', () => {
  it('reach a localizer only as declared', async () => {
    const none = await contextFor({ needs: [], uses: [] });
    expect([none.llm, none.graph, none.workspace, none.parts]).toEqual([undefined, undefined, undefined, undefined]);
    const modelOnly = await contextFor({ needs: [], uses: ['model'] });
    expect(modelOnly.llm).toBe(llm);
    expect([modelOnly.graph, modelOnly.workspace, modelOnly.parts]).toEqual([undefined, undefined, undefined]);
    const all = await contextFor({ needs: [], uses: ['model', 'graph', 'workspace', 'parts'] });
    expect([typeof all.graph, typeof all.workspace, typeof all.parts?.write]).toEqual(['function', 'function', 'function']);
    // a localizer built by hand (tests, benchmarks) declares nothing and gets what the services have
    expect((await contextFor()).llm).toBe(llm);
  });

  it('are declared by the registry from the options, a cascade needing what its tiers need', () => {
    expect(localizerNeeds('retrieval')).toEqual({ needs: [], uses: [] });
    expect(localizerNeeds('explorer').needs).toEqual(['model', 'workspace']);
    expect(localizerNeeds('locagent').needs).toEqual(['model', 'graph']);
    expect(localizerNeeds('blagent', { allowNoLlm: true })).toEqual({ needs: [], uses: ['model'] });
    const cascade = localizerNeeds('cascade', {
      tiers: [
        { localizer: 'retrieval', options: {} },
        { localizer: 'explorer', options: {} },
      ],
    });
    expect([...cascade.needs].sort()).toEqual(['model', 'parts', 'workspace']);
  });

  it('a need the run cannot supply is one message naming each and its fix', () => {
    const supply = capabilitySupply({ ...services, llm: undefined }, {});
    expect(missingCapabilities('explorer', ['model', 'workspace'], supply)).toBe(
      'the explorer localizer needs a chat model: pass --llm (e.g. ollama:gpt-oss:120b, openai:MODEL@URL) or set "llm" in the config; ' +
        'and read-only workspaces, which need a Docker execution backend (sandbox.backend local or docker-pool)',
    );
    expect(missingCapabilities('explorer', ['model', 'workspace'], capabilitySupply(services, { workspaces }))).toBeUndefined();
  });
});

describe('the code graph as an index channel', () => {
  it('is built on first use, once per commit, and shared with the graph a localizer asks for alone', async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-channel-'));
    try {
      const memo = new IndexMemo();
      const snapshot = shopSnapshot();
      const index = await buildRepoIndex(snapshot, { embedder: new LexicalEmbedder({ dims: 32 }), vectorStore: new MemoryVectorStore(), cacheDir, memo });
      expect(memo.graphs.size).toBe(0); // indexing alone never pays for the graph
      const graph = await index.graph();
      expect(graph.graph.node('shop/cart.py')).toBeDefined();
      expect(await codeGraphOf(snapshot, { cacheDir, memo })).toBe(graph);
      const { neighborsOf } = await index.graphNeighbors();
      expect(neighborsOf('shop/cart.py:Cart.total').map((n) => n.path)).toContain('shop/pricing.py');
      memo.forgetRepo(snapshot.repo);
      expect([memo.graphs.size, memo.graphFacts.size]).toEqual([0, 0]);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!hasDocker)('read-only workspaces through the execution backend', () => {
  const backend = new LocalDockerBackend({ gitDir: () => Promise.reject(new Error('no mirrors')) } as never, {
    memoryGiB: 1,
    cpus: 1,
    images: {},
    concurrency: 1,
  });
  afterAll(() => backend.sweep(RUN_ID));

  it('open on the backend, carry the run id, and are swept with the run’s containers', async () => {
    const workspace = await backend.openWorkspace(shopSnapshot(), { image: 'locfix/base:bookworm', runId: RUN_ID });
    expect((await workspace.run(['cat', 'shop/pricing.py'], { timeoutMs: 10_000, maxOutputBytes: 10_000 })).output).toMatch(/apply_discount/);
    // a killed invocation never disposes it: the sweep removes its container and its snapshot volume
    expect(await backend.sweep(RUN_ID)).toBe(2);
    const volumes = await new Docker().listVolumes({ filters: { label: [`locfix.run=${RUN_ID}`] } });
    expect(volumes.Volumes ?? []).toEqual([]);
  }, 120_000);
});
