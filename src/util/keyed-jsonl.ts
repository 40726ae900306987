/**
 * A cache file of JSON lines, each a record with a string `key`, shared by concurrent processes: the read
 * at open and every append hold `<file>.lock`, so no process reads another's half-written line or appends
 * after a torn one. A last line without its newline (a crash mid-append) is cut off the file at open; a
 * line that does not parse is skipped (its record is computed again). Callers keep the encoding: this
 * stores lines by key and appends the new ones on flush.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { withFileLock } from './file-lock.ts';

export class KeyedJsonlFile {
  private readonly lines = new Map<string, string>();
  private pending: string[] = [];

  private constructor(
    readonly file: string,
    private readonly what: string,
  ) {}

  /** `what` names the cache in lock-timeout messages ("parsed-file cache …") */
  static async open(file: string, what: string): Promise<KeyedJsonlFile> {
    const store = new KeyedJsonlFile(file, what);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const text = await withFileLock(`${file}.lock`, () => readComplete(file), { what: `${what} ${file}` });
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        const key = (JSON.parse(line) as { key?: unknown }).key;
        if (typeof key === 'string') store.lines.set(key, line);
      } catch {
        // torn or corrupt: computed again
      }
    }
    return store;
  }

  get size(): number {
    return this.lines.size;
  }

  get(key: string): string | undefined {
    return this.lines.get(key);
  }

  has(key: string): boolean {
    return this.lines.has(key);
  }

  /** forgets a line that turned out unreadable (it stays in the file; a later `add` appends a good one) */
  forget(key: string): void {
    this.lines.delete(key);
  }

  /** keeps `line` (a JSON record whose `key` is `key`) and appends it at the next flush; a known key is ignored */
  add(key: string, line: string): void {
    if (this.lines.has(key)) return;
    this.lines.set(key, line);
    this.pending.push(line);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const out = `${this.pending.join('\n')}\n`;
    this.pending = [];
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await withFileLock(`${this.file}.lock`, () => fs.appendFile(this.file, out), { what: `${this.what} ${this.file}` });
  }
}

/** The file's complete lines; a last line without its newline is cut off the file. */
async function readComplete(file: string): Promise<string> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
  if (text && !text.endsWith('\n')) {
    const complete = text.slice(0, text.lastIndexOf('\n') + 1);
    await fs.truncate(file, Buffer.byteLength(complete));
    return complete;
  }
  return text;
}
