/**
 * Per-process state shared by the indexes of all commits: parsed file records, the term dictionary, ids
 * known to be in the vector store, embedding caches, recent query vectors. Releasing a repository
 * (forgetRepo) drops what only it needed.
 */
import { LRUCache } from 'lru-cache';
import type { EmbeddingCache } from '../embedding/cache.ts';
import { TermDictionary, type TermVector } from './bm25.ts';
import { CommitTermMemo } from './commit-history-index.ts';
import type { FileFacts } from './graph/file-facts.ts';
import type { RepoGraph } from './graph/repo-graph.ts';
import type { FileRecordStore } from './record-store.ts';
import type { FileRecord } from './types.ts';

/** Code graphs kept alive at once: consecutive instances of one repository reuse the last ones. */
export const LIVE_GRAPHS = 2;

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
  /** the last 512 query vectors (least recently used go first) */
  readonly queryVectors = new LRUCache<string, Float32Array | number[]>({ max: 512 });
  readonly recordStores = new Map<string, Promise<FileRecordStore>>();
  /** record-store file → its repository (for forgetRepo) */
  readonly recordStoreRepos = new Map<string, string>();
  /** code-graph facts by repo + blob + path, so the next commit's graph parses only changed files */
  readonly graphFacts = new Map<string, FileFacts>();
  /** `repo@commit` → its code graph; a graph holds a whole commit, so only the last LIVE_GRAPHS used stay */
  readonly graphs = new LRUCache<string, Promise<RepoGraph>>({ max: LIVE_GRAPHS });

  /** drops the parsed files of one repository (e.g. when a run moves on to the next repository) */
  forgetRepo(repo: string): void {
    const prefix = `${repo}\0`;
    for (const key of this.records.keys()) if (key.startsWith(prefix)) this.records.delete(key);
    for (const key of this.graphFacts.keys()) if (key.startsWith(prefix)) this.graphFacts.delete(key);
    for (const key of [...this.graphs.keys()]) if (key.startsWith(`${repo}@`)) this.graphs.delete(key);
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
export const commitTermMemo = new CommitTermMemo();

let processMemo: IndexMemo | undefined;
export function defaultIndexMemo(): IndexMemo {
  processMemo ??= new IndexMemo();
  return processMemo;
}
