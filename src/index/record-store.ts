/**
 * Parsed files on disk, so a new process does not parse again what an earlier one parsed: one JSONL file
 * per (repository, parser), one line per (blob, path), appended as files are parsed.
 *
 * Chunk texts are not stored when they are "first line + the chunk's source lines" (what the tree-sitter
 * chunker produces); they are rebuilt from the blob, which the index reads anyway. Other texts are stored
 * verbatim. Term vectors are not stored: tokenizing is cheap next to parsing and their ids are per process.
 *
 * Shared by concurrent processes through KeyedJsonlFile (reads and appends under a lock, torn lines cut).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CodeChunk, Definition } from '../parsing/types.ts';
import { safeFileName } from '../util/fsx.ts';
import { KeyedJsonlFile } from '../util/keyed-jsonl.ts';

interface StoredChunk {
  s: number;
  e: number;
  k: string;
  y?: string;
  /** verbatim text when it cannot be rebuilt from the lines */
  t?: string;
}

interface StoredRecord {
  /** blob + "\0" + path */
  key: string;
  /** first line of rebuilt chunk texts (the path line) */
  h?: string;
  c: StoredChunk[];
  d: [name: string, qualifiedName: string, kind: Definition['kind'], startLine: number, endLine: number][];
  err?: string;
}

export interface RestoredFile {
  chunks: CodeChunk[];
  definitions: Definition[];
  parseError?: string;
}

/** lines of `content` as the chunker sees them: '\n'-separated, CRs dropped, 1-based inclusive range */
function linesText(lines: readonly string[], startLine: number, endLine: number): string {
  return lines.slice(startLine - 1, endLine).join('\n');
}

function splitLines(content: string): string[] {
  const lines = content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === '' && content.endsWith('\n')) lines.pop();
  return lines;
}

export class FileRecordStore {
  private constructor(private readonly lines: KeyedJsonlFile) {}

  get file(): string {
    return this.lines.file;
  }

  static fileFor(cacheDir: string, repo: string, parserId: string): string {
    const parserKey = createHash('sha256').update(parserId).digest('hex').slice(0, 16);
    return path.join(cacheDir, 'index', safeFileName(repo), `files-${parserKey}.jsonl`);
  }

  static async open(file: string): Promise<FileRecordStore> {
    return new FileRecordStore(await KeyedJsonlFile.open(file, 'parsed-file cache'));
  }

  get size(): number {
    return this.lines.size;
  }

  /** the parsed file for (blob, path), or undefined when absent or unreadable */
  restore(blob: string, filePath: string, content: string): RestoredFile | undefined {
    const key = `${blob}\0${filePath}`;
    const line = this.lines.get(key);
    if (!line) return undefined;
    let rec: StoredRecord;
    try {
      rec = JSON.parse(line) as StoredRecord;
    } catch {
      this.lines.forget(key);
      return undefined;
    }
    const lines = rec.c.some((c) => c.t === undefined) ? splitLines(content) : [];
    const chunks: CodeChunk[] = rec.c.map((c) => ({
      path: filePath,
      startLine: c.s,
      endLine: c.e,
      text: c.t ?? `${rec.h}\n${linesText(lines, c.s, c.e)}`,
      kind: c.k,
      ...(c.y !== undefined ? { symbol: c.y } : {}),
    }));
    const definitions: Definition[] = rec.d.map(([name, qualifiedName, kind, startLine, endLine]) => ({
      path: filePath,
      name,
      qualifiedName,
      kind,
      startLine,
      endLine,
    }));
    return { chunks, definitions, ...(rec.err ? { parseError: rec.err } : {}) };
  }

  add(blob: string, filePath: string, content: string, file: RestoredFile): void {
    const key = `${blob}\0${filePath}`;
    if (this.lines.has(key)) return;
    let lines: string[] | undefined;
    let header: string | undefined;
    const c: StoredChunk[] = file.chunks.map((chunk) => {
      const nl = chunk.text.indexOf('\n');
      const first = nl < 0 ? chunk.text : chunk.text.slice(0, nl);
      lines ??= splitLines(content);
      const rebuildable =
        nl >= 0 && (header === undefined || header === first) && chunk.text.slice(nl + 1) === linesText(lines, chunk.startLine, chunk.endLine);
      if (rebuildable) header = first;
      return {
        s: chunk.startLine,
        e: chunk.endLine,
        k: chunk.kind,
        ...(chunk.symbol !== undefined ? { y: chunk.symbol } : {}),
        ...(rebuildable ? {} : { t: chunk.text }),
      };
    });
    const rec: StoredRecord = {
      key,
      ...(header !== undefined ? { h: header } : {}),
      c,
      d: file.definitions.map((d) => [d.name, d.qualifiedName, d.kind, d.startLine, d.endLine]),
      ...(file.parseError ? { err: file.parseError } : {}),
    };
    this.lines.add(key, JSON.stringify(rec));
  }

  flush(): Promise<void> {
    return this.lines.flush();
  }
}
