/**
 * The `docker-pool` execution backend: several Docker engines given as DOCKER_HOST-style URLs
 * (`unix:///run/docker.sock`, `tcp://host:2375`, `ssh://user@host`), each with a maximum of sandboxes in use.
 * An instance goes to the healthy engine with the most free capacity. Images are made where they are
 * needed: the base image, when an engine lacks it, is streamed over from an engine that has it (`docker save`
 * into `docker load`); instance images are built on the engine that runs the instance.
 *
 * An engine that fails — its work throws and it no longer answers a ping — is drained: nothing more goes to
 * it, and the work it was running is run again on another engine (the work starts from a fresh testbed, so a
 * second attempt does it once). When no engine is left, the work fails with the reasons. `sweep` removes a
 * run's containers from every engine that still answers.
 */
import type Docker from 'dockerode';
import type { ExecutionBackend, ExecutionEngine, ReadOnlyWorkspace, ReadOnlyWorkspaceOptions, WorkspaceSnapshot } from '../../src/sandbox/types.ts';
import { DockerReadOnlyWorkspaces, sweepWorkspaceVolumes } from './read-only-workspace.ts';
import { DEFAULT_BASE_IMAGE, ImageProvider, type ImageConfig, type MirrorLocator } from './images.ts';
import { DockerRuntime } from './sandbox.ts';
import { DEFAULT_ENGINE_BOUNDS, ENGINE_TRANSFER_MS, engineClient, withinEngineBound } from './engine-client.ts';

export interface EngineSpec {
  url: string;
  /** sandboxes in use at once on this engine */
  maxWorkers: number;
}

/** dockerode options for a DOCKER_HOST-style URL. */
export function dockerOptionsOf(url: string): Docker.DockerOptions {
  const u = new URL(url);
  if (u.protocol === 'unix:') return { socketPath: u.pathname };
  if (u.protocol === 'tcp:' || u.protocol === 'http:') return { protocol: 'http', host: u.hostname, port: Number(u.port || 2375) };
  if (u.protocol === 'https:') return { protocol: 'https', host: u.hostname, port: Number(u.port || 2376) };
  if (u.protocol === 'ssh:') return { protocol: 'ssh', host: u.hostname, port: Number(u.port || 22), ...(u.username ? { username: u.username } : {}) };
  throw new Error(`engine URL ${url}: expected unix://, tcp://, https:// or ssh://`);
}

/** "URL" or "URL=N" (N sandboxes at once; default `defaultWorkers`). */
export function parseEngineSpec(text: string, defaultWorkers = 2): EngineSpec {
  const at = text.lastIndexOf('=');
  const url = at > 0 ? text.slice(0, at) : text;
  const maxWorkers = at > 0 ? Number(text.slice(at + 1)) : defaultWorkers;
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1) throw new Error(`engine ${text}: the worker count must be a positive integer`);
  dockerOptionsOf(url);
  return { url, maxWorkers };
}

interface PoolEngine extends ExecutionEngine {
  spec: EngineSpec;
  runtime: DockerRuntime;
  images: ImageProvider;
  active: number;
  drained?: string;
  baseReady?: Promise<void>;
}

export interface PoolBackendConfig {
  engines: readonly EngineSpec[];
  memoryGiB: number;
  cpus: number;
  images: ImageConfig;
  /** how long an engine may take to answer one request (default ENGINE_ANSWER_MS) */
  answerMs?: number;
}

export class DockerPoolBackend implements ExecutionBackend {
  readonly name = 'docker-pool';
  readonly engines: PoolEngine[];
  private waiters: Array<() => void> = [];
  /** what ran where, for the run's record and the tests */
  readonly placements: Array<{ label: string; engine: string; attempt: number; ok: boolean }> = [];

  constructor(
    mirrors: MirrorLocator,
    private readonly config: PoolBackendConfig,
  ) {
    if (!config.engines.length) throw new Error('docker-pool: no engines given');
    this.engines = config.engines.map((spec) => {
      const runtime = new DockerRuntime({
        docker: engineClient(dockerOptionsOf(spec.url), { ...DEFAULT_ENGINE_BOUNDS, ...(config.answerMs ? { answerMs: config.answerMs } : {}) }),
        concurrency: spec.maxWorkers,
        defaultLimits: { memoryBytes: Math.round(config.memoryGiB * 1024 ** 3), nanoCpus: Math.round(config.cpus * 1e9) },
      });
      return { id: spec.url, spec, runtime, images: new ImageProvider(runtime, mirrors, config.images), active: 0 };
    });
  }

