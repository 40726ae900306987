/**
 * The bugs of the mini-benchmark are real and its tests honest: for every instance, in a fresh checkout of
 * the base commit from the published mirror, with the host's `python3 -m pytest`:
 *   - test_patch applied: every FAIL_TO_PASS test fails, every PASS_TO_PASS test passes;
 *   - gold patch applied too: all of them pass;
 *   - as in SWE-bench, FAIL_TO_PASS ∪ PASS_TO_PASS is exactly the set of tests in the touched test files
 *     that pass with the gold patch (nothing missing, nothing invented).
 * Results are read from pytest's `-rA` short summary, the way the SWE-bench harness reads them.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { checkInstance, filesOfPatch, parsePytestSummary, type InstanceCheck } from '../../src/minibench/validate.ts';

let tmp: string;
let build: MiniBenchBuild;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'minibench-instances-'));
  build = await buildMiniBenchmark(path.join(tmp, 'minibench'));
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('pytest summary parsing', () => {
  it('reads statuses, failure messages and parametrized ids', () => {
    const log = [
      '============ short test summary info ============',
      'PASSED tests/test_x.py::test_a',
      'PASSED tests/test_x.py::TestC::test_m',
      'FAILED tests/test_x.py::test_p[a-1] - AssertionError: assert 1 == 2',
      'ERROR tests/test_y.py - ImportError: cannot import name',
      '1 failed, 2 passed, 1 error in 0.01s',
    ].join('\n');
    expect([...parsePytestSummary(log)]).toEqual([
      ['tests/test_x.py::test_a', 'PASSED'],
      ['tests/test_x.py::TestC::test_m', 'PASSED'],
      ['tests/test_x.py::test_p[a-1]', 'FAILED'],
    ]);
  });

  it('lists the files of a patch', () => {
    const patch = 'diff --git a/tests/test_a.py b/tests/test_a.py\n--- a/x\n+++ b/x\ndiff --git a/tests/test_b.py b/tests/test_b.py\n';
    expect(filesOfPatch(patch)).toEqual(['tests/test_a.py', 'tests/test_b.py']);
  });
});

describe('every instance fails before and passes after its gold patch', () => {
  // Instance ids are known only after the build, so one test checks all of them (two at a time); the
  // problems name the instance and the test involved.
  it('FAIL_TO_PASS / PASS_TO_PASS hold with the host pytest, and are complete', async () => {
    const queue = [...build.instances];
    const checks: InstanceCheck[] = [];
    const workers = Array.from({ length: 2 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        checks.push(await checkInstance(next, build.mirrorsDir, path.join(tmp, 'checkouts', next.instance_id)));
      }
    });
    await Promise.all(workers);
    expect(checks.length).toBe(build.instances.length);
    expect(checks.flatMap((c) => c.problems)).toEqual([]);
    const byId = new Map(build.instances.map((i) => [i.instance_id, i]));
    for (const check of checks) {
      const instance = byId.get(check.instance_id)!;
      expect(check.derived.FAIL_TO_PASS.sort()).toEqual([...instance.FAIL_TO_PASS].sort());
      expect(check.derived.PASS_TO_PASS.sort()).toEqual([...instance.PASS_TO_PASS].sort());
      // Every FAIL_TO_PASS test really ran and failed (or errored) before the fix: a bug, not a typo'd id.
      for (const test of instance.FAIL_TO_PASS) expect(['FAILED', 'ERROR'], `${check.instance_id} ${test}`).toContain(check.before.get(test));
    }
    const lines = build.catalog.map((info) => {
      const instance = byId.get(info.instance_id)!;
      return `${info.instance_id.padEnd(24)} F2P ${String(instance.FAIL_TO_PASS.length).padStart(2)}  P2P ${String(instance.PASS_TO_PASS.length).padStart(2)}  gold: ${info.goldFiles.join(', ')}  — ${info.description}`;
    });
    console.info(`mini-benchmark instances:\n${lines.join('\n')}`);
  }, 900_000);

  it('detects a dishonest instance', async () => {
    const instance = build.instances.find((i) => i.instance_id === 'minibench__qty-7')!;
    const passing = instance.PASS_TO_PASS[0];
    const tampered = { ...instance, FAIL_TO_PASS: [...instance.FAIL_TO_PASS, passing], PASS_TO_PASS: instance.PASS_TO_PASS.slice(2) };
    const check = await checkInstance(tampered, build.mirrorsDir, path.join(tmp, 'tampered'));
    expect(check.problems).toContain(`minibench__qty-7: FAIL_TO_PASS ${passing} already passes before the fix`);
    expect(check.problems).toContain(`minibench__qty-7: ${instance.PASS_TO_PASS[1]} passes after the fix but is in neither list`);
  }, 300_000);
});
