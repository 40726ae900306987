/**
 * Spend caps through `locfix run` (localization and repair of five mini-benchmark instances: real git
 * mirrors, tree-sitter, Chroma, the scripted model server; no Docker). An uncapped run measures what each
 * instance and the whole run spend; capped runs, each with its own response cache so nothing is free, must
 * then stop where the caps say, record why and what was spent, survive a resume without spending more, and
 * finish exactly like the uncapped run once the caps are raised.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../app/engine/experiment.ts';
import { loadRunConfig, type RunConfigInput } from '../../src/config.ts';
import { overridesFrom } from '../../app/commands/run-flags.ts';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import type { SpendLedgerFile } from '../../src/run/spend-ledger.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { InstanceAnalysis } from '../../results/failure-analysis.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { startPipelineWorld, stopPipelineWorld, worldRunConfig } from './pipeline-world.ts';
import type { PipelinePolicy } from './pipeline-policy.ts';
import { MINIBENCH_IDS } from './minibench-scripts.ts';

const IDS: string[] = Object.values(MINIBENCH_IDS);
const STAGES = ['localize-files', 'localize-functions', 'localize-lines', 'repair'];

let policy: PipelinePolicy | undefined;
const scripted = useScriptedModelServer({ policy: (request) => policy?.respond(request) });

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;
let free: SpendLedgerFile;

function configFor(runId: string, budget: RunConfigInput['budget'] = {}): RunConfigInput {
  return {
    // its own response cache: a capped run pays for every answer it gets
    ...worldRunConfig({ dir, bench, chroma }, runId, IDS, `openai:scripted@${scripted.server.openaiURL}`),
    localizer: { name: 'agentless', options: {} },
    repair: { samplesPerSet: 2, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 },
    concurrency: { instances: 1, sandboxes: 1, index: 1 },
    stopAfter: 'repair',
    budget,
  };
}

const runDir = (runId: string) => path.join(dir, 'runs', runId);
const chatRequests = () => scripted.server.requests.filter((r) => r.kind === 'chat').length;
const tokens = (s: { promptTokens: number; completionTokens: number }) => s.promptTokens + s.completionTokens;

async function run(runId: string, budget?: RunConfigInput['budget'], options: { retryErrors?: boolean } = {}) {
  const { parseRunConfig } = await import('../../src/config.ts');
  const lines: string[] = [];
  const result = await runExperiment(parseRunConfig(configFor(runId, budget)), { ...options, log: (l) => lines.push(l) });
  return { result, lines };
}

async function ledger(runId: string): Promise<SpendLedgerFile> {
  return JSON.parse(await readFile(path.join(runDir(runId), 'spend.json'), 'utf8'));
}

async function artifact(runId: string, stage: string, id: string): Promise<StageArtifact<unknown> | undefined> {
  try {
    return JSON.parse(await readFile(path.join(runDir(runId), stage, `${id}.json`), 'utf8'));
  } catch {
    return undefined;
  }
}

async function categories(runId: string): Promise<Record<string, string>> {
  const analysis = JSON.parse(await readFile(path.join(runDir(runId), 'analysis.json'), 'utf8')) as { instances: InstanceAnalysis[] };
  return Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a.category]));
}

beforeAll(async () => {
  ({ dir, bench, chroma, policy } = await startPipelineWorld('spend', IDS, 'resolved'));
});

afterAll(() => stopPipelineWorld({ dir, chroma }));

describe('spend caps (scripted model, Chroma)', () => {
  it('flags set the caps; they are not settings of the artifacts', async () => {
    const overrides = overridesFrom({ maxInstanceTokens: '5000', maxRunDollars: '2.5' });
    expect(overrides).toEqual({ budget: { instanceTokens: 5000, runDollars: 2.5 } });
    expect(() => overridesFrom({ maxRunDollars: '-1' })).toThrow(/--max-run-dollars expects a positive number, got "-1"/);
    const config = await loadRunConfig(undefined, { runId: 'x', dataset: 'd.jsonl', ...overrides });
    expect(config.budget).toEqual({ instanceTokens: 5000, runDollars: 2.5 });
  });

  it('a dollar cap on a model without a price is refused before anything runs, saying how to set one', async () => {
    const err = await run('no-price', { runDollars: 1 }).catch((e: unknown) => e as Error);
    expect((err as Error).message).toMatch(/a dollar spend cap needs the price of openai:scripted, and it has none: add it to llm\.prices/);
    expect(chatRequests()).toBe(0);
  });

  it('uncapped: every instance reaches repair, and the ledger records what each spent', { timeout: 300_000 }, async () => {
    const { result } = await run('free');
    expect(result).toMatchObject({ interrupted: false, failed: 0, total: 5 });
    free = await ledger('free');
    expect(Object.keys(free.instances).sort()).toEqual([...IDS].sort());
    const sum = Object.values(free.instances).reduce((s, i) => s + tokens(i), 0);
    expect(tokens(free.run)).toBe(sum);
    for (const id of IDS) expect((await artifact('free', 'repair', id))?.status).toBe('ok');
  });

  it('a resume under other settings is refused, naming each change, before anything runs; a cap is not such a setting', async () => {
    const { parseRunConfig } = await import('../../src/config.ts');
    const changed = { ...configFor('free'), localizer: { name: 'retrieval', options: {} }, repair: { ...configFor('free').repair!, samplesPerSet: 3 } };
    const before = chatRequests();
    const err = (await runExperiment(parseRunConfig(changed), { log: () => {} }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/run free was made with other settings, so its artifacts do not fit these:/);
    expect(err.message).toMatch(/localizer\.name: "agentless" → "retrieval"/);
    expect(err.message).toMatch(/repair\.samplesPerSet: 2 → 3/);
    expect(err.message).toMatch(/use a new --run-id/);
    expect(chatRequests()).toBe(before);
    const capped = await run('free', { runTokens: 10 * tokens(free.run) });
    expect(capped.result).toMatchObject({ interrupted: false, failed: 0 });
    expect(chatRequests()).toBe(before); // everything was done already
  });

  it('an instance cap: each instance stops at the stage that reached it, recorded as budget-exhausted with what it spent', { timeout: 300_000 }, async () => {
    const cheapest = Math.min(...Object.values(free.instances).map(tokens));
    const cap = Math.floor(cheapest / 2);
    const before = chatRequests();
    const { result } = await run('instance-cap', { instanceTokens: cap });
    expect(result).toMatchObject({ interrupted: false, failed: 5, total: 5 });
    const spent = await ledger('instance-cap');
    expect(spent.caps.instance).toEqual({ tokens: cap });
    for (const id of IDS) {
      const stopped = (await Promise.all(STAGES.map(async (stage) => ({ stage, a: await artifact('instance-cap', stage, id) })))).filter(
        (x) => x.a?.status === 'error',
      );
      expect(stopped, id).toHaveLength(1);
      const error = stopped[0]!.a!.error!;
      expect(error.kind, id).toBe('budget-exhausted');
      expect(error.message).toMatch(new RegExp(`instance budget of ${id} is spent: \\d+ tokens of ${cap}`));
      const details = error.details as { spent: { promptTokens: number; completionTokens: number }; stageSpent: object };
      expect(tokens(details.spent)).toBeGreaterThanOrEqual(cap);
      expect(tokens(details.spent)).toBe(tokens(spent.instances[id]!));
      // it stopped: less than the uncapped instance spent
      expect(tokens(spent.instances[id]!), id).toBeLessThan(tokens(free.instances[id]!));
    }
    const made = chatRequests() - before;
    expect(made).toBeGreaterThan(0);
    expect(Object.values(await categories('instance-cap'))).toEqual(IDS.map(() => 'budget-exhausted'));
    const html = await readFile(path.join(runDir('instance-cap'), 'report', 'report.html'), 'utf8');
    expect(html).toContain('<h2>Spend and caps</h2>');
    expect(html).toContain('spend cap reached');

    // the same command again: the ledger carries the spend over, so the server is not asked again, even with
    // --retry-errors. (A retried stage may still finish from answers the first attempt paid for: cached
    // answers are free, and repair's sample sets share prompts.)
    const again = chatRequests();
    await run('instance-cap', { instanceTokens: cap }, { retryErrors: true });
    expect(chatRequests()).toBe(again);
    expect((await ledger('instance-cap')).instances).toEqual(spent.instances);

    // a raised cap and --retry-errors: the instances finish like the uncapped run
    await run('instance-cap', { instanceTokens: 10 * Math.max(...Object.values(free.instances).map(tokens)) }, { retryErrors: true });
    expect(await categories('instance-cap')).toEqual(await categories('free'));
  });

  it('a run cap: the run stops cleanly, the rest stays not done, and a raised cap resumes it', { timeout: 300_000 }, async () => {
    const cap = Math.floor(tokens(free.run) * 0.4);
    const { result, lines } = await run('run-cap', { runTokens: cap });
    expect(result).toMatchObject({ interrupted: true, budgetExhausted: true, total: 5 });
    expect(lines.join('\n')).toMatch(/run budget exhausted: \d+ tokens of \d+ in \d+ call\(s\); \d of 5 instances done .* not done\. Raise --max-run-tokens/);
    const spent = await ledger('run-cap');
    expect(tokens(spent.run)).toBeGreaterThanOrEqual(cap);
    expect(tokens(spent.run)).toBeLessThan(tokens(free.run));
    // nothing is recorded as failed because of the run's cap: the work it cut is simply not done
    const repaired: string[] = [];
    for (const id of IDS) {
      for (const stage of STAGES) expect((await artifact('run-cap', stage, id))?.status ?? 'not done', `${stage}/${id}`).not.toBe('error');
      if ((await artifact('run-cap', 'repair', id))?.status === 'ok') repaired.push(id);
    }
    expect(repaired.length).toBeLessThan(5);

    // the same cap again: nothing more is spent
    const before = chatRequests();
    const second = await run('run-cap', { runTokens: cap });
    expect(second.result.budgetExhausted).toBe(true);
    expect(chatRequests()).toBe(before);

    // raised: the run finishes (no --retry-errors needed) with the uncapped run's outcome
    const third = await run('run-cap', { runTokens: 10 * tokens(free.run) });
    expect(third.result).toMatchObject({ interrupted: false, failed: 0 });
    expect(await categories('run-cap')).toEqual(await categories('free'));
  });
});
