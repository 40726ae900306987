/**
 * `locfix ladder` end to end on the mini-benchmark.
 *
 * With Docker: `locfix demo --ladder` replays the bundled ladder recording (no model): the instance the scripted
 * model could not find the files of is caused by files, the one whose functions it missed by functions, the one
 * whose lines it missed by lines, the one it never repairs by nothing localization can fix; the oracle rungs ran the
 * real stages after their level; `analyze`, the report and the run browser's notes carry the causes. A prompt changed
 * since the recording makes the replay refuse it, and this test fails: `node --import tsx scripts/record-demo.ts --ladder`.
 *
 * Without Docker: the ladder against the live scripted model, stopped before evaluation: the run's spend cap is the
 * whole ladder's (a later rung stops at what the earlier ones left), the estimate is said before the oracle rungs,
 * repeats carry their seed to repair's sampled calls, and a ladder without a model says what it needs.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCommand } from '../../app/commands/demo.ts';
import { runLadder } from '../../app/engine/ladder.ts';
import { Catalogue, whyOf } from '../../app/view/catalogue.ts';
import { exportView, instanceFile } from '../../app/view/export.ts';
import { analyzeRun } from '../../results/run-analysis.ts';
import { parseRunConfig } from '../../src/config.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { LADDER_RECORDING_DIR, ladderDemoConfig, type LadderRecordingFile } from '../../src/minibench/demo-run.ts';
import { ensureDocker } from '../support/docker.ts';
import { ScriptedModelServer, type ScriptedChatRequest } from '../support/scripted-model-server.ts';
import { LadderPolicy } from './ladder-policy.ts';
import { issueKey, stageOfRequest } from './pipeline-policy.ts';
import { instanceScripts, LADDER_PLAN, MINIBENCH_IDS } from './minibench-scripts.ts';

const hasDocker = await ensureDocker('the ladder demo');
let dir: string;
let bench: MiniBenchBuild;
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-e2e-ladder-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
});
afterAll(async () => {
  if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

describe('locfix demo --ladder (bundled recording replayed, no model)', () => {
  it.skipIf(!hasDocker)('attributes each instance to the level whose oracle fixes it', { timeout: 600_000 }, async () => {
    let output = '';
    process.stdout.write = ((chunk: string | Uint8Array) => {
      output += String(chunk);
      return true;
    }) as typeof process.stdout.write;
    const out = path.join(dir, 'demo-ladder');
    try {
      await demoCommand({ ladder: true, out, minibench: path.join(dir, 'minibench'), cacheDir: path.join(dir, 'cache'), docker: true, fresh: true });
    } finally {
      process.stdout.write = write;
    }
    expect(output).toContain('Every instance got the cause of the recorded ladder.');
    const { A, B, C, D, E } = MINIBENCH_IDS;
    const recording = JSON.parse(await readFile(path.join(LADDER_RECORDING_DIR, 'recording.json'), 'utf8')) as LadderRecordingFile;
    expect(recording.causes).toEqual({ [A]: 'resolved', [B]: 'file', [C]: 'function', [E]: 'line', [D]: 'beyond-localization' });
    const ladder = JSON.parse(await readFile(path.join(out, 'ladder.json'), 'utf8')) as { instances: Array<{ instanceId: string; cause: string }> };
    expect(Object.fromEntries(ladder.instances.map((i) => [i.instanceId, i.cause]))).toEqual(recording.causes);
    expect(await readFile(path.join(out, 'ladder.md'), 'utf8')).toMatch(/\| file \(as-run → oracle-file\) \| \+20\.0 pp/);

    // the oracle rungs: the gold patch's locations at their level, the real stages after it
    const lines = JSON.parse(await readFile(path.join(out, 'rungs', 'oracle-line-s1', 'localize-lines', `${C}.json`), 'utf8'));
    expect(lines.output).toMatchObject({ oracle: true, locationSets: [{ files: [{ path: 'confetti/types.py' }] }] });
    const functionRungLines = JSON.parse(await readFile(path.join(out, 'rungs', 'oracle-function-s1', 'localize-lines', `${C}.json`), 'utf8'));
    expect(functionRungLines.output.oracle).toBeUndefined();
    expect(functionRungLines.output.usage.calls).toBeGreaterThan(0);

    // the as-run run carries the causes: analysis, report and the browser's note
    const analysis = await analyzeRun(path.join(out, 'rungs', 'as-run-s1'));
    const b = analysis.instances.find((i) => i.instanceId === B)!;
    expect(b).toMatchObject({ category: 'file', ladder: { cause: 'file', decidedAt: 'oracle-file', onOneSample: true } });
    expect(whyOf(b)).toContain('ladder: caused by file localization (first resolved at oracle-file), on one sample');
    expect(whyOf(analysis.instances.find((i) => i.instanceId === D)!)).toContain('perfect localization at every level does not resolve it');
    expect(analysis.report.ladder?.causes).toEqual({ resolved: 1, file: 1, function: 1, line: 1, 'beyond-localization': 1 });
    const html = await readFile(path.join(out, 'rungs', 'as-run-s1', 'report', 'report.html'), 'utf8');
    expect(html).toContain('<h2>Counterfactual ladder of');

    // the run browser over the rungs: each oracle rung is its own arm, and the as-run instance page says the cause
    const rungs = ['as-run-s1', 'oracle-file-s1', 'oracle-function-s1', 'oracle-line-s1'].map((r) => path.join(out, 'rungs', r));
    const catalogue = await Catalogue.open(rungs);
    expect(new Set(catalogue.rows.map((r) => r.arm.split(' · ')[0]))).toEqual(new Set(['agentless', 'oracle-file', 'oracle-function', 'oracle-line']));
    const site = path.join(dir, 'view');
    await exportView(catalogue, site);
    const page = await readFile(path.join(site, instanceFile(catalogue.runs[0]!.key, B)), 'utf8');
    expect(page).toContain('ladder: caused by file localization (first resolved at oracle-file), on one sample');
  });
});

describe('the ladder against a live model, stopped before evaluation', () => {
  async function ladderWith(server: ScriptedModelServer, runId: string, extra: Record<string, unknown>, seeds: number, log: string[]) {
    const config = parseRunConfig({
      ...ladderDemoConfig({
        runId,
        runsDir: path.join(dir, 'runs'),
        datasetPath: bench.datasetPath,
        mirrorsDir: bench.mirrorsDir,
        cacheDir: path.join(dir, `cache-${runId}`),
        llm: `openai:scripted@${server.openaiURL}`,
        instances: Object.keys(LADDER_PLAN),
      }),
      evaluation: { enabled: false },
      stopAfter: 'select',
      ...extra,
    });
    return runLadder(config, { seeds, log: (line) => log.push(line) });
  }

  it('spends under one cap for the whole ladder, says the estimate first, and resumes under a higher cap', { timeout: 300_000 }, async () => {
    const policy = new LadderPolicy(instanceScripts(bench, Object.keys(LADDER_PLAN)), LADDER_PLAN);
    const server = new ScriptedModelServer({ policy: (request) => policy.respond(request) });
    await server.start();
    try {
      // the first as-run run alone, to learn what a run spends
      const probe: string[] = [];
      const first = await ladderWith(server, 'probe', {}, 1, probe);
      expect(first.result).toBeDefined();
      expect(probe.some((l) => /^ladder: the remaining runs are estimated at \d+ tokens/.test(l))).toBe(true);
      const spend = JSON.parse(await readFile(path.join(first.dir, 'rungs', 'as-run-s1', 'spend.json'), 'utf8')) as {
        run: { promptTokens: number; completionTokens: number };
      };
      const asRunTokens = spend.run.promptTokens + spend.run.completionTokens;
      expect(asRunTokens).toBeGreaterThan(0);

      // a cap that the as-run rung fits in, and the rest of the ladder does not
      const log: string[] = [];
      const capped = await ladderWith(server, 'capped', { budget: { runTokens: asRunTokens + 200 } }, 1, log);
      expect(capped.result).toBeUndefined();
      expect(capped.stoppedAt).toMatchObject({ rung: 'oracle-file', how: 'the spend cap stopped it' });
      expect(log.findIndex((l) => l.startsWith('ladder: the remaining runs are estimated'))).toBeLessThan(
        log.findIndex((l) => l.startsWith('ladder: oracle-file-s1')),
      );
      const resumed = await ladderWith(server, 'capped', { budget: { runTokens: 10 * asRunTokens } }, 1, []);
      expect(resumed.result?.instances.map((i) => i.cause)).toEqual(Array(5).fill('not-judged'));
      expect(policy.unplaced).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it("repeats carry their seed to repair's sampled calls", { timeout: 300_000 }, async () => {
    const policy = new LadderPolicy(instanceScripts(bench, [MINIBENCH_IDS.A]), { [MINIBENCH_IDS.A]: 'none' });
    const server = new ScriptedModelServer({ policy: (request) => policy.respond(request) });
    await server.start();
    try {
      const outcome = await ladderWith(
        server,
        'seeds',
        { instances: [MINIBENCH_IDS.A], repair: { samplesPerSet: 2, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 } },
        2,
        [],
      );
      expect(outcome.result?.seeds).toEqual([1, 2]);
      const repairSeeds = server.requests
        .filter((r) => r.kind === 'chat' && JSON.stringify(r.body).includes('You are fixing a reported problem'))
        .map((r) => (r.body as { seed?: number; temperature?: number }).seed);
      // greedy calls carry no seed; the sampled ones seed 1000·s, one per seed
      expect(new Set(repairSeeds)).toEqual(new Set([undefined, 1000, 2000]));
    } finally {
      await server.stop();
    }
  });

  it('a rung that owes work (its model server failing an instance) leaves the ladder incomplete, and says how to finish', { timeout: 300_000 }, async () => {
    const { A, B } = MINIBENCH_IDS;
    const policy = new LadderPolicy(instanceScripts(bench, [A, B]), { [A]: 'none', [B]: 'file' });
    // the server fails B's repair requests, whatever the rung: B is never repaired, for a reason outside the method
    const bKey = issueKey(instanceScripts(bench, [B])[0]!.instance);
    const failing = (request: ScriptedChatRequest) => stageOfRequest(request) === 'repair' && request.text.includes(bKey);
    const server = new ScriptedModelServer({ policy: (request) => (failing(request) ? { status: 503 } : policy.respond(request)) });
    await server.start();
    try {
      const outcome = await ladderWith(server, 'owing', { instances: [A, B], llm: { model: `openai:scripted@${server.openaiURL}`, maxRetries: 0 } }, 1, []);
      expect(outcome.unfinished.map((u) => u.run)).toEqual(['as-run-s1', 'oracle-file-s1', 'oracle-function-s1', 'oracle-line-s1']);
      expect(outcome.unfinished[0]!.finish).toMatch(/--retry-errors/);
      expect(outcome.result?.instances.find((i) => i.instanceId === B)).toMatchObject({ cause: 'not-judged', decidedAt: 'as-run' });
    } finally {
      await server.stop();
    }
  });

  it('says the ladder needs a model', async () => {
    const config = parseRunConfig({ runId: 'no-model', runsDir: path.join(dir, 'runs'), dataset: bench.datasetPath });
    await expect(runLadder(config, { seeds: 1 })).rejects.toThrow(/every rung reruns function and line localization and repair with a model: give --llm/);
  });
});
