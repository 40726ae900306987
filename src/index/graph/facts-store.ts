/**
 * File facts on disk, next to the index's parsed files: one JSONL file per repository and facts version,
 * one line per (blob, path). The blob id is git's hash of the content, so a line is valid for exactly the
 * content it was computed from; the version key hashes the reference queries and FACTS_VERSION, so a
 * changed query invalidates every line instead of mixing old and new facts. Shared by processes through
 * KeyedJsonlFile (reads and appends under a lock; a line torn by a crash is cut and that file parsed again).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES } from '../../languages/index.ts';
import type { Reference } from '../../parsing/references.ts';
import type { Definition } from '../../parsing/types.ts';
import { safeFileName } from '../../util/fsx.ts';
import { KeyedJsonlFile } from '../../util/keyed-jsonl.ts';
import type { FileFacts } from './file-facts.ts';

/** bump when the same content can give different facts for a reason the queries do not show */
export const FACTS_VERSION = 1;

let versionKey: string | undefined;
/** FACTS_VERSION and the content of every language's query files, hashed */
export function factsVersionKey(): string {
  if (versionKey) return versionKey;
  // by file name, as when the queries shared one folder: caches made then stay valid
  const queries = new Map(LANGUAGES.flatMap((l) => [l.tags, l.references].flatMap((q) => (q ? [[q, path.join(l.folder, q)] as const] : []))));
  const hash = createHash('sha256').update(`facts:${FACTS_VERSION}\n`);
  for (const [name, file] of [...queries].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${name}\n`).update(readFileSync(file));
  versionKey = hash.digest('hex').slice(0, 16);
  return versionKey;
}

interface StoredFacts {
  key: string;
  d: [name: string, qualifiedName: string, kind: Definition['kind'], startLine: number, endLine: number][];
  r: [kind: Reference['kind'], name: string, line: number, index: number][];
}

export class FactsStore {
  private constructor(private readonly lines: KeyedJsonlFile) {}

  get file(): string {
    return this.lines.file;
  }

  static fileFor(cacheDir: string, repo: string): string {
    return path.join(cacheDir, 'graph', safeFileName(repo), `facts-${factsVersionKey()}.jsonl`);
  }

  static async open(file: string): Promise<FactsStore> {
    return new FactsStore(await KeyedJsonlFile.open(file, 'graph facts cache'));
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
      this.lines.forget(key);
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
    this.lines.add(key, JSON.stringify(rec));
  }

  flush(): Promise<void> {
    return this.lines.flush();
  }
}
