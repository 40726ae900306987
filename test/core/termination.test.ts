/**
 * The terminating signals have one owner (src/util/termination.ts). Before it, every part that cleans up
 * re-raised a signal only when no other listener was left, and with proper-lockfile's signal-exit loaded too,
 * SIGTERM (scancel, a Slurm time limit) was swallowed: the run went on and reported its killed Docker
 * children as failures.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_LOCK_FILE } from '../../src/run/run-lock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const source = (file: string) => JSON.stringify(path.join(ROOT, file));
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** runs `code` (an ES module) in a fresh Node process; gives it 20 s at most */
function child(code: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 });
}

describe('terminating signals', () => {
  it('SIGTERM ends a process that holds a run lock and a file lock, and the run lock goes with it', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-term-'));
    const run = path.join(dir, 'run');
    const result = child(`import { acquireRunLock } from ${source('src/run/run-lock.ts')};
import { acquireFileLock } from ${source('src/util/file-lock.ts')};
acquireRunLock(${JSON.stringify(run)});
await acquireFileLock(${JSON.stringify(path.join(dir, 'cache'))});
console.log('held');
setTimeout(() => process.kill(process.pid, 'SIGTERM'), 50);
setTimeout(() => { console.log('survived SIGTERM'); process.exit(0); }, 3000);`);
    expect(result.stdout + result.stderr).toContain('held');
    expect(result.stdout).not.toContain('survived');
    expect(result.signal).toBe('SIGTERM');
    expect(existsSync(path.join(run, RUN_LOCK_FILE))).toBe(false);
  });

  it('a claimed SIGINT leaves cleanups alone; terminate awaits the slow ones, then ends by the signal', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-term-'));
    const marks = path.join(dir, 'marks');
    const result = child(`import { appendFileSync } from 'node:fs';
import { beforeSignalExit, claimSignal, onExit, terminate } from ${source('src/util/termination.ts')};
const mark = (m) => appendFileSync(${JSON.stringify(marks)}, m + '\\n');
onExit(() => mark('exit cleanup'));
beforeSignalExit(() => new Promise((resolve) => setTimeout(() => { mark('containers removed'); resolve(); }, 300)));
let presses = 0;
claimSignal('SIGINT', () => { presses++; mark('claimed ' + presses); if (presses === 2) terminate('SIGINT'); });
setTimeout(() => process.kill(process.pid, 'SIGINT'), 50);
setTimeout(() => process.kill(process.pid, 'SIGINT'), 300);
setTimeout(() => { mark('survived'); process.exit(0); }, 5000);`);
    expect(result.signal, result.stderr).toBe('SIGINT');
    expect(readFileSync(marks, 'utf8').trim().split('\n')).toEqual(['claimed 1', 'claimed 2', 'containers removed', 'exit cleanup']);
  });

  it('an unclaimed signal ends the process; a released claim no longer holds it', () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-term-'));
    const result = child(`import { claimSignal } from ${source('src/util/termination.ts')};
const release = claimSignal('SIGHUP', () => console.log('claimed'));
process.kill(process.pid, 'SIGHUP');
setTimeout(() => { release(); process.kill(process.pid, 'SIGHUP'); }, 100);
setTimeout(() => { console.log('survived'); process.exit(0); }, 3000);`);
    expect(result.stdout).toContain('claimed');
    expect(result.stdout).not.toContain('survived');
    expect(result.signal).toBe('SIGHUP');
  });
});
