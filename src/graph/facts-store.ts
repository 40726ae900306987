/**
 * File facts on disk, next to the index's parsed files: one JSONL file per repository and facts version,
 * one line per (blob, path). The blob id is git's hash of the content, so a line is valid for exactly the
 * content it was computed from; the version key hashes the reference queries and FACTS_VERSION, so a
 * changed query invalidates every line instead of mixing old and new facts. Appends and the read at open
 * hold `<file>.lock`; a line torn by a crash is skipped (that file is parsed again).
 */
import { createHash } from 'node:crypto';
import { promises as fs, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reference } from '../parsing/references.ts';
import type { Definition } from '../parsing/types.ts';
import { withFileLock } from '../util/file-lock.ts';
import { safeFileName } from '../util/fsx.ts';
import type { FileFacts } from './file-facts.ts';

/** bump when the same content can give different facts for a reason the queries do not show */
export const FACTS_VERSION = 1;

let versionKey: string | undefined;
/** FACTS_VERSION and the content of every query file, hashed */
export function factsVersionKey(): string {
  if (versionKey) return versionKey;
  const dir = fileURLToPath(new URL('../parsing/languages/queries/', import.meta.url));
  const hash = createHash('sha256').update(`facts:${FACTS_VERSION}\n`);
  for (const file of readdirSync(dir).sort()) hash.update(`${file}\n`).update(readFileSync(path.join(dir, file)));
  versionKey = hash.digest('hex').slice(0, 16);
  return versionKey;
}

interface StoredFacts {
  key: string;
  d: [name: string, qualifiedName: string, kind: Definition['kind'], startLine: number, endLine: number][];
  r: [kind: Reference['kind'], name: string, line: number, index: number][];
}

export class FactsStore {
  private readonly lines = new Map<string, string>();
  private pending: string[] = [];

  private constructor(readonly file: string) {}

  static fileFor(cacheDir: string, repo: string): string {
    return path.join(cacheDir, 'graph', safeFileName(repo), `facts-${factsVersionKey()}.jsonl`);
  }

  static async open(file: string): Promise<FactsStore> {
    const store = new FactsStore(file);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const text = await withFileLock(
      `${file}.lock`,
      () => fs.readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? '' : Promise.reject(e))),
      {
        what: `graph facts cache ${file}`,
      },
    );
    for (const line of text.split('\n')) {
      if (!line) continue;
      try {
        store.lines.set((JSON.parse(line) as StoredFacts).key, line);
      } catch {
        // torn or corrupt: parsed again
      }
    }
    return store;
  }

  restore(blob: string, filePath: string): FileFacts | undefined {
    const key = `${blob}\0${filePath}`;
    const line = this.lines.get(key);
    if (!line) return undefined;
    try {
      const rec = JSON.parse(line) as StoredFacts;
      return {
        path: filePath,
        definitions: rec.d.map(([name, qualifiedName, kind, startLine, endLine]) => ({ path: filePath, name, qualifiedName, kind, startLine, endLine })),
        references: rec.r.map(([kind, name, line, index]) => ({ kind, name, line, index })),
      };
    } catch {
      this.lines.delete(key);
      return undefined;
    }
  }

  add(blob: string, facts: FileFacts): void {
    const key = `${blob}\0${facts.path}`;
    if (this.lines.has(key)) return;
    const rec: StoredFacts = {
      key,
      d: facts.definitions.map((d) => [d.name, d.qualifiedName, d.kind, d.startLine, d.endLine]),
      r: facts.references.map((r) => [r.kind, r.name, r.line, r.index]),
    };
    const line = JSON.stringify(rec);
    this.lines.set(key, line);
    this.pending.push(line);
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const out = `${this.pending.join('\n')}\n`;
    this.pending = [];
    await withFileLock(
      `${this.file}.lock`,
      async () => {
        // a torn last line of an earlier crash would swallow this append's first line: start on a new line
        const size = await fs.stat(this.file).then(
          (s) => s.size,
          () => 0,
        );
        const prefix = size > 0 && !(await lastByteIsNewline(this.file, size)) ? '\n' : '';
        await fs.appendFile(this.file, prefix + out);
      },
      { what: `graph facts cache ${this.file}` },
    );
  }
}

async function lastByteIsNewline(file: string, size: number): Promise<boolean> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(1);
    await handle.read(buf, 0, 1, size - 1);
    return buf[0] === 0x0a;
  } finally {
    await handle.close();
  }
}
