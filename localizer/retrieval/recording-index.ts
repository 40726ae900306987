/**
 * Record-and-replay for retrieval indexes. A RecordingIndex passes calls through to a real index, memoizes
 * them (several configurations over one instance ask the same searches) and keeps what it returned; a
 * ReplayIndex answers from such a recording. The benchmark uses this to evaluate many fusion settings
 * over 300 instances without rebuilding 300 indexes: recorded searches return the same hits, so a replayed
 * retrieval is exactly the live one as long as it asks no deeper than was recorded.
 */
import type { FileFacts } from '../../src/index/types.ts';
import { olderRecordingError } from '../../src/util/legacy.ts';
import type { Definition } from '../../src/parsing/types.ts';
import type { GraphLookup, GraphNeighbor } from './graph-expansion.ts';
import type { ChunkHit, FileHit, RetrievalIndex } from './retriever.ts';
import { resolveRetrievalOptions, type RetrievalOptions } from './options.ts';

/** A chunk hit without the chunk text (evidence needs only where it is). */
export interface RecordedChunkHit {
  path: string;
  startLine: number;
  endLine: number;
  kind: string;
  symbol?: string;
  score: number;
}

export interface IndexRecording {
  filePaths: string[];
  /** per search kind: query text -> hits at the recorded depth */
  dense: Record<string, RecordedChunkHit[]>;
  chunkBm25: Record<string, RecordedChunkHit[]>;
  fileBm25: Record<string, FileHit[]>;
  /** similar-past-commit searches (absent in recordings made before the history channel existed) */
  history?: Record<string, FileHit[]>;
  /** literal searches (absent in recordings made before the literals channel existed) */
  literals?: Record<string, FileHit[]>;
  /** key and flag searches (absent in recordings made before the keys channel existed) */
  keys?: Record<string, FileHit[]>;
  /** co-change searches, keyed by their seed paths joined by newlines (absent before the co-change channel) */
  coChange?: Record<string, FileHit[]>;
  depth: { chunk: number; file: number };
  definitions: Record<string, Definition[]>;
  /** code-graph neighbours asked for (absent in recordings of an index without a graph) */
  neighbors?: Record<string, GraphNeighbor[]>;
  /** file sizes and recent changes, when they were asked for (recordings before the learned ranker lack them) */
  facts?: FileFacts;
}

/** the searches that return files, recorded as path and score */
type FileSearchKind = 'fileBm25' | 'history' | 'literals' | 'keys' | 'coChange';

/** a co-change search's recorded key: its seeds, one per line (paths hold no newline) */
const keyOfSeeds = (seeds: readonly string[]): string => seeds.join('\n');
const seedsOfKey = (key: string): string[] => (key ? key.split('\n') : []);

/**
 * Keeps an answer under its key as an own property. A plain assignment of `__proto__` (an issue names it: a
 * JavaScript prototype bug) sets the table's prototype instead, so the answer was never written and its replay
 * failed; JSON.parse reads the key back as an own property.
 */
function record<T>(table: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(table, key, { value, enumerable: true, writable: true, configurable: true });
}

function lite(hits: readonly ChunkHit[]): RecordedChunkHit[] {
  return hits.map((h) => ({
    path: h.chunk.path,
    startLine: h.chunk.startLine,
    endLine: h.chunk.endLine,
    kind: h.chunk.kind,
    ...(h.chunk.symbol ? { symbol: h.chunk.symbol } : {}),
    score: h.score,
  }));
}

export class RecordingIndex implements RetrievalIndex {
  private readonly memo = new Map<string, Promise<ChunkHit[] | FileHit[]>>();
  private readonly rec: IndexRecording;

  /** `depth`: how deep every search is run (and recorded), whatever k the caller asks */
  constructor(
    private readonly inner: RetrievalIndex,
    depth: { chunk: number; file: number },
  ) {
    this.rec = { filePaths: [...inner.filePaths], dense: {}, chunkBm25: {}, fileBm25: {}, depth, definitions: {} };
  }

  get filePaths(): readonly string[] {
    return this.inner.filePaths;
  }

