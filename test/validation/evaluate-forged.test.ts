/**
 * Patches that forge their own verdict, evaluated in a real container: a conftest hook that prints PASSED lines
 * after pytest's own, and one that drops the failing tests and prints their PASSED lines. The harness' rules
 * resolve them; locfix's default grading does not (validation/grading-rules.ts, structured-report.ts).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { runEvaluation } from '../../validation/run-evaluation.ts';
import type { Prediction } from '../../validation/predictions.ts';
import type { GradingRules } from '../../validation/grading-rules.ts';
import { sandboxKinds } from '../support/sandbox-kinds.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const KINDS = await sandboxKinds('forged-verdict evaluation tests');

describe.each(KINDS)('forged verdicts in the $name sandbox', (kind) => {
  const runtime = kind.runtime;
  let root: string;
  let fixture: EvalFixture;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-forged-test-'));
    fixture = buildEvalFixture();
  });

  afterAll(async () => {
    fixture?.cleanup();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('a patch whose conftest hook prints PASSED lines for its failing tests is not resolved; 4.1 rules would resolve it', async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const dataset = [fixture.instance];
    const predictions: Prediction[] = [{ instance_id: fixture.instance.instance_id, model_name_or_path: 'm', model_patch: fixture.patches.forgesPassed }];
    const runsDir = path.join(root, 'runs');
    const grade = async (runId: string, grading?: GradingRules) => {
      const { summary } = await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, timeoutMs: 120_000, ...(grading ? { grading } : {}) });
      const dir = instanceLogDir(runsDir, runId, fixture.instance.instance_id);
      const report = JSON.parse(await fs.readFile(path.join(dir, 'report.json'), 'utf8'))[fixture.instance.instance_id];
      return { summary, report, testOutput: await fs.readFile(path.join(dir, 'test_output.txt'), 'utf8') };
    };
    // its conftest.py is test machinery, which the default keeps at the base commit (below); kept here, the log rules act
    const ours = await grade(`forged-${process.pid}`, { harness: '5.0.2', unforgeable: true, testMachinery: 'keep' });
    // the eval script recorded pytest's own exit status after the end marker, and the forged lines came after it
    expect(ours.testOutput).toMatch(/>>>>> End Test Output'?\n(\+ echo .*\n)?>>>>> Test Exit Code: 1\n/);
    expect(ours.testOutput).toContain('FAILED tests/test_core.py::test_clamp_high');
    expect(ours.testOutput.lastIndexOf('PASSED tests/test_core.py::test_clamp_high')).toBeGreaterThan(
      ours.testOutput.indexOf('FAILED tests/test_core.py::test_clamp_high'),
    );
    expect(ours.summary.resolved_ids).toEqual([]);
    expect(ours.report).toMatchObject({ resolved: false, test_exit_code: 1, grading: { harness: '5.0.2', unforgeable: true } });
    expect(ours.report.test_machinery).toEqual([{ path: 'conftest.py', action: 'kept', rule: 'pytest conftest' }]);
    // the hook printed after pytest's closing line: not pytest's output, left out, and the failures stand
    expect(ours.report.ignored_output).toEqual(["2 result line(s) after the runner's closing summary, which the runner cannot have printed"]);
    expect(ours.report.tests_status.FAIL_TO_PASS.failure).toEqual(fixture.instance.FAIL_TO_PASS);
    // the harness before 5.0 read the forged lines as the truth
    const before = await grade(`forged41-${process.pid}`, { harness: '4.1', unforgeable: false });
    expect(before.report).toMatchObject({ resolved: true, grading: { harness: '4.1', unforgeable: false } });
  }, 600_000);

  it("a patch that drops its failing tests and prints their PASSED lines is caught by pytest's own report", async () => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const dataset = [fixture.instance];
    const predictions: Prediction[] = [
      { instance_id: fixture.instance.instance_id, model_name_or_path: 'm', model_patch: fixture.patches.forgesByDeselecting },
    ];
    const runsDir = path.join(root, 'runs');
    const grade = async (runId: string, grading?: GradingRules) => {
      await runEvaluation({ runId, runsDir, dataset, predictions, runtime, images, timeoutMs: 120_000, ...(grading ? { grading } : {}) });
      const dir = instanceLogDir(runsDir, runId, fixture.instance.instance_id);
      return { dir, report: JSON.parse(await fs.readFile(path.join(dir, 'report.json'), 'utf8'))[fixture.instance.instance_id] };
    };
    // nothing fails, the exit code is 0, and the forged lines precede pytest's closing line: 5.0.2 resolves it
    const exact = await grade(`deselect502-${process.pid}`, { harness: '5.0.2', unforgeable: false });
    expect(exact.report).toMatchObject({ resolved: true, test_exit_code: 0 });
    const ours = await grade(`deselect-${process.pid}`, { harness: '5.0.2', unforgeable: true, testMachinery: 'keep' });
    expect(ours.report).toMatchObject({ resolved: false, patch_successfully_applied: false });
    // test_clamp_high never ran; test_bounds[11-10] is a parametrization of a function that ran, which an id
    // spelled otherwise could also be, so it is not read as missing
    expect(ours.report.report_disagreements).toEqual([{ test: 'tests/test_core.py::test_clamp_high', report: 'absent' }]);
    expect(ours.report.not_graded_reason).toMatch(
      /the log and the runner's own report disagree: 1 test\(s\) the log calls passed are missing from the report \(tests\/test_core\.py::test_clamp_high\)/,
    );
    // the report is kept beside the log
    expect(await fs.readFile(path.join(ours.dir, 'runner_report.xml'), 'utf8')).toContain('tests.test_core');
  }, 600_000);

  /** One forged patch evaluated under `grading` (default: locfix's); its report.json entry and test log. */
  const evaluateForged = async (patch: keyof EvalFixture['patches'], runId: string, grading?: GradingRules) => {
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const predictions: Prediction[] = [{ instance_id: fixture.instance.instance_id, model_name_or_path: 'm', model_patch: fixture.patches[patch] }];
    const runsDir = path.join(root, 'runs');
    const { outcomes } = await runEvaluation({
      runId,
      runsDir,
      dataset: [fixture.instance],
      predictions,
      runtime,
      images,
      timeoutMs: 120_000,
      ...(grading ? { grading } : {}),
    });
    const dir = instanceLogDir(runsDir, runId, fixture.instance.instance_id);
    return {
      dir,
      outcome: outcomes[0]!,
      report: JSON.parse(await fs.readFile(path.join(dir, 'report.json'), 'utf8'))[fixture.instance.instance_id],
      log: await fs.readFile(path.join(dir, 'test_output.txt'), 'utf8').catch(() => ''),
    };
  };
  const EXACT: GradingRules = { harness: '5.0.2', unforgeable: false };

  it('a conftest.py hook that turns failures into passes (#631): resolved as the harness grades; kept at base by default', async () => {
    expect((await evaluateForged('forgesByReportHook', `hook502-${process.pid}`, EXACT)).report.resolved).toBe(true);
    const ours = await evaluateForged('forgesByReportHook', `hook-${process.pid}`);
    expect(ours.report).toMatchObject({ resolved: false, test_machinery: [{ path: 'conftest.py', action: 'removed', rule: 'pytest conftest' }] });
    expect(ours.report.tests_status.FAIL_TO_PASS.failure).toEqual(fixture.instance.FAIL_TO_PASS);
    // beside it, the verdict as submitted (its conftest.py applied), evaluated in a sandbox of its own
    expect(ours.report.as_submitted).toEqual({ resolved: true });
    expect(ours.outcome.resolvedAsSubmitted).toBe(true);
    expect(await fs.readFile(path.join(ours.dir, 'as_submitted', 'patch.diff'), 'utf8')).toBe(fixture.patches.forgesByReportHook);
    // a patch without test machinery is evaluated once
    expect((await evaluateForged('gold', `once-${process.pid}`)).report).not.toHaveProperty('as_submitted');
    // refused when asked: not run, not graded, with what it changes
    const refused = await evaluateForged('forgesByReportHook', `hookrefuse-${process.pid}`, { harness: '5.0.2', unforgeable: true, testMachinery: 'refuse' });
    expect(refused.report).toMatchObject({ resolved: false, not_graded_reason: expect.stringMatching(/changes test machinery \(conftest\.py\); refused/) });
  }, 600_000);

  it("a new tests/conftest.py that empties every test's body: resolved as the harness grades; kept at base by default", async () => {
    expect((await evaluateForged('neutersTests', `neuter502-${process.pid}`, EXACT)).report.resolved).toBe(true);
    const ours = await evaluateForged('neutersTests', `neuter-${process.pid}`);
    expect(ours.report).toMatchObject({ resolved: false, test_machinery: [{ path: 'tests/conftest.py', action: 'removed' }] });
  }, 600_000);

  it('a new setup.cfg whose [tool:pytest] shadows the package under test: resolved as the harness grades; only that section restored', async () => {
    expect((await evaluateForged('forgesBySetupCfg', `setupcfg502-${process.pid}`, EXACT)).report.resolved).toBe(true);
    const ours = await evaluateForged('forgesBySetupCfg', `setupcfg-${process.pid}`);
    expect(ours.report).toMatchObject({
      resolved: false,
      test_machinery: [{ path: 'setup.cfg', action: 'restored', rule: 'test sections of setup.cfg: [tool:pytest]' }],
      as_submitted: { resolved: true },
    });
    expect(ours.report.tests_status.FAIL_TO_PASS.failure).toEqual(fixture.instance.FAIL_TO_PASS);
  }, 600_000);

  it('the module under test prints PASSED lines and a forged exit code, then os._exit(0): a forged marker, and no runner report', async () => {
    expect((await evaluateForged('forgesExitCode', `exit502-${process.pid}`, EXACT)).report.resolved).toBe(true);
    const ours = await evaluateForged('forgesExitCode', `exit-${process.pid}`);
    expect(ours.log).toContain('>>>>> Test Exit Code: 0');
    expect(ours.report).toMatchObject({ resolved: false, not_graded_reason: expect.stringMatching(/\d+ test exit codes; the eval script writes one of each/) });
  }, 600_000);

  it("the module under test fakes an early end marker and rewrites pytest's JUnit file, then os._exit(0): a forged marker", async () => {
    expect((await evaluateForged('forgesEndMarker', `end502-${process.pid}`, EXACT)).report.resolved).toBe(true);
    const ours = await evaluateForged('forgesEndMarker', `end-${process.pid}`);
    expect(ours.report).toMatchObject({ resolved: false, not_graded_reason: expect.stringMatching(/2 end markers/) });
  }, 600_000);

  it('a resolving patch with code that talks past the runner resolves, flagged, with the lines named', async () => {
    const ours = await evaluateForged('goldWithExitHook', `flagged-${process.pid}`);
    expect(ours.report).toMatchObject({
      resolved: true,
      resolved_flagged: true,
      runner_audit: [{ path: 'clampkit/core.py', line: 3, rule: 'runs code at interpreter exit', text: 'atexit.register(lambda: None)' }],
    });
    expect((await evaluateForged('gold', `clean-${process.pid}`)).report).not.toHaveProperty('resolved_flagged');
  }, 600_000);
});
