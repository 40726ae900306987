import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE, RUN_LOCK_HOLDER_FILE, RUN_LOCK_STALE_MS, RunLockedError, acquireRunLock } from '../../src/run/run-lock.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { runInstanceStage } from '../../src/run/stage-runner.ts';
import { stubRow } from '../support/rows.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** another process trying to take the lock: its exit code and what it printed */
function otherProcess(runDir: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const code = `import { acquireRunLock } from ${JSON.stringify(path.join(ROOT, 'src/run/run-lock.ts'))};
try { acquireRunLock(${JSON.stringify(runDir)}); console.log('acquired'); } catch (err) { console.log(err.message); process.exit(3); }`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** A lock as a holder that is not this process leaves it: the fresh lock folder, and who holds it (if it said). */
function leaveLock(runDir: string, holder?: Record<string, unknown>): void {
  rmSync(path.join(runDir, RUN_LOCK_FILE), { recursive: true, force: true });
  rmSync(path.join(runDir, RUN_LOCK_HOLDER_FILE), { force: true });
  mkdirSync(path.join(runDir, RUN_LOCK_FILE), { recursive: true });
  if (holder) writeFileSync(path.join(runDir, RUN_LOCK_HOLDER_FILE), JSON.stringify(holder));
}

describe('run-folder lock', () => {
  it('a second process refuses while the first holds the folder, naming the holder; it may take it once released', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'runs', 'r1');
    const lock = acquireRunLock(run);
    const refused = otherProcess(run);
    expect(refused.status).toBe(3);
    expect(refused.output).toContain(`run folder ${run} is in use by process ${process.pid} on ${os.hostname()}`);
    expect(refused.output).toContain(path.join(run, RUN_LOCK_FILE));
    // the same process may nest (locfix run and the stages it runs)
    const nested = acquireRunLock(run);
    nested.release();
    nested.release(); // a second release of one handle does nothing
    expect(existsSync(path.join(run, RUN_LOCK_FILE))).toBe(true);
    lock.release();
    expect(existsSync(path.join(run, RUN_LOCK_FILE))).toBe(false);
    expect(otherProcess(run)).toMatchObject({ status: 0, output: expect.stringContaining('acquired') });
    // and that process exited: its lock went with it
    expect(existsSync(path.join(run, RUN_LOCK_FILE))).toBe(false);
  });

  it('a lock left by a process that is gone (kill -9) on this host is taken over at once', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'r2');
    const gone = Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$" ; true'], { encoding: 'utf8' }).trim());
    leaveLock(run, { pid: gone, host: os.hostname(), startedAt: 'then', argv: [] });
    const lock = acquireRunLock(run);
    expect(JSON.parse(readFileSync(path.join(run, RUN_LOCK_HOLDER_FILE), 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path.join(run, RUN_LOCK_HOLDER_FILE))).toBe(false);
    // a fresh lock whose holder has not said who it is yet is respected
    leaveLock(run);
    expect(() => acquireRunLock(run)).toThrow(/in use by another process \(it has not said which yet\)/);
  });

  it('a lock on another host is respected while its holder refreshes it, and taken over once it goes stale', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'r5');
    const elsewhere = { pid: 1, host: 'elsewhere', startedAt: 'now', argv: ['run'] };
    leaveLock(run, elsewhere);
    expect(() => acquireRunLock(run)).toThrow(RunLockedError);
    expect(() => acquireRunLock(run)).toThrow(/in use by process 1 on elsewhere since now \(locfix run\)/);
    // before: a holder on another host was never stale, so a run whose node died stayed locked until removed by hand
    const past = new Date(Date.now() - RUN_LOCK_STALE_MS - 5_000);
    utimesSync(path.join(run, RUN_LOCK_FILE), past, past);
    const lock = acquireRunLock(run);
    expect(JSON.parse(readFileSync(path.join(run, RUN_LOCK_HOLDER_FILE), 'utf8')).host).toBe(os.hostname());
    lock.release();
  });

  it("an earlier version's lock file: taken over when its process is gone or it is garbled, respected otherwise", () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'r6');
    const gone = Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$" ; true'], { encoding: 'utf8' }).trim());
    mkdirSync(run, { recursive: true });
    writeFileSync(path.join(run, RUN_LOCK_FILE), JSON.stringify({ pid: gone, host: os.hostname(), startedAt: 'then', argv: [] }));
    acquireRunLock(run).release();
    writeFileSync(path.join(run, RUN_LOCK_FILE), '{"pid": 1');
    acquireRunLock(run).release();
    writeFileSync(path.join(run, RUN_LOCK_FILE), JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: 'now', argv: ['run'] }));
    expect(() => acquireRunLock(run)).toThrow(/in use by process 1 on elsewhere since now \(locfix run\)/);
  });

  it('a cluster task takes over a lock another task left on a host that died; a plain process does not', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'r3');
    const left = { pid: 1, host: 'node-that-died', startedAt: 'then', argv: ['run'], task: '12_3' };
    leaveLock(run, left);
    expect(otherProcess(run).status).toBe(3);
    expect(otherProcess(run, { LOCFIX_TASK_ID: '14_3' })).toMatchObject({ status: 0, output: expect.stringContaining('acquired') });
    // a holder that is not a task (someone's interactive run on another host) is still respected
    leaveLock(run, { ...left, task: undefined });
    expect(otherProcess(run, { LOCFIX_TASK_ID: '14_3' }).status).toBe(3);
  });

  it('SIGTERM (scancel, a time limit) removes the lock before the process ends', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'r4');
    const code = `import { acquireRunLock } from ${JSON.stringify(path.join(ROOT, 'src/run/run-lock.ts'))};
acquireRunLock(${JSON.stringify(run)}); console.log('held'); setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50); setTimeout(() => {}, 10000);`;
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
    expect(result.stdout).toContain('held');
    expect(result.signal).toBe('SIGTERM');
    expect(existsSync(path.join(run, RUN_LOCK_FILE))).toBe(false);
  });
});

describe('fencing: a holder that lost the lock writes no more (issue 52)', () => {
  const row = stubRow;

  it('paused past the stale time, its lock taken over by another process: its next artifact is refused, with why', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-lock-'));
    const run = path.join(dir, 'fenced');
    const lock = acquireRunLock(run);
    const layout = new RunLayout(run);
    expect((await runInstanceStage(layout, 'repair', row('a__b-1'), async () => ({ patch: 'x' }))).artifact.status).toBe('ok');
    // a pause (a suspended job, a VM) as the other process sees it: the lock not refreshed for longer than the stale time
    const then = new Date(Date.now() - 2 * RUN_LOCK_STALE_MS);
    utimesSync(path.join(run, RUN_LOCK_FILE), then, then);
    const code = `import { acquireRunLock } from ${JSON.stringify(path.join(ROOT, 'src/run/run-lock.ts'))};
acquireRunLock(${JSON.stringify(run)}); console.log('acquired'); setTimeout(() => {}, 60000);`;
    const other = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise<void>((resolve, reject) => {
        other.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('acquired') && resolve());
        other.once('exit', (status) => reject(new Error(`the other process ended (${status}) without the lock`)));
      });
      await expect(runInstanceStage(layout, 'repair', row('a__b-2'), async () => ({ patch: 'y' }))).rejects.toThrow(
        new RegExp(`lock of run folder .* was lost while this process held it \\(now held by process ${other.pid} on `),
      );
      expect(existsSync(layout.artifactPath('repair', 'a__b-2'))).toBe(false);
    } finally {
      other.kill('SIGKILL');
      lock.release();
    }
  });
});
