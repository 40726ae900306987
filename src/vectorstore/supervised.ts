/**
 * A local Chroma store that survives the death of its server. A long run keeps one server for hours; when
 * it dies (OOM killer, a crash, someone's `pkill`), every later instance would fail. Here an operation
 * that fails while the server no longer answers its heartbeat restarts the server on the same data folder
 * (whatever it had acknowledged is on disk) and is retried once; upserts are idempotent, so a retried
 * batch does no harm. Restarts are bounded: after `maxRestarts` the store fails every call at once with a
 * message naming the folder and the server log, instead of restarting a server that keeps dying.
 */
import path from 'node:path';
import { chromaHeartbeat, startChromaServer, type ChromaServer } from './chroma-server.ts';
import { ChromaVectorStore, type HnswBuildSettings } from './chroma.ts';
import type { VectorCollection, VectorHit, VectorQueryOptions, VectorRecord, VectorStore } from './types.ts';

export interface SupervisedChromaOptions {
  /** starts (or finds) the server for the data folder */
  start: () => Promise<ChromaServer>;
  hnsw?: Partial<HnswBuildSettings>;
  /** restarts allowed in this process (default 3) */
  maxRestarts?: number;
  /** told about every restart, e.g. to log it */
  onRestart?: (event: { restart: number; maxRestarts: number; url: string; reason: string }) => void;
}

export class SupervisedChromaStore implements VectorStore {
  private server: ChromaServer;
  private store: ChromaVectorStore;
  private generation = 0;
  private restarts = 0;
  private restarting?: Promise<void>;
  private gaveUp?: Error;
  readonly maxRestarts: number;

  private constructor(
    server: ChromaServer,
    private readonly options: SupervisedChromaOptions,
  ) {
    this.server = server;
    this.store = new ChromaVectorStore({ url: server.url, hnsw: options.hnsw });
    this.maxRestarts = options.maxRestarts ?? 3;
  }

  static async open(options: SupervisedChromaOptions): Promise<SupervisedChromaStore> {
    return new SupervisedChromaStore(await options.start(), options);
  }

  /** the server in use now (a restart replaces it) */
  get current(): ChromaServer {
    return this.server;
  }

  get restartCount(): number {
    return this.restarts;
  }

  /** Runs `op` on the current store; when it fails because the server is gone, restarts it and runs `op` once more. */
  async withStore<T>(op: (store: ChromaVectorStore) => Promise<T>): Promise<T> {
    if (this.gaveUp) throw this.gaveUp;
    const generation = this.generation;
    try {
      return await op(this.store);
    } catch (err) {
      if (generation === this.generation && (await chromaHeartbeat(this.server.url))) throw err; // the server is fine: a real error
      await this.restart(generation, err);
      return await op(this.store);
    }
  }

  private restart(generation: number, cause: unknown): Promise<void> {
    if (generation !== this.generation) return Promise.resolve(); // another call already restarted it
    this.restarting ??= (async () => {
      const logFile = path.join(path.dirname(this.server.dataDir), 'chroma-server.log');
      const reason = cause instanceof Error ? cause.message.split('\n')[0]! : String(cause);
      if (this.restarts >= this.maxRestarts) {
        this.gaveUp = new Error(
          `the local Chroma server for ${this.server.dataDir} stopped answering ${this.restarts + 1} times in this run ` +
            `(last: ${reason}); not restarting it again. See ${logFile}`,
        );
        throw this.gaveUp;
      }
      this.restarts++;
      this.options.onRestart?.({ restart: this.restarts, maxRestarts: this.maxRestarts, url: this.server.url, reason });
      await this.server.stop().catch(() => undefined);
      try {
        this.server = await this.options.start();
      } catch (err) {
        this.gaveUp = new Error(
          `the local Chroma server for ${this.server.dataDir} stopped answering (${reason}) and could not be restarted: ${(err as Error).message}`,
        );
        throw this.gaveUp;
      }
      this.store = new ChromaVectorStore({ url: this.server.url, hnsw: this.options.hnsw });
      this.generation++;
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  async collection(name: string): Promise<VectorCollection> {
    await this.withStore((s) => s.collection(name));
    return new SupervisedCollection(name, this);
  }

  deleteCollection(name: string): Promise<void> {
    return this.withStore((s) => s.deleteCollection(name));
  }

  close(): Promise<void> {
    return this.server.stop();
  }
}

/** A collection handle that finds its collection again on the restarted server. */
class SupervisedCollection implements VectorCollection {
  constructor(
    readonly name: string,
    private readonly owner: SupervisedChromaStore,
  ) {}

  private on<T>(op: (c: VectorCollection) => Promise<T>): Promise<T> {
    return this.owner.withStore(async (s) => op(await s.collection(this.name)));
  }

  count(): Promise<number> {
    return this.on((c) => c.count());
  }

  existing(ids: readonly string[]): Promise<Set<string>> {
    return this.on((c) => c.existing(ids));
  }

  upsert(records: readonly VectorRecord[]): Promise<void> {
    return this.on((c) => c.upsert(records));
  }

  query(embedding: readonly number[] | Float32Array, k: number, options?: VectorQueryOptions): Promise<VectorHit[]> {
    return this.on((c) => c.query(embedding, k, options));
  }

  delete(ids: readonly string[]): Promise<void> {
    return this.on((c) => c.delete(ids));
  }
}

/**
 * The Chroma store locfix uses: the server at `url` when given (locfix cannot restart someone else's
 * server), otherwise a local server started (or reused) for `<cacheDir>/chroma`, supervised as above.
 * `close()` stops a server this call started.
 */
export async function openChromaStore(options: {
  url?: string;
  cacheDir: string;
  hnsw?: Partial<HnswBuildSettings>;
  onRestart?: SupervisedChromaOptions['onRestart'];
}): Promise<{ store: VectorStore; server?: ChromaServer; close(): Promise<void> }> {
  if (options.url) {
    const store = new ChromaVectorStore({ url: options.url, hnsw: options.hnsw });
    return { store, close: async () => {} };
  }
  const store = await SupervisedChromaStore.open({
    start: () => startChromaServer({ dataDir: path.join(options.cacheDir, 'chroma') }),
    hnsw: options.hnsw,
    onRestart: options.onRestart,
  });
  return {
    store,
    get server() {
      return store.current;
    },
    close: () => store.close(),
  };
}
