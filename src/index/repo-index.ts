/**
 * The searchable index of one repository at one commit: chunks (dense vectors in the vector store, BM25),
 * whole files (BM25) and definitions.
 *
 * Everything per file is keyed by (blob, path) and kept in a per-repository memo, so the next commit of the
 * same repository only reads, parses and tokenizes files whose blob changed. Chunk ids are content hashes
 * (path, text); a chunk shared by many commits is one record in the vector store, and a commit's dense
 * search is restricted to the ids of its own chunks (the hits are mapped back to this commit's chunk
 * objects, so line numbers always are this commit's). Vectors the store already has are never
 * recomputed; texts embedded before (any path, any process) come from the content-keyed embedding cache.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { RepoSnapshot, TreeEntry } from '../repo/types.ts';
import type { CodeChunk, Definition } from '../parsing/types.ts';
import type { Embedder } from '../embedding/types.ts';
import type { VectorCollection, VectorStore } from '../vectorstore/types.ts';
import { EmbeddingCache } from '../embedding/cache.ts';
import { VectorSync } from './vector-sync.ts';
import { LexicalEmbedder } from '../embedding/lexical.ts';
import { FileRecordStore } from './record-store.ts';
import { Bm25Index, queryTermsOf, sumTermVectors, TermDictionary, termVectorOf, type Bm25Settings, type TermVector } from './bm25.ts';
import { createFileFilter, type FileFilterOptions } from './file-filter.ts';
import { CommitHistoryIndex, CommitTermMemo, DEFAULT_COMMIT_HISTORY, type CommitHistorySettings } from './commit-history-index.ts';
import { lineWindowChunks, type FileParser, type ParsedFile } from './file-parser.ts';

export interface IndexedChunk extends CodeChunk {
  /** content id (path + text); the vector store record id when vectors are named by chunk (vector-sync.ts) */
  id: string;
  blob: string;
}

export interface IndexedFile {
  path: string;
  blob: string;
  size: number;
  /** set when the parser failed on this file and line windows stand in for its chunks */
  parseError?: string;
}

export interface ChunkHit {
  chunk: IndexedChunk;
  score: number;
}

export interface FileHit {
  path: string;
  score: number;
}

/**
 * How a commit's dense query is kept to that commit's chunks:
 * - 'ids': the store pre-filters on the commit's chunk ids (exact);
 * - 'overfetch': query the whole collection for more than k and drop foreign ids, widening until k are found.
 */
export type DenseFilterStrategy = 'ids' | 'overfetch';

export interface IndexTimings {
  /** true when no file came from the in-process memo */
  cold: boolean;
  totalMs: number;
  listMs: number;
  readMs: number;
  parseMs: number;
  tokenizeMs: number;
  /** wall time of vector-store existence checks and writes (overlaps parsing) */
  vectorSyncMs: number;
  /** wall time spent waiting for the vector store after parsing finished */
  vectorWaitMs: number;
  /** wall time parsing paused because the vector store was more than two batches behind */
  vectorBackpressureMs: number;
  embedMs: number;
  bm25Ms: number;
  filesIndexed: number;
  filesReused: number;
  /** files parsed by the parser */
  filesParsed: number;
  /** files whose parse came from the on-disk record store (an earlier process) */
  filesRestored: number;
  chunks: number;
  /** chunks the vector store did not have */
  chunksUpserted: number;
  /** texts the embedder was asked for (after the embedding cache) */
  textsEmbedded: number;
}