  private search<T extends ChunkHit | FileHit>(kind: 'dense' | 'chunkBm25' | FileSearchKind, text: string, k: number): Promise<T[]> {
    const depth = kind === 'dense' || kind === 'chunkBm25' ? this.rec.depth.chunk : this.rec.depth.file;
    if (k > depth) throw new Error(`recording index: ${kind} asked for ${k} hits, deeper than the recorded depth ${depth}`);
    const key = `${kind}\0${text}`;
    let pending = this.memo.get(key);
    if (!pending) {
      pending = (async () => {
        if (kind === 'dense' || kind === 'chunkBm25') {
          const hits = kind === 'dense' ? await this.inner.searchDense(text, depth) : await this.inner.searchChunksBm25(text, depth);
          record(this.rec[kind], text, lite(hits));
          return hits;
        }
        const hits = await this.fileSearch(kind, text, depth);
        record(
          (this.rec[kind] ??= {}),
          text,
          hits.map((h) => ({ path: h.path, score: h.score })),
        );
        return hits;
      })();
      this.memo.set(key, pending);
    }
    return pending.then((hits) => hits.slice(0, k) as T[]);
  }

  /** a file-level search of the inner index; one it lacks answers nothing, as the live retriever would skip it */
  private async fileSearch(kind: FileSearchKind, text: string, depth: number): Promise<FileHit[]> {
    const inner = this.inner;
    switch (kind) {
      case 'fileBm25':
        return inner.searchFilesBm25(text, depth);
      case 'history':
        return inner.searchHistory ? inner.searchHistory(text, depth) : [];
      case 'literals':
        return inner.searchLiterals ? inner.searchLiterals(text, depth) : [];
      case 'keys':
        return inner.searchKeys ? inner.searchKeys(text, depth) : [];
      case 'coChange':
        return inner.searchCoChange ? inner.searchCoChange(seedsOfKey(text), depth) : [];
    }
  }

  searchDense(text: string, k: number): Promise<ChunkHit[]> {
    return this.search<ChunkHit>('dense', text, k);
  }
  searchChunksBm25(text: string, k: number): Promise<ChunkHit[]> {
    return this.search<ChunkHit>('chunkBm25', text, k);
  }
  searchFilesBm25(text: string, k: number): Promise<FileHit[]> {
    return this.search<FileHit>('fileBm25', text, k);
  }
  searchHistory(text: string, k: number): Promise<FileHit[]> {
    return this.search<FileHit>('history', text, k);
  }
  searchLiterals(text: string, k: number): Promise<FileHit[]> {
    return this.search<FileHit>('literals', text, k);
  }
  searchKeys(text: string, k: number): Promise<FileHit[]> {
    return this.search<FileHit>('keys', text, k);
  }
  searchCoChange(seeds: readonly string[], k: number): Promise<FileHit[]> {
    return this.search<FileHit>('coChange', keyOfSeeds(seeds), k);
  }
  definitionsOf(name: string): readonly Definition[] {
    const defs = this.inner.definitionsOf(name);
    if (!Object.hasOwn(this.rec.definitions, name))
      record(
        this.rec.definitions,
        name,
        defs.map((d) => ({ ...d })),
      );
    return defs;
  }

  async graphNeighbors(): Promise<GraphLookup> {
    const inner = this.inner.graphNeighbors ? await this.inner.graphNeighbors() : undefined;
    const neighbors = (this.rec.neighbors ??= {});
    return {
      neighborsOf: (entityId) => {
        const found = inner ? inner.neighborsOf(entityId) : [];
        if (!Object.hasOwn(neighbors, entityId))
          record(
            neighbors,
            entityId,
            found.map((n) => ({ ...n })),
          );
        return found;
      },
    };
  }

  async fileFacts(): Promise<FileFacts | undefined> {
    const facts = await this.inner.fileFacts?.();
    if (facts) this.rec.facts = facts;
    return facts;
  }

  recording(): IndexRecording {
    return this.rec;
  }
}

/**
 * A recorded answer, only if it was recorded: a name such as `constructor` or `toString` (an issue names them) must
 * not find what every object inherits.
 */
