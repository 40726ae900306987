/**
 * Per-file records: a file's chunks (with content ids), definitions and BM25 term vectors, built from its
 * parse or restored from the on-disk record store, and reused by (blob, path) across commits.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { CodeChunk, Definition } from '../parsing/types.ts';
import type { TreeEntry } from '../repo/types.ts';
import { sumTermVectors, termVectorOf, type TermDictionary, type TermVector } from './bm25.ts';
import { lineWindowChunks, type ParsedFile } from './file-parser.ts';
import type { IndexMemo } from './index-memo.ts';
import { FileRecordStore } from './record-store.ts';
import type { FileRecord, IndexedChunk, IndexedFile } from './types.ts';

export function sha256hex(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

/**
 * Content id of a chunk: hash of path, text and which occurrence of that text in the file it is. Not of
 * the blob or line numbers — a chunk that an edit elsewhere in the file only shifted keeps its id, so the
 * next commit stores (and embeds) only chunks whose text changed. (Measured on two django commits: with
 * the blob in the id, 2,250 of 4,970 chunks had to be stored again; by text, ~400.)
 */
export function chunkId(path: string, text: string, occurrence = 0): string {
  return sha256hex(path, String(occurrence), text).slice(0, 40);
}

const now = (): number => performance.now();

export function buildFileRecord(
  entry: TreeEntry,
  content: string,
  parsed: ParsedFile | Error,
  terms: TermDictionary,
  knownChunkTerms: Map<string, TermVector>,
  timing: { tokenizeMs: number },
): FileRecord {
  const file: IndexedFile = { path: entry.path, blob: entry.blob, size: entry.size };
  let chunks: CodeChunk[];
  let definitions: Definition[];
  if (parsed instanceof Error) {
    file.parseError = parsed.message;
    chunks = lineWindowChunks(entry.path, content);
    definitions = [];
  } else {
    chunks = parsed.chunks;
    definitions = parsed.definitions;
  }
  // identical texts in one file (repeated boilerplate) are told apart by occurrence number
  const occurrences = new Map<string, number>();
  const unique: IndexedChunk[] = chunks.map((c) => {
    const n = occurrences.get(c.text) ?? 0;
    occurrences.set(c.text, n + 1);
    return { ...c, path: entry.path, id: chunkId(entry.path, c.text, n), blob: entry.blob };
  });
  const t0 = now();
  const chunkTerms = unique.map((c) => {
    let v = knownChunkTerms.get(c.id);
    if (!v) {
      v = termVectorOf(c.text, terms);
      knownChunkTerms.set(c.id, v);
    }
    return v;
  });
  const fileTerms = wholeFileTerms(entry.path, content, unique, chunkTerms, terms);
  timing.tokenizeMs += now() - t0;
  return { file, chunks: unique, definitions, fileTerms, chunkTerms };
}

/**
 * The whole-file BM25 document: path line + content. When the chunks tile the file (each starts with the
 * same path line, no line in two chunks), it is their sum minus the repeated path lines — half the
 * tokenizing work; otherwise the content is tokenized again.
 */
function wholeFileTerms(filePath: string, content: string, chunks: readonly CodeChunk[], chunkTerms: readonly TermVector[], terms: TermDictionary): TermVector {
  if (chunks.length === 0) return termVectorOf(filePath, terms);
  const firstLineOf = (text: string): string => {
    const nl = text.indexOf('\n');
    return nl < 0 ? text : text.slice(0, nl);
  };
  const header = firstLineOf(chunks[0].text);
  let tiled = header.includes(filePath);
  for (let i = 0; tiled && i < chunks.length; i++) {
    if (firstLineOf(chunks[i].text) !== header) tiled = false;
    else if (i > 0 && chunks[i].startLine <= chunks[i - 1].endLine) tiled = false;
  }
  if (!tiled) return termVectorOf(`${filePath}\n${content}`, terms);
  return sumTermVectors(chunkTerms, termVectorOf(header, terms), chunks.length - 1);
}

export function recordStoreFor(memo: IndexMemo, cacheDir: string, repo: string, parserId: string): Promise<FileRecordStore> {
  const file = FileRecordStore.fileFor(path.resolve(cacheDir), repo, parserId);
  let s = memo.recordStores.get(file);
  if (!s) {
    s = FileRecordStore.open(file);
    memo.recordStores.set(file, s);
    memo.recordStoreRepos.set(file, repo);
  }
  return s;
}
