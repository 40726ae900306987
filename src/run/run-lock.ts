/**
 * One process per run folder. Two processes writing the same run folder interleave artifacts made under
 * different settings (measured: MRR .670 → .467), so the second one refuses, naming the holder.
 *
 * The lock is proper-lockfile's: `<run>/.locfix.lock`, a folder made atomically and kept fresh by its holder,
 * so a holder that is gone without a trace — kill -9, a node of a cluster that died, on any host sharing the
 * filesystem — is recognised by the lock going stale (not refreshed for STALE_MS). Who holds it is written
 * beside it (`.locfix.lock.json`: pid, host, since, argv) for the refusal's message, and lets a holder on this
 * host whose process is gone be taken over at once rather than after STALE_MS. Within one process the lock is
 * shared (`locfix run` and the stages it runs), and it is removed when the last holder releases it or the
 * process exits. The hand-written pid file this replaces could not tell a dead holder on another host from a
 * live one, so such a lock stayed until someone removed it.
 */
import { mkdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { pidAlive } from '../util/file-lock.ts';
import { onExit } from '../util/termination.ts';

export const RUN_LOCK_FILE = '.locfix.lock';
/** who holds the lock, beside it */
export const RUN_LOCK_HOLDER_FILE = '.locfix.lock.json';
/** a lock not refreshed for this long belongs to a holder that is gone (it is refreshed every STALE_MS / 2) */
export const RUN_LOCK_STALE_MS = 30_000;

export interface LockInfo {
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

/** A holder that is certainly gone without waiting for its lock to go stale. */
const goneHolder = (holder: LockInfo, me: LockInfo): boolean => (holder.host === me.host && !pidAlive(holder.pid)) || staleTaskLock(holder, me);

export class RunLockedError extends Error {
  constructor(
    readonly runDir: string,
    readonly holder: LockInfo | undefined,
  ) {
    const who = holder
      ? `process ${holder.pid} on ${holder.host} since ${holder.startedAt}${holder.argv.length ? ` (locfix ${holder.argv.join(' ')})` : ''}`
      : 'another process (it has not said which yet)';
    super(
      `run folder ${runDir} is in use by ${who}: wait for it to finish, use another run id, or, if that process is gone, ` +
        `remove ${path.join(runDir, RUN_LOCK_FILE)} (a lock nobody refreshes is taken over after ${RUN_LOCK_STALE_MS / 1000} s)`,
    );
    this.name = 'RunLockedError';
  }
}

interface Held {
  count: number;
  release: () => void;
  /** who this process wrote into the holder file when it took the lock */
  me: LockInfo;
  holderPath: string;
  /** proper-lockfile saw the lock taken or gone while held */
  compromised?: string;
}
const held = new Map<string, Held>();
let exitHookInstalled = false;

function readHolder(file: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined; // not written yet, half-written or unreadable
  }
}

export interface RunLock {
  release(): void;
}

/** Takes the run folder's lock (creating the folder); throws RunLockedError while another live process holds it. */
export function acquireRunLock(runDir: string): RunLock {
  const dir = path.resolve(runDir);
  const existing = held.get(dir);
  if (existing) {
    existing.count++;
    return handle(dir);
  }
  mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, RUN_LOCK_FILE);
  const holderPath = path.join(dir, RUN_LOCK_HOLDER_FILE);
  const me: LockInfo = {
    pid: process.pid,
    host: os.hostname(),
    startedAt: new Date().toISOString(),
    argv: process.argv.slice(2),
    ...(process.env.LOCFIX_TASK_ID ? { task: process.env.LOCFIX_TASK_ID } : {}),
  };
  dropEarlierFileLock(dir, lockPath, me);
  let release: () => void;
  for (let attempt = 0; ; attempt++) {
    try {
      release = lockfile.lockSync(dir, {
        lockfilePath: lockPath,
        realpath: false,
        stale: RUN_LOCK_STALE_MS,
        // a holder whose event loop stalled past the stale time may have lost the lock to another process
        onCompromised: (err) => {
          const lock = held.get(dir);
          if (lock) lock.compromised = err.message;
          process.stderr.write(`run folder ${dir}: lock lost while held (${err.message}); this process writes no more there\n`);
        },
      });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      const holder = readHolder(holderPath);
      if (attempt > 0 || !holder || !goneHolder(holder, me)) throw new RunLockedError(dir, holder);
      rmSync(lockPath, { recursive: true, force: true }); // its process is gone: taken over now
    }
  }
  writeFileSync(holderPath, JSON.stringify(me));
  held.set(dir, { count: 1, release: () => releaseLock(holderPath, release), me, holderPath });
  // removed however the process ends: normally, by an error, or by SIGTERM from a scheduler (scancel, a time limit)
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    onExit(() => {
      for (const lock of held.values()) lock.release();
      held.clear();
    });
  }
  return handle(dir);
}

/**
 * Earlier versions held a regular file here with the holder's JSON: one whose process is gone (or that is
 * unreadable) is removed; one whose holder lives, or may live on another host, is respected.
 */
function dropEarlierFileLock(dir: string, lockPath: string, me: LockInfo): void {
  const stat = statSync(lockPath, { throwIfNoEntry: false });
  if (!stat?.isFile()) return;
  const holder = readHolder(lockPath);
  if (holder && !goneHolder(holder, me)) throw new RunLockedError(dir, holder);
  rmSync(lockPath, { force: true });
}

function releaseLock(holderPath: string, release: () => void): void {
  if (readHolder(holderPath)?.pid === process.pid) {
    try {
      unlinkSync(holderPath);
    } catch {
      // already gone
    }
  }
  try {
    release();
  } catch {
    // already released, or taken over after it went stale
  }
}

export class RunLockLostError extends Error {
  constructor(
    readonly runDir: string,
    why: string,
  ) {
    super(
      `the lock of run folder ${runDir} was lost while this process held it (${why}): another process may be writing it now, so this one ` +
        'stops without writing more; rerun once that process is done (a pause longer than ' +
        `${RUN_LOCK_STALE_MS / 1000} s, such as a suspended job or VM, lets another take the lock over)`,
    );
    this.name = 'RunLockLostError';
  }
}

/**
 * The fence before a write into a run folder this process has locked: the lock must still be ours (proper-lockfile
 * saw no compromise, and the holder file still names this process; a process that took a stale lock over writes its
 * own). Throws RunLockLostError otherwise. A folder this process holds no lock for is not checked.
 */
export function assertRunLockHeld(runDir: string): void {
  const lock = held.get(path.resolve(runDir));
  if (!lock) return;
  if (lock.compromised) throw new RunLockLostError(runDir, lock.compromised);
  const holder = readHolder(lock.holderPath);
  if (!holder || holder.pid !== lock.me.pid || holder.host !== lock.me.host || holder.startedAt !== lock.me.startedAt) {
    const who = holder ? `now held by process ${holder.pid} on ${holder.host} since ${holder.startedAt}` : 'its holder file is gone';
    throw new RunLockLostError(runDir, who);
  }
}

/** A holder's handle: releasing it twice releases once. */
function handle(dir: string): RunLock {
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      const lock = held.get(dir);
      if (!lock) return;
      if (--lock.count > 0) return;
      held.delete(dir);
      lock.release();
    },
  };
}
