/**
 * The searchable index of one repository at one commit, as the localizers see it, and the per-file records
 * it is built from. src/index/repo-index.ts builds it from the index channels in src/index/channels/.
 */
import type { FileSelection } from './file-filter.ts';
import type { CodeChunk, Definition } from '../parsing/types.ts';
import type { TermVector } from './bm25.ts';
import type { EntityNeighbor } from './graph/neighbors.ts';
import type { RepoGraph } from './graph/repo-graph.ts';

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

/**
 * What is known of every indexed file besides the searches (the learned ranker reads it): its size, and how the
 * recent history read for the history channel treated it — bug-fixing frequency and recency are classic evidence
 * in learned bug localization (Ye et al., FSE 2014).
 */
export interface FileFacts {
  /** bytes, per indexed file */
  size: Record<string, number>;
  /** per indexed file some recent commit changed: how many did, and the position of the newest (0 = the newest read) */
  changes: Record<string, { count: number; newest: number }>;
  /** how many recent commits were read (0: no history) */
  commitsRead: number;
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
  /** building the literals channel's fragment table (src/index/channels/literals.ts) */
  literalsMs: number;
  /** building the keys channel's table of configuration keys and flags, on its first search (0 until then) */
  keysMs: number;
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
  /** what the file filter decided for the commit's files (counts per verdict, a few examples of each) */
  readonly fileSelection?: FileSelection;
  /** chunks nearest to the query embedding, best first (cosine similarity) */
  searchDense(queryText: string, k: number): Promise<ChunkHit[]>;
  /** BM25 over chunks, best first */
  searchChunksBm25(query: string, k: number): Promise<ChunkHit[]>;
  /** BM25 over whole files (path + content), best first */
  searchFilesBm25(query: string, k: number): Promise<FileHit[]>;
  /** files changed by the earlier commits whose messages best match the query (src/index/commit-history-index.ts);
   * empty when the snapshot has no history or history is off */
  searchHistory(query: string, k: number): Promise<FileHit[]>;
  /** files holding string literals the text quotes (error messages, log lines; src/index/channels/literals.ts) */
  searchLiterals(text: string, k: number): Promise<FileHit[]>;
  /** files reading the configuration keys and flags the text names (src/index/channels/keys.ts) */
  searchKeys(text: string, k: number): Promise<FileHit[]>;
  /** files the recent commits changed together with the seed files (src/index/co-change.ts) */
  searchCoChange(seeds: readonly string[], k: number): Promise<FileHit[]>;
  /** each file's size and recent changes */
  fileFacts(): Promise<FileFacts>;
  /** the commit's code graph (src/index/channels/graph.ts), built on the first call */
  graph(): Promise<RepoGraph>;
  /** the graph as retrieval reads it: the invokes/inherits neighbours of an entity */
  graphNeighbors(): Promise<{ neighborsOf(entityId: string): readonly EntityNeighbor[] }>;
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

/** Everything the index keeps of one file at one blob: built once, reused by every commit that has the blob. */
export interface FileRecord {
  file: IndexedFile;
  chunks: IndexedChunk[];
  definitions: Definition[];
  fileTerms: TermVector;
  chunkTerms: TermVector[];
}
