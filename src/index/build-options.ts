/** What building a repository index depends on: providers, caches, the parser and the channels' settings. */
import type { Embedder } from '../embedding/types.ts';
import type { VectorStore } from '../vectorstore/types.ts';
import type { Bm25Settings } from './bm25.ts';
import type { CommitHistorySettings } from './commit-history-index.ts';
import type { FileFilterOptions } from './file-filter.ts';
import type { FileParser } from './file-parser.ts';
import type { IndexMemo } from './index-memo.ts';
import type { DenseFilterStrategy } from './types.ts';

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