export interface RepoIndex {
  readonly repo: string;
  readonly commit: string;
  readonly embedderId: string;
  readonly files: readonly IndexedFile[];
  readonly filePaths: readonly string[];
  readonly chunks: readonly IndexedChunk[];
  readonly timings: IndexTimings;
  /** chunks nearest to the query embedding, best first (cosine similarity) */
  searchDense(queryText: string, k: number): Promise<ChunkHit[]>;
  /** BM25 over chunks, best first */
  searchChunksBm25(query: string, k: number): Promise<ChunkHit[]>;
  /** BM25 over whole files (path + content), best first */
  searchFilesBm25(query: string, k: number): Promise<FileHit[]>;
  /** files changed by the earlier commits whose messages best match the query (src/index/commit-history-index.ts);
   * empty when the snapshot has no history or history is off */
  searchHistory(query: string, k: number): Promise<FileHit[]>;
  /** every class/function/method with this bare name */
  definitionsOf(name: string): readonly Definition[];
  /** definitions whose qualified name is exactly this ("Class.method") */
  definitionsByQualifiedName(qualifiedName: string): readonly Definition[];
  /** number of distinct files defining this bare name (for down-weighting common names) */
  definingFileCount(name: string): number;
  definitionsInFile(path: string): readonly Definition[];
  chunksOfFile(path: string): readonly IndexedChunk[];
  hasFile(path: string): boolean;
}

export interface BuildRepoIndexDeps {
  embedder: Embedder;
  vectorStore: VectorStore;
  /** embedding cache and other persisted state live under here */
  cacheDir: string;
  fileFilter?: FileFilterOptions;
  /** default: the tree-sitter chunker and definition extractor from src/parsing/ */
  parser?: FileParser;
  bm25?: Partial<Bm25Settings>;
  denseFilter?: DenseFilterStrategy;
  /** persist embeddings on disk; default true except for the lexical embedder, whose vectors cost less
   * to recompute than to load (the vector store keeps them either way) */
  persistEmbeddings?: boolean;
  /** how stored vectors are named (src/index/vector-sync.ts): 'chunk' (path + text) or 'vector' (its bytes,
   * so identical vectors are stored once). Default 'vector' for the lexical embedder, whose vectors are
   * cheaper to compute than to insert, 'chunk' for models */
  vectorNaming?: 'chunk' | 'vector';
  /** keep parsed files on disk (<cacheDir>/index/) so a new process does not parse them again; default true */
  persistParsedFiles?: boolean;
  /** in-process reuse across commits; default one memo per process */
  memo?: IndexMemo;
  /** similar-past-commit search over the snapshot's history (read on first use); false: off */
  history?: Partial<CommitHistorySettings> | false;
  /** texts per embedder call / vector-store write; default 512 */
  embedBatchSize?: number;
  /** progress messages (files parsed, chunks embedded) */
  onProgress?: (message: string) => void;
}

interface FileRecord {
  file: IndexedFile;
  chunks: IndexedChunk[];
  definitions: Definition[];
  fileTerms: TermVector;
  chunkTerms: TermVector[];
}

/** Per-process state shared by the indexes of all commits: parsed files, known stored ids, caches. */
export class IndexMemo {
  readonly terms = new TermDictionary();
  /** key: parser id + filter + blob + path */
  readonly records = new Map<string, FileRecord>();
  /**
   * repository → chunk id → the chunk's term vector. A chunk id names its text, and an edit to a file
   * leaves most of its chunks' texts as they were, so a changed file only tokenizes its changed chunks.
   */
  readonly chunkTerms = new Map<string, Map<string, TermVector>>();
  /** collection name → ids known to be stored there */
  readonly storedIds = new Map<string, Set<string>>();
  /** repository + collection name → chunk id → vector id (collections whose vectors are named by content) */
  readonly vectorIds = new Map<string, Map<string, string>>();
  readonly embeddingCaches = new Map<string, Promise<EmbeddingCache>>();
  readonly queryVectors = new Map<string, Float32Array | number[]>();
  readonly recordStores = new Map<string, Promise<FileRecordStore>>();
  /** record-store file → its repository (for forgetRepo) */
  readonly recordStoreRepos = new Map<string, string>();

