/**
 * What the scripted-pipeline end-to-end tests run in: the mini-benchmark built in a temp folder, a Chroma
 * server of their own, and a PipelinePolicy that answers every model request of `ids` by plan. Each test file
 * starts one in `beforeAll` and stops it in `afterAll` (LOCFIX_KEEP_TEST_DIRS keeps the folder).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { instanceScripts } from './minibench-scripts.ts';
import { PipelinePolicy, type PlannedCategory } from './pipeline-policy.ts';

export interface PipelineWorld {
  dir: string;
  bench: MiniBenchBuild;
  chroma: ChromaServer;
  policy: PipelinePolicy;
}

/** `plan`: every instance's planned category at the start (none: the test plans per run). */
export async function startPipelineWorld(name: string, ids: readonly string[], plan?: PlannedCategory): Promise<PipelineWorld> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `locfix-e2e-${name}-`));
  const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  const chroma = await startChromaServer({ dataDir: path.join(dir, 'chroma'), reuse: false });
  const policy = new PipelinePolicy(instanceScripts(bench, ids));
  if (plan) policy.setPlan(Object.fromEntries(ids.map((id) => [id, plan])));
  return { dir, bench, chroma, policy };
}

export async function stopPipelineWorld(world: { dir?: string; chroma?: ChromaServer }): Promise<void> {
  await world.chroma?.stop();
  if (!world.dir) return;
  if (process.env.LOCFIX_KEEP_TEST_DIRS) console.log(`kept ${world.dir}`);
  else await rm(world.dir, { recursive: true, force: true });
}

/**
 * The run config fields every pipeline test shares: the world's dataset, mirrors and Chroma, the lexical
 * embedder, and a response cache per run, so no run answers from another run's model responses.
 */
export function worldRunConfig(world: Omit<PipelineWorld, 'policy'>, runId: string, ids: readonly string[], llm: string) {
  return {
    runId,
    runsDir: path.join(world.dir, 'runs'),
    dataset: world.bench.datasetPath,
    instances: [...ids],
    mirrorsDir: world.bench.mirrorsDir,
    cacheDir: path.join(world.dir, 'cache', runId),
    embedder: 'lexical',
    chromaUrl: world.chroma.url,
    llm,
  };
}
