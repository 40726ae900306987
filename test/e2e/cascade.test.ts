/**
 * The cascade localizer through `locfix run` (mini-benchmark: real git mirrors, tree-sitter, Chroma; the
 * scripted model server answers Agentless; no Docker): the retrieval tier answers the instances it is sure of
 * without a model call, the least confident share goes to Agentless, each tier is kept as a part and reused
 * on resume, the run's analysis and report name the answering tier, and an instance spend cap stops exactly
 * the escalated instances.
 */
import { readFile, unlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../app/engine/experiment.ts';
import { openRunFolder } from '../../results/run-folder.ts';
import { parseRunConfig, type RunConfigInput } from '../../src/config.ts';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { startPipelineWorld, stopPipelineWorld, worldRunConfig } from './pipeline-world.ts';
import type { PipelinePolicy } from './pipeline-policy.ts';
import { MINIBENCH_IDS } from './minibench-scripts.ts';

const IDS: string[] = Object.values(MINIBENCH_IDS);

let policy: PipelinePolicy | undefined;
const scripted = useScriptedModelServer({ policy: (request) => policy?.respond(request) });

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;

const TIERS = [
  { localizer: 'retrieval', escalate: { signal: 'top-margin', share: 0.4 } },
  { localizer: 'agentless', merge: 'replace' },
];

function configFor(runId: string, budget: RunConfigInput['budget'] = {}, llm?: string, tiers: unknown[] = TIERS): RunConfigInput {
  return {
    ...worldRunConfig({ dir, bench, chroma }, runId, IDS, llm ?? `openai:scripted@${scripted.server.openaiURL}`),
    localizer: { name: 'cascade', options: { tiers } },
    concurrency: { instances: 2, sandboxes: 1, index: 1 },
    stopAfter: 'localize-lines',
    budget,
  };
}

const runDir = (runId: string) => path.join(dir, 'runs', runId);
const chats = () => scripted.server.requests.filter((r) => r.kind === 'chat').length;
const run = (runId: string, budget?: RunConfigInput['budget'], retryErrors = false, llm?: string, tiers?: unknown[]) =>
  runExperiment(parseRunConfig(configFor(runId, budget, llm, tiers)), { retryErrors, log: () => {} });

async function files(runId: string, id: string): Promise<StageArtifact<FileLocalization>> {
  return JSON.parse(await readFile(path.join(runDir(runId), 'localize-files', `${id}.json`), 'utf8'));
}

interface Cascade {
  answeredBy: number;
  tiers: Array<{ name: string; reused?: boolean; confidence: Record<string, number>; decision?: { escalate: boolean }; usage: { calls: number } }>;
}
const cascadeOf = (a: StageArtifact<FileLocalization>) => a.output!.details!.cascade as Cascade;

beforeAll(async () => {
  ({ dir, bench, chroma, policy } = await startPipelineWorld('cascade', IDS, 'resolved'));
});

afterAll(() => stopPipelineWorld({ dir, chroma }));

describe('cascade through locfix run (scripted model, Chroma)', () => {
  let escalated: string[] = [];

  it('escalates exactly the least confident 40 %, asks the model only for them, and records why', { timeout: 300_000 }, async () => {
    const result = await run('share');
    expect(result).toMatchObject({ failed: 0, total: IDS.length });
    const artifacts = await Promise.all(IDS.map((id) => files('share', id)));
    const margins = artifacts.map((a) => cascadeOf(a).tiers[0]!.confidence['top-margin']!);
    const order = IDS.map((id, i) => ({ id, m: margins[i]! })).sort((a, b) => a.m - b.m || (a.id < b.id ? -1 : 1));
    const expected = order.slice(0, Math.round(0.4 * IDS.length)).map((x) => x.id);
    escalated = IDS.filter((_, i) => cascadeOf(artifacts[i]!).answeredBy === 1);
    expect(escalated.sort()).toEqual([...expected].sort());
    for (const a of artifacts) {
      const c = cascadeOf(a);
      expect(c.tiers[0]!.usage.calls).toBe(0);
      expect(c.tiers[0]!.decision!.escalate).toBe(c.answeredBy === 1);
      // the answer carries the answering tier's signals, and its usage is the sum of the tiers'
      expect(a.output!.usage.calls).toBe(c.tiers.reduce((s, t) => s + t.usage.calls, 0));
      if (c.answeredBy === 1) expect(c.tiers[1]!.usage.calls).toBeGreaterThan(0);
    }
    const plan = JSON.parse(await readFile(path.join(runDir('share'), 'localize-files.parts', '_run', 'cascade-plan.json'), 'utf8'));
    expect(plan.tiers[0].escalated.sort()).toEqual([...expected].sort());

    const analysis = JSON.parse(await readFile(path.join(runDir('share'), 'analysis.json'), 'utf8'));
    const tiers = Object.fromEntries(analysis.instances.map((x: { instanceId: string; cascadeTier: string }) => [x.instanceId, x.cascadeTier]));
    for (const id of IDS) expect(tiers[id]).toBe(escalated.includes(id) ? 'agentless' : 'retrieval');
    expect(analysis.cascade.tiers.map((t: { reached: number; answered: number }) => [t.reached, t.answered])).toEqual([
      [IDS.length, IDS.length - escalated.length],
      [escalated.length, escalated.length],
    ]);
    expect(analysis.calibration.map((c: { signal: string }) => c.signal)).toContain('top-margin');
    const html = await readFile(path.join(runDir('share'), 'report', 'report.html'), 'utf8');
    expect(html).toContain('<h2>Cascade tiers of');
    expect(html).toContain('reliability diagrams');
  });

  it('a lost artifact is recomputed from the kept tiers without asking the model again', { timeout: 300_000 }, async () => {
    const id = escalated[0]!;
    await unlink(path.join(runDir('share'), 'localize-files', `${id}.json`));
    const before = chats();
    await run('share');
    expect(chats()).toBe(before);
    const c = cascadeOf(await files('share', id));
    expect(c.tiers.map((t) => t.reused)).toEqual([true, true]);
    expect(c.answeredBy).toBe(1);
  });

  it('--llm replay:<run> reproduces the run from its recorded answers; an unrecorded request fails loudly', { timeout: 300_000 }, async () => {
    const before = chats();
    await run('replayed', undefined, false, `replay:${runDir('share')}`);
    expect(chats()).toBe(before);
    // the replayed run's arm says it is a replay, not the live model it answers as
    expect((await openRunFolder(runDir('replayed'))).arm.model).toBe('replay of openai:scripted');
    expect((await openRunFolder(runDir('share'))).arm.model).toBe('openai:scripted');
    for (const id of IDS) {
      const [a, b] = await Promise.all([files('share', id), files('replayed', id)]);
      expect(b.output!.files, id).toEqual(a.output!.files);
      expect(cascadeOf(b).answeredBy).toBe(cascadeOf(a).answeredBy);
    }
    // a changed prompt (Agentless' top-N of the model's list) is a request the recording never answered
    const changed = [TIERS[0], { localizer: 'agentless', options: { maxTokens: 77 } }];
    await run('replay-changed', undefined, false, `replay:${runDir('share')}`, changed);
    expect(chats()).toBe(before);
    // the replay miss stops the escalated instance (the infrastructure's failure, failure-cause.ts) instead of
    // leaving the retrieval answer standing as the cascade's own
    for (const id of escalated) {
      const a = await files('replay-changed', id);
      expect(a.status, id).toBe('error');
      expect(a.error?.kind, id).toBe('replay-miss');
      expect(a.error?.message).toMatch(/replay: this request was not recorded/);
    }
  });

  it('an instance cap stops the escalated instances only; a raised cap reuses their kept retrieval tier', { timeout: 300_000 }, async () => {
    // (later stages of the other instances call the model too, and stop at their own cap)
    await run('capped', { instanceTokens: 10 });
    for (const id of IDS) {
      const a = await files('capped', id);
      if (escalated.includes(id)) expect(a.error?.kind, id).toBe('budget-exhausted');
      else expect(a.status, id).toBe('ok');
    }
    await run('capped', { instanceTokens: 1_000_000 }, true);
    for (const id of escalated) {
      const c = cascadeOf(await files('capped', id));
      expect(c.tiers[0]!.reused, id).toBe(true);
      expect(c.answeredBy).toBe(1);
    }
  });
});
