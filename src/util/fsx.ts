/**
 * File helpers for persisted stage artifacts.
 *
 * Every artifact is written atomically (temp file in the same folder + fsync + rename), so a run that is
 * killed at any moment leaves either the old file or the new one, never a torn one. That property is what
 * lets every stage resume by "does the output file exist?".
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

function tempSibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = tempSibling(file);
  try {
    const handle = await fs.open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    // a write that failed (a full disk) leaves no half-written or empty temp file behind
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

/** Reads and parses a JSON file; `undefined` when it does not exist (any other error is thrown). */
export async function readJsonIfExists<T>(file: string): Promise<T | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as T;
}

export async function pathExists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

/** Writes JSONL atomically (whole file), one compact JSON value per line. */
export async function writeJsonlAtomic(file: string, rows: readonly unknown[]): Promise<void> {
  await writeFileAtomic(file, rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''));
}

/** Instance ids become file names; keep them safe for every filesystem without losing uniqueness. */
export function safeFileName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
