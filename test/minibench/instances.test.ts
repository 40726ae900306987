/**
 * The bugs of the mini-benchmark are real and its tests honest: for every instance, in a fresh checkout of
 * the base commit from the published mirror, with the host's `python3 -m pytest`:
 *   - test_patch applied: every FAIL_TO_PASS test fails, every PASS_TO_PASS test passes;
 *   - gold patch applied too: all of them pass;
 *   - as in SWE-bench, FAIL_TO_PASS ∪ PASS_TO_PASS is exactly the set of tests in the touched test files
 *     that pass with the gold patch (nothing missing, nothing invented).
 * Results are read from pytest's `-rA` short summary, the way the SWE-bench harness reads them.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMiniBenchmark, type MiniBenchBuild, type MiniBenchInstanceInfo } from '../../src/minibench/build.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function exec(cmd: string, args: string[], cwd: string, input?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(
      cmd,
      args,
      { cwd, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_ADDOPTS: '' } },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    child.stdin?.on('error', () => {}); // commands that ignore their input may close it early
    child.stdin?.end(input ?? '');
  });
}

async function mustRun(cmd: string, args: string[], cwd: string, input?: string): Promise<string> {
  const out = await exec(cmd, args, cwd, input);
  if (out.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${out.code}): ${out.stderr || out.stdout}`);
  return out.stdout;
}

/** Test files a patch touches, as the harness derives its test directives. */
function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/.+? b\/(.+)$/gm)].map((m) => m[1]);
}

/** Status per node id from pytest's `-rA` short summary ("PASSED id", "FAILED id - message", ...). */
export function parsePytestSummary(log: string): Map<string, string> {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)/.exec(line);
    if (match && match[2].includes('::')) statuses.set(match[2], match[1]);
  }
  return statuses;
}

async function runTests(checkout: string, testFiles: string[]): Promise<{ statuses: Map<string, string>; log: string }> {
  const out = await exec('python3', ['-m', 'pytest', '-rA', '--tb=no', '-p', 'no:cacheprovider', ...testFiles], checkout);
  return { statuses: parsePytestSummary(out.stdout), log: out.stdout + out.stderr };
}

let tmp: string;
let build: MiniBenchBuild;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'minibench-instances-'));
  build = await buildMiniBenchmark(path.join(tmp, 'minibench'));
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

it('parses -rA summaries including failure messages and parametrized ids', () => {
  const log = [
    'PASSED tests/test_x.py::test_a',
    'PASSED tests/test_x.py::TestC::test_m',
    'FAILED tests/test_x.py::test_p[a-1] - AssertionError: assert 1 == 2',
    'ERROR tests/test_y.py - ImportError',
    '1 failed, 2 passed in 0.01s',
  ].join('\n');
  expect([...parsePytestSummary(log)]).toEqual([
    ['tests/test_x.py::test_a', 'PASSED'],
    ['tests/test_x.py::TestC::test_m', 'PASSED'],
    ['tests/test_x.py::test_p[a-1]', 'FAILED'],
  ]);
});

describe('every instance fails before and passes after its gold patch', () => {
  // Instance ids are known only after the build; one test checks all of them (two at a time), and reports
  // each instance's verdict so a failure names the instance and the tests involved.
  it('FAIL_TO_PASS / PASS_TO_PASS hold with the host pytest', async () => {
    const report: string[] = [];
    const problems: string[] = [];

    async function check(instance: SweInstance, info: MiniBenchInstanceInfo): Promise<void> {
      const checkout = path.join(tmp, 'checkouts', instance.instance_id);
      const mirror = path.join(build.mirrorsDir, instance.repo.replace('/', '+'), 'repo');
      await mustRun('git', ['clone', '-q', '--no-checkout', mirror, checkout], tmp);
      await mustRun('git', ['checkout', '-q', '--detach', instance.base_commit], checkout);
      const testFiles = patchFiles(instance.test_patch);
      await mustRun('git', ['apply', '-'], checkout, instance.test_patch);
      const before = await runTests(checkout, testFiles);
      await mustRun('git', ['apply', '-'], checkout, instance.patch);
      const after = await runTests(checkout, testFiles);

      const id = instance.instance_id;
      for (const test of instance.FAIL_TO_PASS) {
        if (before.statuses.get(test) === 'PASSED') problems.push(`${id}: FAIL_TO_PASS ${test} passes before the fix`);
        if (after.statuses.get(test) !== 'PASSED') problems.push(`${id}: FAIL_TO_PASS ${test} is ${after.statuses.get(test) ?? 'missing'} after the fix`);
      }
      for (const test of instance.PASS_TO_PASS) {
        if (before.statuses.get(test) !== 'PASSED') problems.push(`${id}: PASS_TO_PASS ${test} is ${before.statuses.get(test) ?? 'missing'} before the fix`);
        if (after.statuses.get(test) !== 'PASSED') problems.push(`${id}: PASS_TO_PASS ${test} is ${after.statuses.get(test) ?? 'missing'} after the fix`);
      }
      const declared = new Set([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]);
      const passingAfter = [...after.statuses].filter(([, s]) => s === 'PASSED').map(([t]) => t);
      for (const test of passingAfter) if (!declared.has(test)) problems.push(`${id}: ${test} passes after the fix but is not declared`);
      if (after.statuses.size === 0) problems.push(`${id}: pytest reported nothing:\n${after.log.slice(-2000)}`);
      report.push(
        `${id.padEnd(24)} F2P ${String(instance.FAIL_TO_PASS.length).padStart(2)}  P2P ${String(instance.PASS_TO_PASS.length).padStart(2)}  ` +
          `gold: ${info.goldFiles.join(', ')}  — ${info.description}`,
      );
    }

    const queue = build.instances.map((instance, index) => ({ instance, info: build.catalog[index] }));
    for (const { instance, info } of queue) expect(info.instance_id).toBe(instance.instance_id);
    const workers = Array.from({ length: 2 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await check(next.instance, next.info);
    });
    await Promise.all(workers);
    console.info(`mini-benchmark instances:\n${report.sort().join('\n')}`);
    expect(problems).toEqual([]);
    expect(report.length).toBe(build.instances.length);
  }, 600_000);
});
