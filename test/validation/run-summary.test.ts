/**
 * The run summary's infrastructure labels, as harness 5.0's make_run_report writes them (tests/test_infra_failure.py):
 * advisory ids and reasons for unresolved and errored instances, every denominator unchanged.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { makeRunSummary } from '../../validation/run-summary.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'locfix-summary-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BROWSER_FAILURE = '\n> karma start karma.conf.js\nFailed to launch Chrome! Chromium revision is not downloaded.\n';
const GENUINE_FAILURE = '\nFAILED test_foo.py::test_bar - AssertionError: expected 3, got 4\n1 failed, 12 passed in 1.20s\n';

function instance(id: string): SweInstance {
  return {
    instance_id: id,
    repo: 'o/r',
    base_commit: 'abcdef1',
    problem_statement: '',
    patch: '',
    test_patch: '',
    hints_text: '',
    FAIL_TO_PASS: ['t'],
    PASS_TO_PASS: [],
  };
}

function lay(runId: string, id: string, testOutput: string, report?: { resolved: boolean }): void {
  const dir = instanceLogDir(root, runId, id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'test_output.txt'), testOutput);
  writeFileSync(path.join(dir, 'run_instance.log'), 'run log');
  if (report) writeFileSync(path.join(dir, 'report.json'), JSON.stringify({ [id]: report }));
}

describe('run summary infrastructure labels', () => {
  it('labels without moving an instance out of its list', async () => {
    const ids = ['a__infra-1', 'a__resolved-1', 'a__error-1', 'a__genuine-1', 'a__module-1'];
    lay('r', ids[0], BROWSER_FAILURE, { resolved: false });
    lay('r', ids[1], BROWSER_FAILURE, { resolved: true });
    lay('r', ids[2], BROWSER_FAILURE);
    lay('r', ids[3], GENUINE_FAILURE, { resolved: false });
    lay('r', ids[4], "Error: Cannot find module 'ol/layer/Vector'", { resolved: false });
    const predictions = ids.map((id) => ({ instance_id: id, model_name_or_path: 'gold', model_patch: 'diff --git a b' }));
    const summary = await makeRunSummary(root, 'r', ids.map(instance), predictions);
    expect(summary.unresolved_ids).toEqual(['a__genuine-1', 'a__infra-1', 'a__module-1']);
    expect(summary.resolved_ids).toEqual(['a__resolved-1']);
    expect(summary.error_ids).toEqual(['a__error-1']);
    expect(summary.infra_failure_ids).toEqual(['a__error-1', 'a__infra-1']);
    expect(summary.ambiguous_failure_ids).toEqual(['a__module-1']);
    expect(summary.failure_reasons).toEqual({ 'a__error-1': 'browser_launch_failed', 'a__infra-1': 'browser_launch_failed', 'a__module-1': 'missing_module' });
    expect([summary.infra_failure_instances, summary.ambiguous_failure_instances, summary.completed_instances]).toEqual([2, 1, 4]);
  });
});
