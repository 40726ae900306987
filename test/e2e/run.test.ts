/**
 * `locfix run` end to end on five mini-benchmark instances: real git mirrors, real tree-sitter, a real
 * Chroma server, real Docker (regression and reproduction validation, SWE-bench-style evaluation) and the scripted model
 * server, for both file localizers, two runs each. The scripted policy (pipeline-policy.ts) decides in
 * advance where each instance should fail; the test checks that the analysis finds exactly that, that
 * `compare` and `report` give the hand-computed numbers, and that a run killed with SIGKILL in the middle
 * (while an instance is validated in Docker and others are still localizing) resumes with the same command,
 * removes the containers the killed invocation left running, repeats at most the in-flight stage of each
 * instance, and ends with the same analysis as the uninterrupted run.
 *
 * Runtime: about 3 minutes on an idle 2-core machine (each run ~25 s, mostly Docker), 12 minutes under heavy load.
 *
 *   instance             blagent-1         blagent-2         agentless-1       agentless-2
 *   qty-7       (A)      resolved          resolved          resolved          resolved
 *   urlkit-14   (B)      file              resolved          file              file
 *   confetti-5  (C)      function          function          resolved          resolved
 *   qty-12      (D)      patch-generation  patch-generation  patch-generation  resolved
 *   confetti-9  (E)      empty-patch       empty-patch       empty-patch       empty-patch
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExperiment } from '../../app/engine/experiment.ts';
import { parseRunConfig, type RunConfigInput } from '../../src/config.ts';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { analyzeRun } from '../../results/run-analysis.ts';
import { compareRuns } from '../../results/compare.ts';
import type { Report } from '../../results/report.ts';
import type { InstanceAnalysis } from '../../results/failure-analysis.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { PIPELINE_STAGES as STAGE_NAMES } from '../../src/run/stage.ts';
import { ensureDocker } from '../support/docker.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';
import { startPipelineWorld, stopPipelineWorld, worldRunConfig } from './pipeline-world.ts';
import { type PipelinePolicy, stageOfRequest, type PlannedCategory, type PipelineStageName } from './pipeline-policy.ts';
import { MINIBENCH_IDS } from './minibench-scripts.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const hasDocker = await ensureDocker('locfix run end to end');

const { A, B, C, D, E } = MINIBENCH_IDS;
const IDS: string[] = [A, B, C, D, E];

const PLANS: Record<string, Record<string, PlannedCategory>> = {
  'blagent-1': { [A]: 'resolved', [B]: 'file', [C]: 'function', [D]: 'patch-generation', [E]: 'empty-patch' },
  'blagent-2': { [A]: 'resolved', [B]: 'resolved', [C]: 'function', [D]: 'patch-generation', [E]: 'empty-patch' },
  'agentless-1': { [A]: 'resolved', [B]: 'file', [C]: 'resolved', [D]: 'patch-generation', [E]: 'empty-patch' },
  'agentless-2': { [A]: 'resolved', [B]: 'file', [C]: 'resolved', [D]: 'resolved', [E]: 'empty-patch' },
};

let policy: PipelinePolicy | undefined;
const scripted = useScriptedModelServer({ policy: (request) => policy?.respond(request) });

let dir: string;
let bench: MiniBenchBuild;
let chroma: ChromaServer;
const timings: Record<string, number> = {};

function configFor(runId: string, localizer: 'blagent' | 'agentless', seed: number): RunConfigInput {
  return {
    ...worldRunConfig({ dir, bench, chroma }, runId, IDS, `openai:scripted@${scripted.server.openaiURL}`),
    seed,
    localizer: { name: localizer, options: {} },
    repair: { samplesPerSet: 1, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 },
    validation: { regression: true, reproduction: true, reproductionSamples: 1, timeoutSeconds: 300 },
    evaluation: { enabled: true, timeoutSeconds: 600 },
    concurrency: { instances: 3, sandboxes: 2, index: 1 },
  };
}

const runDir = (runId: string) => path.join(dir, 'runs', runId);

async function readAnalysis(
  runId: string,
): Promise<{ instances: InstanceAnalysis[]; summary: { categories: Record<string, { count: number; instances: string[] }> } }> {
  return JSON.parse(await readFile(path.join(runDir(runId), 'analysis.json'), 'utf8'));
}

const categoriesOf = (instances: readonly InstanceAnalysis[]) => Object.fromEntries(instances.map((a) => [a.instanceId, a.category]));

async function runInProcess(runId: string, localizer: 'blagent' | 'agentless', seed: number): Promise<void> {
  policy!.setPlan(PLANS[runId]!);
  const started = Date.now();
  const lines: string[] = [];
  await runExperiment(parseRunConfig(configFor(runId, localizer, seed)), { log: (l) => lines.push(l) });
  timings[runId] = Date.now() - started;
  expect(policy!.unplaced, `${runId}: requests the policy could not place`).toEqual([]);
}

beforeAll(async () => {
  ({ dir, bench, chroma, policy } = await startPipelineWorld('run', IDS));
});

afterAll(async () => {
  if (timings && Object.keys(timings).length) console.log('e2e run timings (ms):', JSON.stringify(timings));
  await stopPipelineWorld({ dir, chroma });
});

describe.skipIf(!hasDocker)('locfix run end to end (scripted model, Chroma, Docker)', () => {
  it('every instance lands in the planned category, for both localizers and both runs', { timeout: 1_200_000 }, async () => {
    await runInProcess('blagent-1', 'blagent', 1);
    await runInProcess('blagent-2', 'blagent', 2);
    await runInProcess('agentless-1', 'agentless', 1);
    await runInProcess('agentless-2', 'agentless', 2);
    for (const runId of Object.keys(PLANS)) {
      const analysis = await readAnalysis(runId);
      expect(categoriesOf(analysis.instances), runId).toEqual(PLANS[runId]);
      // the flags behind the categories
      const byId = Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a]));
      for (const id of IDS) {
        const planned = PLANS[runId]![id]!;
        expect(byId[id]!.fileCorrect, `${runId} ${id} file`).toBe(planned !== 'file');
        expect(byId[id]!.functionCorrect, `${runId} ${id} function`).toBe(planned !== 'file' && planned !== 'function');
      }
      expect(byId[D]!.line?.correct, `${runId} line`).toBe(true);
      // reproduction validation ran: the scripted reproducer fails on the unpatched checkout, and passes
      // exactly with the candidates that fix the bug (a resolved plan's gold edit; no-op edits do not)
      for (const id of IDS) {
        const validate = JSON.parse(await readFile(path.join(runDir(runId), 'validate', `${id}.json`), 'utf8'));
        expect(validate.status, `${runId} ${id} validate`).toBe('ok');
        if (PLANS[runId]![id] === 'empty-patch') {
          expect(validate.output.skipped, `${runId} ${id} nothing to validate`).toEqual([
            { step: 'regression', reason: 'no candidate patch' },
            { step: 'reproduction', reason: 'no candidate patch' },
          ]);
          continue;
        }
        expect(validate.output.skipped, `${runId} ${id} skipped validation steps`).toEqual([]);
        expect(validate.output.reproduction.reproducing, `${runId} ${id} reproducing scripts`).toEqual([0]);
        const passed = Object.values(validate.output.validation as Record<string, { reproductionPassed?: boolean }>).some((v) => v.reproductionPassed);
        expect(passed, `${runId} ${id} a candidate passes the reproduction test`).toBe(PLANS[runId]![id] === 'resolved');
      }
      expect(byId[E]!.emptyReason, `${runId} empty reason`).toBeTruthy();
      // the run's own report has the same counts
      const report: Report = JSON.parse(await readFile(path.join(runDir(runId), 'report', 'report.json'), 'utf8'));
      expect(report.runs[0]!.resolved).toBe(Object.values(PLANS[runId]!).filter((c) => c === 'resolved').length);
      // Hit@3: the gold file is in the top 3 exactly for the instances not planned as file-level failures
      expect(report.runs[0]!.localization.hit3, runId).toBeCloseTo(Object.values(PLANS[runId]!).filter((c) => c !== 'file').length / IDS.length, 10);
    }
  });

  it('compare: resolved counts, union and overlap, unique fixes (Table 10), Wilcoxon on solve frequencies', async () => {
    const analyses = await Promise.all(['blagent-1', 'blagent-2', 'agentless-1', 'agentless-2'].map((r) => analyzeRun(runDir(r))));
    const cmp = compareRuns(analyses.map((a) => a.outcome));
    expect(cmp.alignedInstances).toBe(5);
    expect(cmp.runs.map((r) => [r.runId, r.localizer, r.resolved, r.emptyPatches])).toEqual([
      ['blagent-1', 'blagent', 1, 1],
      ['blagent-2', 'blagent', 2, 1],
      ['agentless-1', 'agentless', 2, 1],
      ['agentless-2', 'agentless', 3, 1],
    ]);
    const [bl, ag] = cmp.arms;
    expect(bl).toMatchObject({ localizer: 'blagent', meanResolved: 1.5, resolvedUnion: [A, B].sort(), resolvedInAllRuns: [A], meanEmptyPatches: 1 });
    expect(ag).toMatchObject({
      localizer: 'agentless',
      meanResolved: 2.5,
      resolvedUnion: [C, A, D].sort(),
      resolvedInAllRuns: [C, A].sort(),
      meanEmptyPatches: 1,
    });
    expect(cmp.resolvedUnion).toEqual([C, D, A, B].sort());
    expect(cmp.resolvedByAll).toEqual([A]);
    expect(cmp.uniqueFixes).toEqual([
      { instanceId: B, fixedBy: 'blagent', other: 'agentless', otherHadGoldFileInTop3: false },
      { instanceId: C, fixedBy: 'agentless', other: 'blagent', otherHadGoldFileInTop3: true },
      { instanceId: D, fixedBy: 'agentless', other: 'blagent', otherHadGoldFileInTop3: true },
    ]);
    // solve frequencies, blagent: A 1, B .5, C 0, D 0, E 0; agentless: A 1, B 0, C 1, D .5, E 0.
    // differences (agentless − blagent) without zeros: B −.5, C +1, D +.5 → ranks 1.5, 3, 1.5 (tie):
    // W+ = 4.5, W− = 1.5; exact sign-flip distribution of doubled ranks {3, 3, 6}: P(≥ 9) = 3/8, p = 0.75.
    expect(cmp.wilcoxon).toHaveLength(1);
    expect(cmp.wilcoxon[0]).toMatchObject({
      reference: 'blagent',
      alternative: 'agentless',
      wPlus: 4.5,
      wMinus: 1.5,
      statistic: 1.5,
      n: 3,
      zeros: 2,
      method: 'exact',
    });
    expect(cmp.wilcoxon[0]!.referenceMean).toBeCloseTo(0.3, 12);
    expect(cmp.wilcoxon[0]!.alternativeMean).toBeCloseTo(0.5, 12);
    expect(cmp.wilcoxon[0]!.pValue).toBeCloseTo(0.75, 12);
  });

  it('locfix compare and locfix report through the CLI: report.json/md/html with the same numbers', async () => {
    const runs = ['blagent-1', 'blagent-2', 'agentless-1', 'agentless-2'].map(runDir);
    const compareOut = await runCli(['compare', ...runs, '--json']);
    expect(compareOut.code, compareOut.stderr).toBe(0);
    const cmp = JSON.parse(compareOut.stdout);
    expect(cmp.runs.map((r: { resolved: number }) => r.resolved)).toEqual([1, 2, 2, 3]);
    expect(cmp.wilcoxon[0].pValue).toBeCloseTo(0.75, 12);

    const out = path.join(dir, 'report-all');
    const reportOut = await runCli(['report', ...runs, '--out', out]);
    expect(reportOut.code, reportOut.stderr).toBe(0);
    const report: Report = JSON.parse(await readFile(path.join(out, 'report.json'), 'utf8'));
    expect(
      report.runs.map((r) => [
        r.runId,
        r.resolved,
        r.failures.categories.file.count,
        r.failures.categories.function.count,
        r.failures.categories['patch-generation'].count,
        r.failures.categories['empty-patch'].count,
      ]),
    ).toEqual([
      ['blagent-1', 1, 1, 1, 1, 1],
      ['blagent-2', 2, 0, 1, 1, 1],
      ['agentless-1', 2, 1, 0, 1, 1],
      ['agentless-2', 3, 1, 0, 0, 1],
    ]);
    expect(report.comparison?.uniqueFixes.map((u) => u.instanceId)).toEqual([B, C, D]);
    const md = await readFile(path.join(out, 'report.md'), 'utf8');
    for (const runId of ['blagent-1', 'blagent-2', 'agentless-1', 'agentless-2']) expect(md).toContain(runId);
    const html = await readFile(path.join(out, 'report.html'), 'utf8');
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/i); // self-contained
    for (const id of [B, C, D]) expect(html).toContain(id);
  });

  it('a run killed with SIGKILL in the middle resumes with the same command and ends with the same analysis', { timeout: 900_000 }, async () => {
    // Docker labels are machine-wide: a run id of its own per test process, so containers of other processes never count
    const runId = `blagent-2-killed-${process.pid}`;
    // the uninterrupted run to compare with (already there unless this test runs alone)
    if (!(await artifactsOf('blagent-2')).some((a) => a.stage === 'evaluate')) await runInProcess('blagent-2', 'blagent', 2);
    policy!.setPlan(PLANS['blagent-2']!);
    scripted.server.reset();
    const configPath = path.join(dir, `${runId}.json`);
    await writeFile(configPath, JSON.stringify(configFor(runId, 'blagent', 2), null, 2));
    const args = ['run', '--config', configPath];

    // first attempt: killed while an instance is being validated in Docker (others are still localizing)
    const first = startCli(args);
    const killAt = await waitFor(async () => (await artifactsOf(runId)).length > 0 && (await runContainers(runId)).length > 0, 300_000);
    expect(killAt, 'a validation container appeared before the run ended').toBe(true);
    first.child.kill('SIGKILL');
    const killedCode = await first.exit;
    const leftAtKill = await runContainers(runId);
    expect(leftAtKill.length, 'the killed invocation left its sandbox running').toBeGreaterThan(0);
    const killedAt = Date.now();
    expect(killedCode.signal).toBe('SIGKILL');
    const before = await artifactsOf(runId);
    const doneBefore = new Set(before.map((a) => `${a.stage}/${a.instanceId}`));
    const contentBefore = new Map(await Promise.all(before.map(async (a) => [`${a.stage}/${a.instanceId}`, await readFile(a.file, 'utf8')] as const)));
    // (the empty patch may be through already: it needs no Docker)
    expect(before.filter((a) => a.stage === 'evaluate').length, 'the kill came before the end').toBeLessThan(IDS.length - 1);

    // resume: the same command
    const second = startCli(args);
    const resumed = await second.exit;
    expect(resumed.code, second.stderr()).toBe(0);

    // the resumed invocation removed the sandboxes the killed one left running
    expect(await runContainers(runId), 'containers of the run after the resume').toEqual([]);
    // nothing finished before the kill was redone
    for (const [key, text] of contentBefore) expect(await readFile(path.join(runDir(runId), `${key}.json`), 'utf8'), key).toBe(text);
    // every artifact is a first attempt (no stage recorded an error and was retried)
    const after = await artifactsOf(runId);
    for (const a of after) expect(a.attempt, `${a.stage}/${a.instanceId}`).toBe(1);
    const evaluated = after.filter((a) => a.stage === 'evaluate');
    expect(evaluated).toHaveLength(IDS.length);
    // the empty patch is recorded without running the harness
    expect(evaluated.find((a) => a.instanceId === E)?.output).toMatchObject({ patchEmpty: true, resolved: false });

    // requests after the kill: only stages that had no artifact at the kill; before the kill, of those only the
    // first missing stage per instance (the one in flight) was asked
    const firstMissing = new Map(IDS.map((id) => [id, STAGE_NAMES.find((s) => !doneBefore.has(`${s}/${id}`))]));
    const llmStage = (s: PipelineStageName): string =>
      s.startsWith('blagent-') || s === 'files' || s === 'irrelevant'
        ? 'localize-files'
        : s === 'related'
          ? 'localize-functions'
          : s === 'lines'
            ? 'localize-lines'
            : s === 'repair'
              ? 'repair'
              : 'validate';
    let repeated = 0;
    for (const r of scripted.server.chatRequests()) {
      const messages = (r.body as { messages: Array<{ role: string; content: string }> }).messages;
      const view = {
        messages,
        text: messages.map((m) => m.content).join('\n\n'),
        lastUser: [...messages].reverse().find((m) => m.role === 'user')?.content ?? '',
        system: messages.find((m) => m.role === 'system')?.content ?? '',
      };
      const id = policy!.instanceOf(view)?.instance.instance_id;
      expect(id).toBeDefined();
      const stage = llmStage(stageOfRequest(view));
      if (r.timestamp >= killedAt) {
        expect(doneBefore.has(`${stage}/${id}`), `asked again after the kill: ${stage}/${id}`).toBe(false);
      } else if (!doneBefore.has(`${stage}/${id}`)) {
        expect(stage, `${id}: unfinished before the kill`).toBe(firstMissing.get(id!));
        repeated++;
      }
    }
    // the kill really came in the middle: some stages were done, and some instance had work left
    expect(doneBefore.size).toBeGreaterThan(0);
    expect([...firstMissing.values()].some((s) => s !== undefined)).toBe(true);
    console.log(
      `killed with ${doneBefore.size} stage artifacts; first missing stage per instance: ${JSON.stringify(Object.fromEntries(firstMissing))}; ${repeated} requests of in-flight stages before the kill; ${leftAtKill.length} container(s) left running`,
    );

    // the same analysis as the uninterrupted run with the same plan
    const killed = await readAnalysis(runId);
    const reference = await readAnalysis('blagent-2');
    expect(killed.instances).toEqual(reference.instances);
    const manifest = JSON.parse(await readFile(path.join(runDir(runId), 'manifest.json'), 'utf8'));
    expect(manifest.invocations).toHaveLength(2);
    expect(manifest.invocations[1].finishedAt).toBeTruthy();
  });
});

// ---------------------------------------------------------------------------------------------------------

interface ArtifactFile extends StageArtifact<unknown> {
  file: string;
}

async function artifactsOf(runId: string): Promise<ArtifactFile[]> {
  const out: ArtifactFile[] = [];
  for (const stage of STAGE_NAMES) {
    let names: string[] = [];
    try {
      names = await readdir(path.join(runDir(runId), stage));
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      const file = path.join(runDir(runId), stage, name);
      out.push({ ...(JSON.parse(await readFile(file, 'utf8')) as StageArtifact<unknown>), file });
    }
  }
  return out;
}

/** ids of the Docker containers labelled with this run id */
async function runContainers(runId: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('docker', ['ps', '-a', '-q', '--filter', `label=locfix.run=${runId}`]);
  return stdout.split('\n').filter(Boolean);
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

function startCli(args: string[]): {
  child: ReturnType<typeof spawn>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: () => string;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'locfix.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, exit, stdout: () => stdout, stderr: () => stderr };
}

async function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli(args);
  const { code } = await run.exit;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}