  /** drops the parsed files of one repository (e.g. when a run moves on to the next repository) */
  forgetRepo(repo: string): void {
    const prefix = `${repo}\0`;
    for (const key of this.records.keys()) if (key.startsWith(prefix)) this.records.delete(key);
    this.chunkTerms.delete(repo);
    // chunk -> vector names are recomputed (cheaply) if the repository comes back; the stored ids stay
    for (const key of this.vectorIds.keys()) if (key.startsWith(prefix)) this.vectorIds.delete(key);
    // the parsed-file store is on disk; its in-memory copy is read again if the repository comes back
    for (const [file, r] of this.recordStoreRepos) {
      if (r !== repo) continue;
      this.recordStores.delete(file);
      this.recordStoreRepos.delete(file);
    }
  }

  chunkTermsOf(repo: string): Map<string, TermVector> {
    let m = this.chunkTerms.get(repo);
    if (!m) {
      m = new Map();
      this.chunkTerms.set(repo, m);
    }
    return m;
  }
}

/** commit term vectors, shared by every history index of the process */
const commitTermMemo = new CommitTermMemo();

let processMemo: IndexMemo | undefined;
export function defaultIndexMemo(): IndexMemo {
  processMemo ??= new IndexMemo();
  return processMemo;
}

let defaultParserPromise: Promise<FileParser> | undefined;

/** The tree-sitter chunker from src/parsing/ (loaded on first use). */
export function defaultFileParser(): Promise<FileParser> {
  defaultParserPromise ??= (async () => {
    const mod = (await import('./default-parser.ts')) as { createDefaultFileParser: () => Promise<FileParser> };
    return mod.createDefaultFileParser();
  })();
  return defaultParserPromise;
}

