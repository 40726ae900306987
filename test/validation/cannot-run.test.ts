/**
 * Tests that cannot run: an evaluation error (the environment's fault, with its reason) or the patch's failure
 * (graded unresolved, as the harness does), decided by the kind of failure and the gold patch's run in the same
 * image (validation/gold-baseline.ts). Real Docker, the evaluation fixture.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { forgetGoldBaselines } from '../../validation/gold-baseline.ts';
import { runEvaluation } from '../../validation/run-evaluation.ts';
import type { Prediction } from '../../validation/predictions.ts';
import { sandboxKinds } from '../support/sandbox-kinds.ts';
import { addFile, buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const KINDS = await sandboxKinds('evaluation of tests that cannot run');

describe.each(KINDS)('tests that cannot run, in the $name sandbox', (kind) => {
  const runtime = kind.runtime;
  let root: string;
  let fixture: EvalFixture;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-cannot-run-'));
    fixture = buildEvalFixture();
  });

  afterAll(async () => {
    fixture?.cleanup();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('tests that cannot run make an evaluation error with its reason, never "unresolved": no test ran, network needed', async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const base = fixture.instance;
    const network = {
      ...base,
      instance_id: `${base.instance_id}-net`,
      test_patch:
        base.test_patch +
        addFile('tests/test_net.py', ['import urllib.request', '', '', 'def test_fetch():', '    urllib.request.urlopen("http://example.com", timeout=5)']),
      FAIL_TO_PASS: [...base.FAIL_TO_PASS, 'tests/test_net.py::test_fetch'],
    };
    const broken = {
      ...base,
      instance_id: `${base.instance_id}-conftest`,
      test_patch: base.test_patch + addFile('tests/conftest.py', ['raise RuntimeError("environment broken")']),
    };
    const dataset = [network, broken];
    const predictions: Prediction[] = dataset.map((i) => ({ instance_id: i.instance_id, model_name_or_path: 'm', model_patch: fixture.patches.gold }));
    const runsDir = path.join(root, 'runs');
    const runId = `cannot-run-${process.pid}`;
    const { summary, outcomes } = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, maxWorkers: 2, timeoutMs: 120_000 });
    expect(summary.unresolved_ids).toEqual([]);
    expect(summary.error_ids).toEqual([broken.instance_id, network.instance_id].sort());
    const kinds = Object.fromEntries(outcomes.map((o) => [o.instanceId, o.errorKind]));
    expect(kinds).toEqual({ [network.instance_id]: 'cannot-run:network', [broken.instance_id]: 'cannot-run:no-tests-ran' });
    const recorded = async (id: string) => JSON.parse(await fs.readFile(path.join(instanceLogDir(runsDir, runId, id), 'evaluation_error.json'), 'utf8'));
    expect(await recorded(network.instance_id)).toMatchObject({
      kind: 'cannot-run:network',
      reason: expect.stringMatching(/tests\/test_net\.py::test_fetch.*(name resolution|urlopen error)/),
    });
    expect(await recorded(broken.instance_id)).toMatchObject({ kind: 'cannot-run:no-tests-ran', reason: expect.stringMatching(/no test ran/) });
    // no report.json, so a rerun evaluates them again
    await expect(fs.access(path.join(instanceLogDir(runsDir, runId, network.instance_id), 'report.json'))).rejects.toThrow();
  }, 600_000);

  it("a run that cannot run is the patch's failure when the gold patch's tests run in the same image (graded unresolved), else an evaluation error", async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const base = fixture.instance;
    // the new test imports a name only the gold patch adds; the model patch changes another file, so the
    // ImportError at collection names no patched file: before, an evaluation error; the harness says unresolved
    const goldAddsName = [
      'diff --git a/clampkit/core.py b/clampkit/core.py',
      '--- a/clampkit/core.py',
      '+++ b/clampkit/core.py',
      '@@ -9,3 +9,7 @@ def clamp(x, lo, hi):',
      '     if x > hi:',
      '         return lo',
      '     return x',
      '+',
      '+',
      '+def clamp_all(xs, lo, hi):',
      '+    return [clamp(x, lo, hi) for x in xs]',
      '',
    ].join('\n');
    const importsNew = {
      ...base,
      instance_id: `${base.instance_id}-newname`,
      patch: goldAddsName,
      // the conftest imports the new name: without it pytest stops at the conftest and no test runs at all
      test_patch:
        addFile('tests/conftest.py', ['from clampkit.core import clamp_all  # noqa: F401']) +
        addFile('tests/test_all.py', ['from clampkit.core import clamp_all', '', '', 'def test_clamp_all():', '    assert clamp_all([1, 5], 0, 10) == [1, 5]']),
      FAIL_TO_PASS: ['tests/test_all.py::test_clamp_all'],
      PASS_TO_PASS: [],
    };
    const broken = {
      ...base,
      instance_id: `${base.instance_id}-envbroken`,
      test_patch: base.test_patch + addFile('tests/conftest.py', ['raise RuntimeError("environment broken")']),
    };
    const unrelated = addFile('clampkit/extra.py', ['X = 1']);
    const dataset = [importsNew, broken];
    const predictions: Prediction[] = dataset.map((i) => ({ instance_id: i.instance_id, model_name_or_path: 'm', model_patch: unrelated }));
    const runsDir = path.join(root, 'runs');
    const runId = `baseline-${process.pid}`;
    const { summary, outcomes } = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, maxWorkers: 2, timeoutMs: 120_000 });
    expect(summary.unresolved_ids).toEqual([importsNew.instance_id]);
    expect(summary.error_ids).toEqual([broken.instance_id]);
    expect(outcomes.find((o) => o.instanceId === broken.instance_id)?.errorKind).toBe('cannot-run:no-tests-ran');
    const error = JSON.parse(await fs.readFile(path.join(instanceLogDir(runsDir, runId, broken.instance_id), 'evaluation_error.json'), 'utf8'));
    expect(error.reason).toMatch(/the gold patch's tests cannot run here either/);
    const log = await fs.readFile(path.join(instanceLogDir(runsDir, runId, importsNew.instance_id), 'run_instance.log'), 'utf8');
    expect(log).toMatch(/they run with the gold patch in the same image: the patch's failure/);
    // the baseline is kept in the instance's evaluation folder: evaluating the environment error again reads it
    const kept = path.join(instanceLogDir(runsDir, runId, broken.instance_id), 'gold_baseline.json');
    expect(JSON.parse(await fs.readFile(kept, 'utf8'))).toMatchObject({ runs: false, instanceId: broken.instance_id });
    const before = (await fs.stat(kept)).mtimeMs;
    forgetGoldBaselines(); // as a new process would: only the record remains
    const again = await runEvaluation({
      runId,
      runsDir,
      dataset: [broken],
      predictions: predictions.filter((p) => p.instance_id === broken.instance_id),
      runtime,
      images,
      timeoutMs: 120_000,
    });
    expect(again.summary.error_ids).toEqual([broken.instance_id]);
    expect((await fs.stat(kept)).mtimeMs).toBe(before);
    // and the gold patch itself resolves it
    const gold = await runEvaluation({
      runId: `${runId}-gold`,
      runsDir,
      dataset: [importsNew],
      predictions: [{ instance_id: importsNew.instance_id, model_name_or_path: 'm', model_patch: goldAddsName }],
      runtime,
      images,
      timeoutMs: 120_000,
    });
    expect(gold.summary.resolved_ids).toEqual([importsNew.instance_id]);
  }, 600_000);

  it("a stop that names the file the model patch changed is still the environment's when the gold patch stops there too", async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const base = fixture.instance;
    // as Go reports a package missing from the image at the patched file that imports it (gin.go in gin-4003)
    const missingDependency = {
      ...base,
      instance_id: `${base.instance_id}-missingdep`,
      test_patch: base.test_patch + addFile('tests/conftest.py', ['raise ImportError("clampkit/core.py:1:1: cannot find package clampkit_native")']),
    };
    const touchesCore = [
      'diff --git a/clampkit/core.py b/clampkit/core.py',
      '--- a/clampkit/core.py',
      '+++ b/clampkit/core.py',
      '@@ -9,3 +9,4 @@ def clamp(x, lo, hi):',
      '     if x > hi:',
      '         return lo',
      '     return x',
      '+# reviewed',
      '',
    ].join('\n');
    // a patch that really breaks the code it changed stays the patch's failure: the gold patch's tests run
    const syntaxError = { ...base, instance_id: `${base.instance_id}-syntax` };
    const breaksCore = touchesCore.replace('+# reviewed', '+def broken(:');
    const predictions: Prediction[] = [
      { instance_id: missingDependency.instance_id, model_name_or_path: 'm', model_patch: touchesCore },
      { instance_id: syntaxError.instance_id, model_name_or_path: 'm', model_patch: breaksCore },
    ];
    const runsDir = path.join(root, 'runs');
    const runId = `patched-stop-${process.pid}`;
    const { summary, outcomes } = await runEvaluation({
      runId,
      runsDir,
      dataset: [missingDependency, syntaxError],
      predictions,
      runtime,
      images,
      maxWorkers: 2,
      timeoutMs: 120_000,
    });
    expect(summary.error_ids).toEqual([missingDependency.instance_id]);
    expect(outcomes.find((o) => o.instanceId === missingDependency.instance_id)?.errorKind).toBe('cannot-run:no-tests-ran');
    const error = JSON.parse(await fs.readFile(path.join(instanceLogDir(runsDir, runId, missingDependency.instance_id), 'evaluation_error.json'), 'utf8'));
    expect(error.reason).toMatch(/cannot find package clampkit_native.*the gold patch's tests cannot run here either/);
    expect(summary.unresolved_ids).toEqual([syntaxError.instance_id]);
  }, 600_000);
});
