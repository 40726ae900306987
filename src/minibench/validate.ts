/**
 * Checks a mini-benchmark instance the way SWE-bench validates its instances: in a fresh checkout of the
 * base commit, run the test files named by the test patch before and after the gold patch, read pytest's
 * `-rA` summary, and compare with FAIL_TO_PASS / PASS_TO_PASS. It also derives the lists the instance
 * *should* declare, which is how new fixture instances get their lists (`build-minibench.ts --check`).
 *
 * This runs the project's own tests on the host, so it is meant for the bundled fixtures only — never for
 * model-written code.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../dataset/schema.ts';

export type TestStatus = 'PASSED' | 'FAILED' | 'ERROR' | 'SKIPPED' | 'XFAIL' | 'XPASS';

export interface InstanceCheck {
  instance_id: string;
  /** Status per pytest node id with the test patch only, and with test patch + gold patch. */
  before: Map<string, TestStatus>;
  after: Map<string, TestStatus>;
  /** Lists derived from the runs: fail (or are absent) before and pass after / pass in both. */
  derived: { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] };
  /** Human-readable disagreements with the declared lists; empty when the instance is honest. */
  problems: string[];
}

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
      { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_ADDOPTS: '' } },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    child.stdin?.on('error', () => {}); // commands that ignore their input may close it early
    child.stdin?.end(input ?? '');
  });
}

async function mustRun(cmd: string, args: string[], cwd: string, input?: string): Promise<void> {
  const out = await exec(cmd, args, cwd, input);
  if (out.code !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed with ${out.code}: ${(out.stderr || out.stdout).trim()}`);
}

/** Files a patch touches, in order (the harness' test directives for a test patch). */
export function filesOfPatch(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/.+? b\/(.+)$/gm)].map((m) => m[1]);
}

/** Status per node id from pytest's `-rA` short summary (`PASSED id`, `FAILED id - message`, …). */
export function parsePytestSummary(log: string): Map<string, TestStatus> {
  const statuses = new Map<string, TestStatus>();
  for (const line of log.split('\n')) {
    const match = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)/.exec(line);
    if (match?.[2].includes('::')) statuses.set(match[2], match[1] as TestStatus);
  }
  return statuses;
}

/**
 * Checks one instance in `workDir` (created; must not exist yet) against the bare mirror in `mirrorsDir`.
 * Throws only when the checkout or a patch cannot be applied; test outcomes land in `problems`.
 */
export async function checkInstance(instance: SweInstance, mirrorsDir: string, workDir: string, python: string = 'python3'): Promise<InstanceCheck> {
  const mirror = path.join(mirrorsDir, instance.repo.replace('/', '+'), 'repo');
  await fs.mkdir(path.dirname(workDir), { recursive: true });
  await mustRun('git', ['clone', '-q', '--no-checkout', mirror, workDir], path.dirname(workDir));
  await mustRun('git', ['checkout', '-q', '--detach', instance.base_commit], workDir);
  const testFiles = filesOfPatch(instance.test_patch);
  const pytest = async (): Promise<{ statuses: Map<string, TestStatus>; log: string }> => {
    const out = await exec(python, ['-m', 'pytest', '-rA', '--tb=no', '-p', 'no:cacheprovider', ...testFiles], workDir);
    return { statuses: parsePytestSummary(out.stdout), log: `${out.stdout}${out.stderr}` };
  };
  await mustRun('git', ['apply', '-'], workDir, instance.test_patch);
  const before = await pytest();
  await mustRun('git', ['apply', '-'], workDir, instance.patch);
  const after = await pytest();

  const id = instance.instance_id;
  const problems: string[] = [];
  const status = (map: Map<string, TestStatus>, test: string) => map.get(test) ?? 'missing';
  for (const test of instance.FAIL_TO_PASS) {
    if (before.statuses.get(test) === 'PASSED') problems.push(`${id}: FAIL_TO_PASS ${test} already passes before the fix`);
    if (after.statuses.get(test) !== 'PASSED') problems.push(`${id}: FAIL_TO_PASS ${test} is ${status(after.statuses, test)} after the fix`);
  }
  for (const test of instance.PASS_TO_PASS) {
    if (before.statuses.get(test) !== 'PASSED') problems.push(`${id}: PASS_TO_PASS ${test} is ${status(before.statuses, test)} before the fix`);
    if (after.statuses.get(test) !== 'PASSED') problems.push(`${id}: PASS_TO_PASS ${test} is ${status(after.statuses, test)} after the fix`);
  }
  const declared = new Set([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS]);
  const passingAfter = [...after.statuses].filter(([, s]) => s === 'PASSED').map(([test]) => test);
  for (const test of passingAfter) {
    if (!declared.has(test)) problems.push(`${id}: ${test} passes after the fix but is in neither list`);
  }
  if (after.statuses.size === 0) problems.push(`${id}: pytest reported no results; log tail:\n${after.log.slice(-2000)}`);
  return {
    instance_id: id,
    before: before.statuses,
    after: after.statuses,
    derived: {
      FAIL_TO_PASS: passingAfter.filter((test) => before.statuses.get(test) !== 'PASSED'),
      PASS_TO_PASS: passingAfter.filter((test) => before.statuses.get(test) === 'PASSED'),
    },
    problems,
  };
}
