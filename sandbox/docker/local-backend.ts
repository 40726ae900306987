/**
 * The local execution backend: today's behaviour, one Docker engine (DOCKER_HOST or the local socket) with
 * a bound on the sandboxes in use at once across instances. The runtime and the image provider are made on
 * first use, so a run without Docker stages never talks to the daemon.
 */
import PQueue from 'p-queue';
import type { ExecutionBackend, ExecutionEngine, ReadOnlyWorkspace, ReadOnlyWorkspaceOptions, WorkspaceSnapshot } from '../../src/sandbox/types.ts';
import { DockerReadOnlyWorkspaces, sweepWorkspaceVolumes } from './read-only-workspace.ts';
import type { MirrorLocator } from './images.ts';
import { ImageProvider, type ImageConfig } from './images.ts';
import { DockerRuntime } from './sandbox.ts';
import { DEFAULT_ENGINE_BOUNDS, engineClient } from './engine-client.ts';

export interface LocalBackendConfig {
  /** sandboxes in use at once */
  concurrency: number;
  memoryGiB: number;
  cpus: number;
  images: ImageConfig;
  /** how long the engine may take to answer one request (default ENGINE_ANSWER_MS) */
  answerMs?: number;
}

export class LocalDockerBackend implements ExecutionBackend {
  readonly name = 'local';
  private readonly queue: PQueue;
  private runtimeInstance?: DockerRuntime;
  private imagesInstance?: ImageProvider;
  private workspaces?: DockerReadOnlyWorkspaces;

  constructor(
    private readonly mirrors: MirrorLocator,
    private readonly config: LocalBackendConfig,
  ) {
    this.queue = new PQueue({ concurrency: config.concurrency });
  }

  get runtime(): DockerRuntime {
    this.runtimeInstance ??= new DockerRuntime({
      docker: engineClient({}, { ...DEFAULT_ENGINE_BOUNDS, ...(this.config.answerMs ? { answerMs: this.config.answerMs } : {}) }),
      concurrency: this.config.concurrency,
      defaultLimits: { memoryBytes: Math.round(this.config.memoryGiB * 1024 ** 3), nanoCpus: Math.round(this.config.cpus * 1e9) },
    });
    return this.runtimeInstance;
  }

  private get engine(): ExecutionEngine {
    this.imagesInstance ??= new ImageProvider(this.runtime, this.mirrors, this.config.images);
    return { id: 'local', runtime: this.runtime, images: this.imagesInstance };
  }

  run<T>(_label: string, work: (engine: ExecutionEngine) => Promise<T>): Promise<T> {
    return this.queue.add(() => work(this.engine)) as Promise<T>;
  }

  check(): Promise<void> {
    return this.runtime.ping();
  }

  openWorkspace(snapshot: WorkspaceSnapshot, options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace> {
    this.workspaces ??= new DockerReadOnlyWorkspaces(this.runtime.docker);
    return this.workspaces.open(snapshot, options);
  }

  async sweep(runId: string): Promise<number> {
    // containers first: a workspace's snapshot volume is in use until its container is gone
    return (await this.runtime.sweepContainers(runId)) + (await sweepWorkspaceVolumes(runId, this.runtime.docker));
  }

  sweepOrphans(): Promise<number> {
    return this.runtime.sweepOrphans();
  }

  async close(): Promise<void> {
    await this.imagesInstance?.releaseAll();
  }
}