function sha256hex(...parts: string[]): string {
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

/**
 * Vector collection for (repository, embedder, parser, vector naming): readable prefix + hash, within
 * Chroma's limits. The two namings never share a collection (their ids mean different things).
 */
export function collectionNameFor(repo: string, embedderId: string, parserId: string, naming: 'chunk' | 'vector' = 'chunk'): string {
  const readable = repo.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'repo';
  const hash = naming === 'chunk' ? sha256hex(repo, embedderId, parserId) : sha256hex(repo, embedderId, parserId, 'vector-named');
  return `lf-${readable}-${hash.slice(0, 16)}`;
}

const now = (): number => performance.now();

function buildFileRecord(
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

function recordStoreFor(memo: IndexMemo, cacheDir: string, repo: string, parserId: string): Promise<FileRecordStore> {
  const file = FileRecordStore.fileFor(path.resolve(cacheDir), repo, parserId);
  let s = memo.recordStores.get(file);
  if (!s) {
    s = FileRecordStore.open(file);
    memo.recordStores.set(file, s);
    memo.recordStoreRepos.set(file, repo);
  }
  return s;
}

async function embeddingCacheFor(memo: IndexMemo, deps: BuildRepoIndexDeps): Promise<EmbeddingCache | undefined> {
  const persist = deps.persistEmbeddings ?? !deps.embedder.id.startsWith('lexical:');
  // an in-memory cache only pays off when the same text is embedded twice, which chunk ids (path + text)
  // and the stored-id set already rule out within a process; it held ~4 KB per chunk for nothing
  if (!persist) return undefined;
  const key = `disk:${path.resolve(deps.cacheDir)}:${deps.embedder.id}`;
  let c = memo.embeddingCaches.get(key);
  if (!c) {
    c = EmbeddingCache.open(path.join(deps.cacheDir, 'embeddings'), deps.embedder.id);
    memo.embeddingCaches.set(key, c);
  }
  return c;
}

export async function buildRepoIndex(snapshot: RepoSnapshot, deps: BuildRepoIndexDeps): Promise<RepoIndex> {
  const tStart = now();
  const memo = deps.memo ?? defaultIndexMemo();
  const parser = deps.parser ?? (await defaultFileParser());
  const filterOptions = deps.fileFilter ?? {};
  const accept = createFileFilter(filterOptions);
  const recordPrefix = `${snapshot.repo}\0${parser.id}\0`;
  const batchSize = deps.embedBatchSize ?? 512;
  const progress = deps.onProgress ?? (() => {});

  const timings: IndexTimings = {
    cold: true,
    totalMs: 0,
    listMs: 0,
    readMs: 0,
    parseMs: 0,
    tokenizeMs: 0,
    vectorSyncMs: 0,
    vectorWaitMs: 0,
    vectorBackpressureMs: 0,
    embedMs: 0,
    bm25Ms: 0,
    filesIndexed: 0,
    filesReused: 0,
    filesParsed: 0,
    filesRestored: 0,
    chunks: 0,
    chunksUpserted: 0,
    textsEmbedded: 0,
  };

  // 1. files of this commit
  let t = now();
  const entries = (await snapshot.listFiles()).filter((e) => accept(e.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  timings.listMs = now() - t;

  // 2. vector collection; chunks flow into it while files are parsed
  const naming = deps.vectorNaming ?? (deps.embedder instanceof LexicalEmbedder ? 'vector' : 'chunk');
  const collectionName = collectionNameFor(snapshot.repo, deps.embedder.id, parser.id, naming);
  const collection = await deps.vectorStore.collection(collectionName);
  let stored = memo.storedIds.get(collectionName);
  if (!stored) {
    stored = new Set();
    memo.storedIds.set(collectionName, stored);
  }
  let vectorIds: Map<string, string> | undefined;
  if (naming === 'vector') {
    const key = `${snapshot.repo}\0${collectionName}`;
    vectorIds = memo.vectorIds.get(key);
    if (!vectorIds) memo.vectorIds.set(key, (vectorIds = new Map()));
  }
  const sync = new VectorSync(
    collection,
    stored,
    deps.embedder,
    await embeddingCacheFor(memo, deps),
    batchSize,
    (n) => progress(`${snapshot.repo}: stored ${n} chunk vectors`),
    vectorIds,
  );

  // 3. per-file records: reuse by (blob, path), build the rest
  const records: FileRecord[] = new Array(entries.length);
  const todo: number[] = [];
  entries.forEach((e, i) => {
    const r = memo.records.get(recordPrefix + e.blob + '\0' + e.path);
    if (r) {
      records[i] = r;
      sync.offer(r.chunks);
    } else {
      todo.push(i);
    }
  });
  timings.filesReused = entries.length - todo.length;
  timings.cold = timings.filesReused === 0 && entries.length > 0;
  if (todo.length > 0) {
    t = now();
    const contents = await Promise.all(todo.map(async (i) => (await snapshot.readBlob(entries[i].blob)).toString('utf8')));
    timings.readMs = now() - t;
    const knownChunkTerms = memo.chunkTermsOf(snapshot.repo);
    const onDisk = deps.persistParsedFiles === false ? undefined : await recordStoreFor(memo, deps.cacheDir, snapshot.repo, parser.id);
    let lastYield = now();
    for (let j = 0; j < todo.length; j++) {
      const entry = entries[todo[j]];
      const content = contents[j];
      const tp = now();
      let parsed: ParsedFile | Error;
      const restored = onDisk?.restore(entry.blob, entry.path, content);
      if (restored) {
        parsed = restored.parseError ? new Error(restored.parseError) : restored;
        timings.filesRestored++;
      } else {
        try {
          parsed = await parser.parse(entry.path, content);
        } catch (err) {
          parsed = err instanceof Error ? err : new Error(String(err));
        }
        timings.filesParsed++;
      }
      timings.parseMs += now() - tp;
      const record = buildFileRecord(entry, content, parsed, memo.terms, knownChunkTerms, timings);
      if (!restored) {
        onDisk?.add(entry.blob, entry.path, content, {
          chunks: record.chunks,
          definitions: record.definitions,
          ...(record.file.parseError ? { parseError: record.file.parseError } : {}),
        });
      }
      memo.records.set(recordPrefix + entry.blob + '\0' + entry.path, record);
      records[todo[j]] = record;
      sync.offer(record.chunks);
      // parsing is synchronous: let the vector store's requests progress now and then, and do not run
      // far ahead of it (memory)
      if (sync.pending > 2) {
        const tw = now();
        await sync.waitUntilPendingAtMost(2);
        lastYield = now();
        timings.vectorBackpressureMs += lastYield - tw;
      } else if (now() - lastYield > 50) {
        await new Promise((r) => setImmediate(r));
        lastYield = now();
      }
      if ((j + 1) % 500 === 0) progress(`${snapshot.repo}: parsed ${j + 1}/${todo.length} files`);
    }
    await onDisk?.flush();
  }
  timings.filesIndexed = entries.length;
  sync.sendBuffered();

  // 4. flat views
  const files = records.map((r) => r.file);
  const chunks: IndexedChunk[] = [];
  const chunkTerms: TermVector[] = [];
  const chunksByFile = new Map<string, IndexedChunk[]>();
  const definitionsByName = new Map<string, Definition[]>();
  const definitionsByQualified = new Map<string, Definition[]>();
  const definitionsByFile = new Map<string, Definition[]>();
  for (const r of records) {
    chunksByFile.set(r.file.path, r.chunks);
    definitionsByFile.set(r.file.path, r.definitions);
    for (let i = 0; i < r.chunks.length; i++) {
      chunks.push(r.chunks[i]);
      chunkTerms.push(r.chunkTerms[i]);
    }
    for (const d of r.definitions) {
      const byName = definitionsByName.get(d.name);
      if (byName) byName.push(d);
      else definitionsByName.set(d.name, [d]);
      const byQ = definitionsByQualified.get(d.qualifiedName);
      if (byQ) byQ.push(d);
      else definitionsByQualified.set(d.qualifiedName, [d]);
    }
  }
  timings.chunks = chunks.length;

  // 5. BM25 over this commit's chunks and files
  t = now();
  const chunkBm25 = new Bm25Index(chunkTerms, deps.bm25);
  const fileBm25 = new Bm25Index(
    records.map((r) => r.fileTerms),
    deps.bm25,
  );
  timings.bm25Ms = now() - t;

  // the vector store's last batches finish while the views and BM25 above were built
  t = now();
  try {
    await sync.finish();
  } catch (err) {
    throw new Error(`indexing ${snapshot.repo}@${snapshot.commit}: storing chunk vectors in collection ${collectionName} failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
  timings.vectorWaitMs = now() - t;
  timings.embedMs = sync.stats.embedMs;
  timings.textsEmbedded = sync.stats.embedded;
  timings.chunksUpserted = sync.stats.upserted;
  timings.vectorSyncMs = sync.stats.storeMs;

  timings.totalMs = now() - tStart;

  // the chunks behind each stored vector of this commit (by-vector naming: several chunks may share one)
  const chunksByStoredId = new Map<string, IndexedChunk[]>();
  for (const c of chunks) {
    const id = sync.storedIdOf(c.id);
    if (id === undefined) throw new Error(`internal: chunk ${c.id} of ${c.path} has no stored vector after indexing`);
    const list = chunksByStoredId.get(id);
    if (list) list.push(c);
    else chunksByStoredId.set(id, [c]);
  }
  const commitIds = [...chunksByStoredId.keys()];
  const strategy = deps.denseFilter ?? 'ids';
  const embedder = deps.embedder;

  async function queryVector(text: string): Promise<Float32Array | number[]> {
    const key = `${embedder.id}\0${text}`;
    let v = memo.queryVectors.get(key);
    if (!v) {
      v = await embedder.embedQuery(text);
      if (memo.queryVectors.size >= 512) memo.queryVectors.delete(memo.queryVectors.keys().next().value as string);
      memo.queryVectors.set(key, v);
    }
    return v;
  }

  async function searchDense(queryText: string, k: number): Promise<ChunkHit[]> {
    if (k <= 0 || chunks.length === 0) return [];
    const vector = await queryVector(queryText);
    const want = Math.min(k, chunks.length);
    if (strategy === 'ids') {
      const hits = await collection.query(vector, Math.min(want, commitIds.length), { ids: commitIds });
      return hits.flatMap((h) => (chunksByStoredId.get(h.id) ?? []).map((chunk) => ({ chunk, score: h.score }))).slice(0, want);
    }
    return overfetch(collection, vector, want, chunksByStoredId);
  }

  const searchChunksBm25 = async (query: string, k: number): Promise<ChunkHit[]> =>
    chunkBm25.search(queryTermsOf(query, memo.terms, chunkBm25.settings.queryTerms), k).map((h) => ({ chunk: chunks[h.doc], score: h.score }));

  const searchFilesBm25 = async (query: string, k: number): Promise<FileHit[]> =>
    fileBm25.search(queryTermsOf(query, memo.terms, fileBm25.settings.queryTerms), k).map((h) => ({ path: files[h.doc].path, score: h.score }));

  const filePaths = files.map((f) => f.path);
  const fileSet = new Set(filePaths);
  const none: readonly never[] = Object.freeze([]);
  // the history is read on the first history search: indexing alone never pays for it
  let history: Promise<CommitHistoryIndex | undefined> | undefined;
  const historyIndex = (): Promise<CommitHistoryIndex | undefined> => {
    history ??= (async () => {
      if (deps.history === false || !snapshot.recentCommits) return undefined;
      const settings = { ...DEFAULT_COMMIT_HISTORY, ...deps.history };
      try {
        const commits = await snapshot.recentCommits(settings.maxCommits);
        return new CommitHistoryIndex(commits, (p) => fileSet.has(p), settings, commitTermMemo);
      } catch (err) {
        // history is one optional signal (a shallow or damaged mirror may lack it): retrieval goes on without it
        progress(`history unavailable for ${snapshot.repo}@${snapshot.commit.slice(0, 12)}: ${(err as Error).message.split('\n')[0]}`);
        return undefined;
      }
    })();
    return history;
  };
  const searchHistory = async (query: string, k: number): Promise<FileHit[]> => (await historyIndex())?.search(query, k) ?? [];

  return {
    repo: snapshot.repo,
    commit: snapshot.commit,
    embedderId: embedder.id,
    files,
    filePaths,
    chunks,
    timings,
    searchDense,
    searchChunksBm25,
    searchFilesBm25,
    searchHistory,
    definitionsOf: (name) => definitionsByName.get(name) ?? none,
    definitionsByQualifiedName: (q) => definitionsByQualified.get(q) ?? none,
    definingFileCount: (name) => new Set((definitionsByName.get(name) ?? []).map((d) => d.path)).size,
    definitionsInFile: (p) => definitionsByFile.get(p) ?? none,
    chunksOfFile: (p) => chunksByFile.get(p) ?? none,
    hasFile: (p) => fileSet.has(p),
  };
}

async function overfetch(
  collection: VectorCollection,
  vector: Float32Array | number[],
  want: number,
  chunksByStoredId: Map<string, IndexedChunk[]>,
): Promise<ChunkHit[]> {
  const total = await collection.count();
  let fetch = Math.min(total, Math.max(want * 2, want + 50));
  for (;;) {
    const hits = await collection.query(vector, fetch);
    const out: ChunkHit[] = [];
    for (const h of hits) {
      for (const chunk of chunksByStoredId.get(h.id) ?? []) {
        out.push({ chunk, score: h.score });
        if (out.length === want) return out;
      }
    }
    if (fetch >= total) return out;
    fetch = Math.min(total, fetch * 4);
  }
}
