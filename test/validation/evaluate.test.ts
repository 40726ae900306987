import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promises as fs } from 'node:fs';
import { promisify } from 'node:util';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { runEvaluation } from '../../validation/run-evaluation.ts';
import { goldPredictions, type Prediction } from '../../validation/predictions.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { sandboxKinds } from '../support/sandbox-kinds.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const execFileAsync = promisify(execFile);

const KINDS = await sandboxKinds('SWE-bench evaluation tests');

describe.each(KINDS)('evaluation in the $name sandbox', (kind) => {
  const runtime = kind.runtime;
  let root: string;
  let fixture: EvalFixture;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-eval-test-'));
    fixture = buildEvalFixture();
  });

  afterAll(async () => {
    fixture?.cleanup();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('removes the containers an interrupted (kill -9) evaluation of the same run left running, and only those', async () => {
    const runId = `eval-sweep-${process.pid}`;
    const leftover = await runtime.create({ image: 'locfix/base:bookworm', runId });
    const other = await runtime.create({ image: 'locfix/base:bookworm', runId: `${runId}-other` });
    try {
      const swept: number[] = [];
      const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
      await runEvaluation({
        runId,
        runsDir: path.join(root, 'runs'),
        dataset: [fixture.instance],
        predictions: [],
        runtime,
        images,
        onSweep: (n) => swept.push(n),
      });
      expect(swept).toEqual([1]);
      expect(await kind.leftovers(runId)).toBe(0);
      expect(await kind.leftovers(`${runId}-other`)).toBe(1);
      expect((await other.exec('true')).exitCode).toBe(0);
    } finally {
      await other.dispose();
      await leftover.dispose().catch(() => undefined);
    }
  });

  it('mini-benchmark: every gold patch resolves', async () => {
    const bench = await buildMiniBenchmark(path.join(root, 'minibench'));
    const store = new RepoStore({ cacheDir: path.join(root, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
    try {
      const images = kind.images(store, { useOfficialImages: false });
      const { summary, summaryPath } = await runEvaluation({
        runId: 'mb-gold',
        runsDir: path.join(root, 'runs'),
        dataset: bench.instances,
        predictions: goldPredictions(bench.instances),
        runtime,
        images,
        maxWorkers: 2,
        timeoutMs: 300_000,
      });
      const ids = bench.instances.map((i) => i.instance_id).sort();
      expect(summary.error_ids).toEqual([]);
      expect(summary.resolved_ids).toEqual(ids);
      expect(summary.resolved_instances).toBe(ids.length);
      expect(JSON.parse(await fs.readFile(summaryPath, 'utf8'))).toEqual(summary);
    } finally {
      await store.close();
    }
  }, 900_000);

  it('wrong patch unresolved, non-applying patch and timeout in error_ids, empty patch in empty_patch_ids; reruns resume', async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const base = fixture.instance;
    const variant = (suffix: string) => ({ ...base, instance_id: `${base.instance_id}${suffix}` });
    const dataset = [variant(''), variant('-wrong'), variant('-noapply'), variant('-empty'), variant('-hang'), variant('-nopred')];
    const predictions: Prediction[] = [
      { instance_id: dataset[0].instance_id, model_name_or_path: 'test/model', model_patch: fixture.patches.gold },
      { instance_id: dataset[1].instance_id, model_name_or_path: 'test/model', model_patch: fixture.patches.wrong },
      { instance_id: dataset[2].instance_id, model_name_or_path: 'test/model', model_patch: fixture.patches.notApplicable },
      { instance_id: dataset[3].instance_id, model_name_or_path: 'test/model', model_patch: '' },
      { instance_id: dataset[4].instance_id, model_name_or_path: 'test/model', model_patch: fixture.patches.hanging },
    ];
    const runsDir = path.join(root, 'runs');
    const runId = `fixture-${process.pid}`;
    const { summary, outcomes } = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, maxWorkers: 2, timeoutMs: 8_000 });

    expect(summary).toMatchObject({
      total_instances: 6,
      submitted_instances: 5,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 2,
      resolved_ids: [base.instance_id],
      unresolved_ids: [`${base.instance_id}-wrong`],
      error_ids: [`${base.instance_id}-hang`, `${base.instance_id}-noapply`],
      empty_patch_ids: [`${base.instance_id}-empty`],
      incomplete_ids: [`${base.instance_id}-nopred`],
      // harness 5.0's labels (#586): the timeout is ambiguous, in error_ids all the same
      infra_failure_ids: [],
      ambiguous_failure_ids: [`${base.instance_id}-hang`],
      failure_reasons: { [`${base.instance_id}-hang`]: 'tests_timed_out' },
      schema_version: 2,
    });
    expect(outcomes).toHaveLength(4);
    expect(outcomes.find((o) => o.instanceId === `${base.instance_id}-hang`)?.infraFailure).toEqual({ reason: 'tests_timed_out', tier: 'ambiguous' });
    expect(outcomes.find((o) => o.instanceId === `${base.instance_id}-wrong`)?.infraFailure).toBeUndefined();

    // the harness' files, with its markers
    const goldDir = instanceLogDir(runsDir, runId, base.instance_id);
    expect((await fs.readdir(goldDir)).sort()).toEqual(['eval.sh', 'patch.diff', 'report.json', 'run_instance.log', 'runner_report.xml', 'test_output.txt']);
    expect(await fs.readFile(path.join(goldDir, 'patch.diff'), 'utf8')).toBe(fixture.patches.gold);
    const report = JSON.parse(await fs.readFile(path.join(goldDir, 'report.json'), 'utf8'));
    expect(report[base.instance_id].tests_status.FAIL_TO_PASS.success).toEqual(base.FAIL_TO_PASS);
    const wrongReport = JSON.parse(await fs.readFile(path.join(instanceLogDir(runsDir, runId, `${base.instance_id}-wrong`), 'report.json'), 'utf8'));
    expect(wrongReport[`${base.instance_id}-wrong`]).toMatchObject({ patch_successfully_applied: true, resolved: false });
    expect(wrongReport[`${base.instance_id}-wrong`].tests_status.FAIL_TO_PASS.failure).toEqual([
      'tests/test_core.py::test_clamp_high',
      'tests/test_bounds.py::test_bounds[11-10]',
    ]);
    const testOutput = await fs.readFile(path.join(goldDir, 'test_output.txt'), 'utf8');
    expect(testOutput).toContain('>>>>> Start Test Output');
    expect(testOutput).toContain('>>>>> End Test Output');

    const noApplyDir = instanceLogDir(runsDir, runId, `${base.instance_id}-noapply`);
    const noApplyLog = await fs.readFile(path.join(noApplyDir, 'run_instance.log'), 'utf8');
    expect(noApplyLog).toContain('Failed to apply patch to container: git apply --verbose');
    expect(noApplyLog).toContain('Failed to apply patch to container: git apply --verbose --3way');
    expect(noApplyLog).toContain('Failed to apply patch to container: patch --batch --forward --fuzz=5 -p1 -i');
    expect(noApplyLog).toContain('>>>>> Patch Apply Failed');
    await expect(fs.access(path.join(noApplyDir, 'report.json'))).rejects.toThrow();

    const hangDir = instanceLogDir(runsDir, runId, `${base.instance_id}-hang`);
    expect(await fs.readFile(path.join(hangDir, 'test_output.txt'), 'utf8')).toContain('Timeout error: 8 seconds exceeded.');
    await expect(fs.access(path.join(hangDir, 'report.json'))).rejects.toThrow();
    await expect(fs.access(instanceLogDir(runsDir, runId, `${base.instance_id}-empty`))).rejects.toThrow();

    // every container of the run is gone, the timed-out one included
    expect(await kind.leftovers(runId)).toBe(0);

    // resume: reports are reused, errors are retried
    const again = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, maxWorkers: 2, timeoutMs: 8_000 });
    const reused = Object.fromEntries(again.outcomes.map((o) => [o.instanceId, o.reused]));
    expect(reused).toEqual({
      [base.instance_id]: true,
      [`${base.instance_id}-wrong`]: true,
      [`${base.instance_id}-noapply`]: false,
      [`${base.instance_id}-hang`]: false,
    });
    expect(again.summary).toEqual(summary);
  }, 600_000);

  it('applies patches with the harness chain: a pristine tree before each later attempt, the reverse check, the command recorded', async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const base = fixture.instance;
    const variant = (suffix: string) => ({ ...base, instance_id: `${base.instance_id}${suffix}` });
    const dataset = [variant('-gold'), variant('-fuzzy'), variant('-applied')];
    const predictions: Prediction[] = [
      { instance_id: dataset[0].instance_id, model_name_or_path: 'm', model_patch: fixture.patches.gold },
      { instance_id: dataset[1].instance_id, model_name_or_path: 'm', model_patch: fixture.patches.fuzzy },
      { instance_id: dataset[2].instance_id, model_name_or_path: 'm', model_patch: fixture.patches.alreadyApplied },
    ];
    const runsDir = path.join(root, 'runs');
    const runId = `apply-${process.pid}`;
    const { summary, outcomes } = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, maxWorkers: 2, timeoutMs: 60_000 });
    expect(summary.error_ids).toEqual([]);
    expect(summary.resolved_ids).toEqual([dataset[1].instance_id, dataset[0].instance_id]);
    const command = Object.fromEntries(outcomes.map((o) => [o.instanceId, o.patchApplyCommand]));
    expect(command).toEqual({
      [dataset[0].instance_id]: 'git apply --verbose',
      [dataset[1].instance_id]: 'patch --batch --forward --fuzz=5 -p1 -i',
      [dataset[2].instance_id]: 'already applied (git apply --check --reverse)',
    });
    const fuzzyDir = instanceLogDir(runsDir, runId, dataset[1].instance_id);
    const report = JSON.parse(await fs.readFile(path.join(fuzzyDir, 'report.json'), 'utf8'));
    expect(report[dataset[1].instance_id]).toMatchObject({
      patch_successfully_applied: true,
      resolved: true,
      patch_apply_command: 'patch --batch --forward --fuzz=5 -p1 -i',
    });
    // --reject left core.py.rej; the reset before `patch` removed it (patch's own fuzz backup, core.py.orig,
    // stays untracked, as in the harness, and `git diff` does not count it)
    const log = await fs.readFile(path.join(fuzzyDir, 'run_instance.log'), 'utf8');
    expect(log).toContain('Failed to apply patch to container: git apply --verbose --reject');
    const testOutput = await fs.readFile(path.join(fuzzyDir, 'test_output.txt'), 'utf8');
    expect(testOutput).not.toContain('.rej');
    expect(testOutput).toContain('+        return hi');
    expect(await fs.readFile(path.join(instanceLogDir(runsDir, runId, dataset[2].instance_id), 'run_instance.log'), 'utf8')).toContain(
      'verified already applied',
    );
  }, 600_000);

  it('network off by default; --network host reaches a server on the host loopback, and the report says which was used', async () => {
    const server = http.createServer((_req, res) => res.end('pong'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
      const base = fixture.instance;
      const lines = [
        'import urllib.request',
        '',
        '',
        'def test_remote():',
        `    assert urllib.request.urlopen("http://127.0.0.1:${port}", timeout=5).read() == b"pong"`,
      ];
      const remote = {
        ...base,
        instance_id: `${base.instance_id}-remote`,
        test_patch:
          base.test_patch +
          [
            'diff --git a/tests/test_remote.py b/tests/test_remote.py',
            'new file mode 100644',
            '--- /dev/null',
            '+++ b/tests/test_remote.py',
            `@@ -0,0 +1,${lines.length} @@`,
            ...lines.map((l) => `+${l}`),
            '',
          ].join('\n'),
        FAIL_TO_PASS: [...base.FAIL_TO_PASS, 'tests/test_remote.py::test_remote'],
      };
      const predictions: Prediction[] = [{ instance_id: remote.instance_id, model_name_or_path: 'm', model_patch: fixture.patches.gold }];
      const runsDir = path.join(root, 'runs');
      const offline = await runEvaluation({ runId: `net-none-${process.pid}`, runsDir, dataset: [remote], predictions, runtime, images, timeoutMs: 120_000 });
      expect(offline.outcomes[0]).toMatchObject({ completed: false, errorKind: 'cannot-run:network' });
      const online = await runEvaluation({
        runId: `net-host-${process.pid}`,
        runsDir,
        dataset: [remote],
        predictions,
        runtime,
        images,
        timeoutMs: 120_000,
        network: 'host',
      });
      expect(online.summary.resolved_ids).toEqual([remote.instance_id]);
      const report = JSON.parse(await fs.readFile(path.join(instanceLogDir(runsDir, `net-host-${process.pid}`, remote.instance_id), 'report.json'), 'utf8'));
      expect(report[remote.instance_id]).toMatchObject({ resolved: true, network: 'host' });
    } finally {
      server.close();
    }
  }, 600_000);

  it('locfix evaluate: gold and a predictions file, resume, summary with the harness fields', async () => {
    const dir = path.join(root, `cli-${kind.name}`);
    const mirrors = path.join(dir, 'mirrors');
    await fs.mkdir(path.join(mirrors, 'minibench+clampkit'), { recursive: true });
    await fs.cp(fixture.gitDir, path.join(mirrors, 'minibench+clampkit', 'repo'), { recursive: true });
    const wrongId = `${fixture.instance.instance_id}-w`;
    const datasetFile = path.join(dir, 'dataset.jsonl');
    await fs.writeFile(datasetFile, [fixture.instance, { ...fixture.instance, instance_id: wrongId }].map((i) => JSON.stringify(i)).join('\n') + '\n');
    const predictionsFile = path.join(dir, 'preds.json');
    await fs.writeFile(predictionsFile, JSON.stringify({ [wrongId]: { model_name_or_path: 'm', model_patch: fixture.patches.wrong } }));
    const cli = path.resolve('bin/locfix.js');
    const run = (args: string[]) =>
      execFileAsync(
        process.execPath,
        [
          cli,
          'evaluate',
          '--dataset',
          datasetFile,
          '--runs-dir',
          path.join(dir, 'runs'),
          '--mirrors',
          mirrors,
          '--no-official-images',
          ...kind.cliFlags,
          ...args,
        ],
        {
          cwd: dir,
        },
      );

    // comma-separated, as every other command takes instance ids (the same id twice: one instance)
    const gold = await run(['--predictions', 'gold', '--run-id', 'cli-gold', '--instances', `${fixture.instance.instance_id},${fixture.instance.instance_id}`]);
    expect(gold.stdout).toContain('Instances resolved: 1');
    const summary = JSON.parse(await fs.readFile(path.join(dir, 'runs', 'cli-gold', 'evaluation', 'summary.json'), 'utf8'));
    expect(Object.keys(summary)).toEqual([
      'total_instances',
      'submitted_instances',
      'completed_instances',
      'resolved_instances',
      'unresolved_instances',
      'infra_failure_instances',
      'ambiguous_failure_instances',
      'empty_patch_instances',
      'error_instances',
      'completed_ids',
      'incomplete_ids',
      'empty_patch_ids',
      'submitted_ids',
      'resolved_ids',
      'unresolved_ids',
      'infra_failure_ids',
      'ambiguous_failure_ids',
      'failure_reasons',
      'error_ids',
      'schema_version',
    ]);
    expect(summary).toMatchObject({ total_instances: 1, resolved_ids: [fixture.instance.instance_id] });
    // what it graded against, as harness 5.0's run.json records it, with the rules
    const metadata = JSON.parse(await fs.readFile(path.join(dir, 'runs', 'cli-gold', 'evaluation', 'run.json'), 'utf8'));
    expect(metadata).toMatchObject({ split: 'test', task_repo: null, grading: { harness: '5.0.2', unforgeable: true } });
    expect(metadata.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    // the finished run graded again under another release: its report is reused, its log read once more
    const regraded = await run(['--predictions', 'gold', '--run-id', 'cli-gold', '--instances', fixture.instance.instance_id, '--compare-harness', '4.1']);
    expect(regraded.stdout).toContain('(existing report)');
    expect(regraded.stdout).toContain("Graded again under 5.0.2, 4.1 with locfix's rule: 1 log\n");
    expect(regraded.stdout).toContain('instances where 4.1 disagrees with 5.0.2: 0');
    const harnessDiff = JSON.parse(await fs.readFile(path.join(dir, 'runs', 'cli-gold', 'evaluation', 'harness_diff.json'), 'utf8'));
    expect(harnessDiff).toMatchObject({ releases: ['5.0.2', '4.1'], graded: 1, resolved: { '5.0.2': 1, '4.1': 1 }, disagreements: [] });

    const preds = await run(['--predictions', predictionsFile, '--run-id', 'cli-preds']);
    expect(preds.stdout).toContain(`${wrongId}: unresolved`);
    expect(preds.stdout).toContain('Instances incomplete: 1');
    const again = await run(['--predictions', predictionsFile, '--run-id', 'cli-preds']);
    expect(again.stdout).toContain('(existing report)');

    // the evaluation folders are run folders: analyze and compare read them (before: "no instances.jsonl")
    const locfix = (args: string[]) => execFileAsync(process.execPath, [cli, ...args], { cwd: dir });
    const analyzed = JSON.parse((await locfix(['analyze', path.join(dir, 'runs', 'cli-preds'), '--json'])).stdout) as {
      summary: { total: number; judged: number; categories: Record<string, { count: number }> };
      instances: Array<{ instanceId: string; category: string }>;
    };
    // the wrong patch edits the gold file, so its failure is past file level; no function stage: judged on lines
    expect(analyzed.summary).toMatchObject({ total: 1, judged: 1 });
    expect(analyzed.instances[0].instanceId).toBe(wrongId);
    expect(['line', 'patch-generation']).toContain(analyzed.instances[0].category);
    // the evaluation said where its repositories are, so analyze reads the base files from there (it takes no --mirrors)
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'runs', 'cli-preds', 'manifest.json'), 'utf8'));
    expect(manifest.config).toMatchObject({ mirrorsDir: path.resolve(mirrors) });
    const analysisFile = JSON.parse(await fs.readFile(path.join(dir, 'runs', 'cli-preds', 'analysis.json'), 'utf8'));
    expect(analysisFile.warnings).toEqual([]);
    const compared = JSON.parse((await locfix(['compare', path.join(dir, 'runs', 'cli-gold'), path.join(dir, 'runs', 'cli-preds'), '--json'])).stdout) as {
      arms: Array<{ arm: string }>;
      alignedInstances: number;
    };
    expect(compared.arms.map((a) => a.arm)).toEqual(['cli-gold', 'cli-preds']);
    expect(compared.alignedInstances).toBe(0);

    await expect(run(['--predictions', predictionsFile, '--run-id', 'x', '--timeout', 'soon'])).rejects.toMatchObject({
      stderr: expect.stringContaining('--timeout expects a positive integer, got "soon"'),
    });
  }, 600_000);

  it('predictions for instances outside the dataset are refused', async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    await expect(
      runEvaluation({
        runId: 'refused',
        runsDir: path.join(root, 'runs'),
        dataset: [fixture.instance],
        predictions: [{ instance_id: 'other__repo-1', model_name_or_path: 'm', model_patch: 'x' }],
        runtime,
        images,
      }),
    ).rejects.toThrow(/predictions for instances not in the dataset: other__repo-1/);
  });
});