  private get baseImage(): string {
    return this.config.images.baseImage ?? DEFAULT_BASE_IMAGE;
  }

  /** The healthy engine with the most free capacity, waiting while all are busy. */
  private async acquire(): Promise<PoolEngine> {
    for (;;) {
      const healthy = this.engines.filter((e) => !e.drained);
      if (!healthy.length) throw new Error(`docker-pool: every engine is drained (${this.engines.map((e) => `${e.id}: ${e.drained}`).join('; ')})`);
      const free = healthy.filter((e) => e.active < e.spec.maxWorkers).sort((a, b) => b.spec.maxWorkers - b.active - (a.spec.maxWorkers - a.active));
      if (free[0]) {
        free[0].active += 1;
        return free[0];
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private release(engine: PoolEngine): void {
    engine.active -= 1;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** undefined when the engine answers a ping (bounded: docker/engine-client.ts); else why not */
  private async silence(engine: PoolEngine): Promise<string | undefined> {
    try {
      await engine.runtime.ping();
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  private drain(engine: PoolEngine, reason: string): void {
    engine.drained ??= reason;
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** The base image on `engine`: there already, or streamed from an engine that has it. */
  private ensureBase(engine: PoolEngine): Promise<void> {
    engine.baseReady ??= (async () => {
      if (await engine.runtime.imageExists(this.baseImage)) return;
      for (const source of this.engines) {
        if (source === engine || source.drained || !(await source.runtime.imageExists(this.baseImage).catch(() => false))) continue;
        const stream = await source.runtime.docker.getImage(this.baseImage).get();
        const loaded = await engine.runtime.docker.loadImage(stream);
        const progress = new Promise<void>((resolve, reject) =>
          engine.runtime.docker.modem.followProgress(loaded, (err: Error | null) => (err ? reject(err) : resolve())),
        );
        await withinEngineBound(engine.runtime.docker, `loading ${this.baseImage}`, ENGINE_TRANSFER_MS, progress);
        return;
      }
      // no engine has it: the image provider's own message says how to build it
    })();
    engine.baseReady.catch(() => {
      engine.baseReady = undefined; // a failed transfer is tried again by the next instance
    });
    return engine.baseReady;
  }

  async run<T>(label: string, work: (engine: ExecutionEngine) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const engine = await this.acquire();
      try {
        await this.ensureBase(engine);
        const value = await work(engine);
        this.placements.push({ label, engine: engine.id, attempt, ok: true });
        return value;
      } catch (err) {
        this.placements.push({ label, engine: engine.id, attempt, ok: false });
        if ((await this.silence(engine)) === undefined) throw err; // the instance's own failure, not the engine's
        this.drain(engine, `stopped answering while running ${label}: ${(err as Error).message.split('\n')[0]}`);
      } finally {
        this.release(engine);
      }
    }
  }

  async close(): Promise<void> {
    for (const engine of this.engines) if (!engine.drained) await engine.images.releaseAll().catch(() => undefined);
  }

  async check(): Promise<void> {
    const silences = await Promise.all(this.engines.map((e) => this.silence(e)));
    silences.forEach((why, i) => {
      if (why) this.drain(this.engines[i]!, `did not answer at start: ${why}`);
    });
    if (silences.every(Boolean)) throw new Error(`docker-pool: no engine answers (${silences.join('; ')})`);
  }

  /** on the healthy engine with the most free capacity; a workspace takes no validation slot (it only reads) */
  async openWorkspace(snapshot: WorkspaceSnapshot, options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace> {
    const healthy = this.engines.filter((e) => !e.drained).sort((a, b) => b.spec.maxWorkers - b.active - (a.spec.maxWorkers - a.active));
    if (!healthy[0]) throw new Error(`docker-pool: every engine is drained (${this.engines.map((e) => `${e.id}: ${e.drained}`).join('; ')})`);
    return new DockerReadOnlyWorkspaces(healthy[0].runtime.docker).open(snapshot, options);
  }

  async sweep(runId: string): Promise<number> {
    let removed = 0;
    // a drained engine did not answer; asking it again would only wait out the bound (the next run sweeps it)
    for (const engine of this.engines.filter((e) => !e.drained)) {
      removed += await engine.runtime.sweepContainers(runId).catch(() => 0);
      removed += await sweepWorkspaceVolumes(runId, engine.runtime.docker).catch(() => 0);
    }
    return removed;
  }

  async sweepOrphans(): Promise<number> {
    let removed = 0;
    for (const engine of this.engines.filter((e) => !e.drained)) removed += await engine.runtime.sweepOrphans().catch(() => 0);
    return removed;
  }
}
