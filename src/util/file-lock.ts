/**
 * A short-held lock between processes on one machine: `<file>.lock` created exclusively, holding the pid.
 * For append-only caches shared by concurrent locfix processes (embeddings, parsed files) and for starting
 * one Chroma server per folder: a holder that is gone (kill -9) leaves a stale lock, which is taken over.
 */
import { promises as fs } from 'node:fs';

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Creates `lockFile` exclusively, waiting while a live process holds it; resolves to the release function. */
export async function acquireFileLock(lockFile: string, options: { timeoutMs?: number; pollMs?: number; what?: string } = {}): Promise<() => Promise<void>> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const pollMs = options.pollMs ?? 20;
  for (;;) {
    try {
      await fs.writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lockFile, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = Number(await fs.readFile(lockFile, 'utf8').catch(() => ''));
    // an empty file is a holder between create and write: wait a poll, it is not stale yet
    if (Number.isInteger(holder) && holder > 0 && !pidAlive(holder)) {
      await fs.rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(`${options.what ?? lockFile}: locked by process ${holder || '?'} for too long; if it is gone, remove ${lockFile}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
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