function recordedOf<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export class ReplayIndex implements RetrievalIndex {
  /** `history`, `coChange`: answer searches a recording lacks (e.g. computed from the mirror) */
  constructor(
    private readonly rec: IndexRecording,
    private readonly history?: (text: string, k: number) => Promise<FileHit[]>,
    private readonly coChange?: (seeds: readonly string[], k: number) => Promise<FileHit[]>,
  ) {}

  get filePaths(): readonly string[] {
    return this.rec.filePaths;
  }

  private hits<T>(table: Record<string, T[]>, kind: string, text: string, k: number, depth: number): T[] {
    if (k > depth) throw new Error(`replay index: ${kind} asked for ${k} hits, deeper than the recorded depth ${depth}`);
    const hits = recordedOf(table, text);
    if (!hits) throw new Error(`replay index: no recorded ${kind} search for this query text (${JSON.stringify(text.slice(0, 60))}…)`);
    return hits.slice(0, k);
  }

  private chunks(table: Record<string, RecordedChunkHit[]>, kind: string, text: string, k: number): ChunkHit[] {
    return this.hits(table, kind, text, k, this.rec.depth.chunk).map((h) => ({
      chunk: { path: h.path, startLine: h.startLine, endLine: h.endLine, kind: h.kind, text: '', ...(h.symbol ? { symbol: h.symbol } : {}) },
      score: h.score,
    }));
  }

  async searchDense(text: string, k: number): Promise<ChunkHit[]> {
    return this.chunks(this.rec.dense, 'dense', text, k);
  }
  async searchChunksBm25(text: string, k: number): Promise<ChunkHit[]> {
    return this.chunks(this.rec.chunkBm25, 'chunkBm25', text, k);
  }
  async searchFilesBm25(text: string, k: number): Promise<FileHit[]> {
    return this.hits(this.rec.fileBm25, 'fileBm25', text, k, this.rec.depth.file);
  }
  async searchHistory(text: string, k: number): Promise<FileHit[]> {
    if (recordedOf(this.rec.history ?? {}, text) === undefined && this.history) return this.history(text, k);
    return this.hits(this.rec.history ?? {}, 'history', text, k, this.rec.depth.file);
  }
  async searchLiterals(text: string, k: number): Promise<FileHit[]> {
    if (!this.rec.literals) throw olderRecordingError('literal', 'literals', 'literals');
    return this.hits(this.rec.literals, 'literals', text, k, this.rec.depth.file);
  }
  async searchKeys(text: string, k: number): Promise<FileHit[]> {
    if (!this.rec.keys) throw olderRecordingError('key', 'keys', 'keys');
    return this.hits(this.rec.keys, 'keys', text, k, this.rec.depth.file);
  }
  async searchCoChange(seeds: readonly string[], k: number): Promise<FileHit[]> {
    if (this.coChange && recordedOf(this.rec.coChange ?? {}, keyOfSeeds(seeds)) === undefined) return this.coChange(seeds, k);
    if (!this.rec.coChange) throw olderRecordingError('co-change', 'co-change', 'coChange');
    return this.hits(this.rec.coChange, 'coChange', keyOfSeeds(seeds), k, this.rec.depth.file);
  }
  async graphNeighbors(): Promise<GraphLookup> {
    const recorded = this.rec.neighbors;
    return {
      neighborsOf: (entityId) => {
        if (!recorded) return []; // recorded without a graph
        const found = recordedOf(recorded, entityId);
        if (!found) throw new Error(`replay index: graph neighbours of "${entityId}" were not recorded`);
        return found;
      },
    };
  }
  async fileFacts(): Promise<FileFacts | undefined> {
    return this.rec.facts;
  }
  definitionsOf(name: string): readonly Definition[] {
    const defs = recordedOf(this.rec.definitions, name);
    if (!defs) throw new Error(`replay index: definitions of "${name}" were not recorded`);
    return defs;
  }
}

/**
 * Options with every channel a weight can turn on (the graph aside, which needs an index with a graph): a recorder
 * runs them once per query set, so a recording can replay any weights chosen later (`tune:fusion`, a new default).
 */
export function everyChannelOn(): RetrievalOptions {
  return resolveRetrievalOptions({
    weights: { dense: 1, chunkBm25: 1, fileBm25: 1, definitions: 1, paths: 1, history: 1, literals: 1, keys: 1, coChange: 1 },
  });
}
