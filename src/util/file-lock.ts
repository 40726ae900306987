/**
 * A short-held lock between processes: for append-only caches shared by concurrent locfix processes
 * (embeddings, parsed files) and for starting one Chroma server per folder. proper-lockfile over the earlier
 * hand-written pid file: its lock is a directory created atomically and kept fresh by its holder, so a holder
 * that is gone (kill -9, a node of the cluster that died) is recognised by the lock going stale — a pid says
 * nothing on a shared filesystem, where the holder may be another machine's process.
 */
import { promises as fs } from 'node:fs';
import lockfile from 'proper-lockfile';

/** a lock not refreshed for this long belongs to a holder that is gone (proper-lockfile's minimum is 5 s) */
const STALE_MS = 10_000;

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `lockFile`, waiting while another holder keeps it fresh; resolves to the release function. */
export async function acquireFileLock(lockFile: string, options: { timeoutMs?: number; pollMs?: number; what?: string } = {}): Promise<() => Promise<void>> {
  const pollMs = options.pollMs ?? 20;
  const timeoutMs = options.timeoutMs ?? 120_000;
  await dropOldPidLock(lockFile);
  try {
    const release = await lockfile.lock(lockFile, {
      lockfilePath: lockFile,
      realpath: false,
      stale: STALE_MS,
      retries: { retries: Math.ceil(timeoutMs / pollMs), minTimeout: pollMs, maxTimeout: pollMs, factor: 1 },
      // a holder whose event loop stalled past STALE_MS may lose the lock; the work it guards is append-only
      // and checked on read, so this is reported rather than thrown from a timer
      onCompromised: (err) => process.stderr.write(`${options.what ?? lockFile}: lock lost while held (${err.message})\n`),
    });
    return async () => {
      await release().catch(() => undefined);
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new Error(
        `${options.what ?? lockFile}: locked by another process for more than ${Math.round(timeoutMs / 1000)} s; if it is gone, remove ${lockFile}`,
      );
    }
    throw err;
  }
}

/** Earlier versions held a regular file with the holder's pid here; one whose holder is gone is removed. */
async function dropOldPidLock(lockFile: string): Promise<void> {
  const stat = await fs.stat(lockFile).catch(() => undefined);
  if (!stat?.isFile()) return;
  const holder = Number(await fs.readFile(lockFile, 'utf8').catch(() => ''));
  if (!(Number.isInteger(holder) && holder > 0 && pidAlive(holder))) await fs.rm(lockFile, { force: true });
}

/** Runs `work` holding the lock. */
export async function withFileLock<T>(lockFile: string, work: () => Promise<T>, options?: Parameters<typeof acquireFileLock>[1]): Promise<T> {
  const release = await acquireFileLock(lockFile, options);
  try {
    return await work();
  } finally {
    await release();
  }
}
