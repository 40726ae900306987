/**
 * Evaluation errors in the run analysis (issue 41): one the environment caused (harness 5.0's tier environment)
 * leaves every rate as "not evaluated" with its cause; ambiguous ones and the patch's own stay judged, each with
 * its cause and tier in the analysis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun } from '../../results/run-analysis.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../../src/util/fsx.ts';

const PATCH = 'diff --git a/m.py b/m.py\n--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n';
const ERRORS: Record<string, Record<string, unknown>> = {
  'o__r-1': { message: 'cannot run the tests (network): 3 of the tests failed with the network off', kind: 'cannot-run:network' },
  'o__r-2': { message: 'Test timed out after 1800 seconds.', kind: 'timeout' },
  'o__r-3': { message: '>>>>> Patch Apply Failed:\nerror: patch failed', kind: 'patch-apply-failed' },
  'o__r-4': {
    message: 'Error response from daemon: container exited',
    kind: 'evaluation-error',
    details: { infraFailure: { reason: 'container_unavailable', tier: 'environment' } },
  },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-eval-causes-'));
  const layout = new RunLayout(dir);
  const ids = Object.keys(ERRORS);
  await writeJsonlAtomic(
    layout.file('instances.jsonl'),
    ids.map((id) => ({ instance_id: id, repo: 'o/r', base_commit: 'a'.repeat(40), problem_statement: 'x', patch: PATCH, test_patch: '' })),
  );
  const artifact = (stage: string, id: string, body: Record<string, unknown>) => ({
    stage,
    instanceId: id,
    startedAt: '',
    finishedAt: '',
    durationMs: 1,
    attempt: 1,
    ...body,
  });
  for (const id of ids) {
    await writeJsonAtomic(layout.artifactPath('select', id), artifact('select', id, { status: 'ok', output: { patch: PATCH } }));
    await writeJsonAtomic(layout.artifactPath('evaluate', id), artifact('evaluate', id, { status: 'error', error: ERRORS[id] }));
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('evaluation errors by cause', () => {
  it("the environment's failures are not evaluated, in no rate; ambiguous and the patch's own are judged with their cause", async () => {
    const a = await analyzeRun(dir);
    const byId = Object.fromEntries(a.instances.map((i) => [i.instanceId, i]));
    // before: all four were "evaluation-error", judged 4
    expect(byId['o__r-1'].category).toBe('not-evaluated');
    expect(byId['o__r-1'].notJudged).toMatch(/^infrastructure \(evaluation-environment: .*; harness tier environment\): cannot run the tests \(network\)/);
    expect(byId['o__r-4'].category).toBe('not-evaluated');
    expect(byId['o__r-2']).toMatchObject({ category: 'evaluation-error', evaluationCause: 'tests-timed-out (tier ambiguous)' });
    expect(byId['o__r-3']).toMatchObject({ category: 'evaluation-error', evaluationCause: 'patch-does-not-apply' });
    expect(a.report.failures.judged).toBe(2);
    expect(a.report.failures.evaluationErrorsByCause).toEqual({ 'tests-timed-out (tier ambiguous)': 1, 'patch-does-not-apply': 1 });
  });
});
