/**
 * One process per run folder. Two processes writing the same run folder interleave artifacts made under
 * different settings (measured: MRR .670 → .467), so the second one refuses, naming the holder. The lock
 * is `<run>/.locfix.lock` ({pid, host, startedAt, argv}), created exclusively; a lock whose process is
 * gone (kill -9, a crash) on this host is stale and taken over. Within one process the lock is shared
 * (`locfix run` and the stages it runs), and it is removed when the last holder releases it or the
 * process exits.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onExit } from '../util/termination.ts';

export const RUN_LOCK_FILE = '.locfix.lock';

interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
  argv: string[];
  /** the cluster task that holds it (LOCFIX_TASK_ID, set by the task script of app/cluster/) */
  task?: string;
}

/**
 * A lock held by a cluster task on another host is stale when we are a cluster task too: the shard driver
 * submits a shard again only after the scheduler reports its previous task gone, and a scheduler requeues a
 * task only after it ended, so that holder died with its node (no signal, no cleanup) rather than still running.
 */
const staleTaskLock = (holder: LockInfo, me: LockInfo): boolean => Boolean(holder.task && me.task && holder.host !== me.host);

export class RunLockedError extends Error {
  constructor(
    readonly runDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `run folder ${runDir} is in use by process ${holder.pid} on ${holder.host} since ${holder.startedAt}` +
        `${holder.argv.length ? ` (locfix ${holder.argv.join(' ')})` : ''}: wait for it to finish, use another run id, ` +
        `or, if that process is gone, remove ${path.join(runDir, RUN_LOCK_FILE)}`,
    );
    this.name = 'RunLockedError';
  }
}

const held = new Map<string, number>();
let exitHookInstalled = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

function readLock(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined; // half-written or unreadable: treated as stale below
  }
}

export interface RunLock {
  release(): void;
}

/** Takes the run folder's lock (creating the folder); throws RunLockedError while another live process holds it. */
export function acquireRunLock(runDir: string): RunLock {
  const dir = path.resolve(runDir);
  const file = path.join(dir, RUN_LOCK_FILE);
  const count = held.get(dir);
  if (count !== undefined) {
    held.set(dir, count + 1);
    return handle(dir);
  }
  mkdirSync(dir, { recursive: true });
  const info: LockInfo = {
    pid: process.pid,
    host: os.hostname(),
    startedAt: new Date().toISOString(),
    argv: process.argv.slice(2),
    ...(process.env.LOCFIX_TASK_ID ? { task: process.env.LOCFIX_TASK_ID } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(info), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        const holder = readLock(file);
        if (holder) throw new RunLockedError(dir, holder);
        throw err;
      }
      const holder = readLock(file);
      if (holder && !staleTaskLock(holder, info) && (holder.host !== info.host || alive(holder.pid))) throw new RunLockedError(dir, holder);
      unlinkSync(file); // stale: its process is gone
    }
  }
  held.set(dir, 1);
  // removed however the process ends: normally, by an error, or by SIGTERM from a scheduler (scancel, a time limit)
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    onExit(() => {
      for (const lockedDir of held.keys()) removeLockFile(lockedDir);
    });
  }
  return handle(dir);
}

/** A holder's handle: releasing it twice releases once. */
function handle(dir: string): RunLock {
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      releaseRunLock(dir);
    },
  };
}

function removeLockFile(dir: string): void {
  const file = path.join(dir, RUN_LOCK_FILE);
  if (readLock(file)?.pid === process.pid) {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

function releaseRunLock(dir: string): void {
  const count = held.get(dir);
  if (count === undefined) return;
  if (count > 1) {
    held.set(dir, count - 1);
    return;
  }
  held.delete(dir);
  removeLockFile(dir);
}
