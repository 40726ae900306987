/**
 * The `bwrap` execution backend: sandboxes on this host under bubblewrap, no daemon, images from a folder
 * (RootfsStore). It suits machines where no Docker engine may run — a cluster node under Slurm among them:
 * each array task runs its own sandboxes on its node. The explorer's read-only workspaces need a Docker
 * engine; this backend offers none, so the explorer says so at start.
 */
import PQueue from 'p-queue';
import type { ExecutionBackend, ExecutionEngine } from '../../src/sandbox/types.ts';
import { type ImageConfig, InstanceImageRecipe, type MirrorLocator } from '../common/image-recipe.ts';
import { BwrapImageEngine } from './images.ts';
import { RootfsStore } from './image-store.ts';
import { BwrapRuntime } from './runtime.ts';

export interface BwrapBackendConfig {
  /** the image store's folder */
  imageStore: string;
  /** sandboxes in use at once */
  concurrency: number;
  memoryGiB: number;
  cpus: number;
  images: ImageConfig;
}

export class BwrapBackend implements ExecutionBackend {
  readonly name = 'bwrap';
  private readonly queue: PQueue;
  readonly runtime: BwrapRuntime;
  private readonly images: InstanceImageRecipe;

  constructor(mirrors: MirrorLocator, config: BwrapBackendConfig) {
    this.queue = new PQueue({ concurrency: config.concurrency });
    this.runtime = new BwrapRuntime({
      store: new RootfsStore(config.imageStore),
      concurrency: config.concurrency,
      defaultLimits: { memoryBytes: Math.round(config.memoryGiB * 1024 ** 3), nanoCpus: Math.round(config.cpus * 1e9) },
    });
    this.images = new InstanceImageRecipe(new BwrapImageEngine(this.runtime), mirrors, config.images);
  }

  private get engine(): ExecutionEngine {
    return { id: 'bwrap', runtime: this.runtime, images: this.images };
  }

  run<T>(_label: string, work: (engine: ExecutionEngine) => Promise<T>): Promise<T> {
    return this.queue.add(() => work(this.engine)) as Promise<T>;
  }

  check(): Promise<void> {
    return this.runtime.ping();
  }

  sweep(runId: string): Promise<number> {
    return this.runtime.sweepContainers(runId);
  }

  sweepOrphans(): Promise<number> {
    return this.runtime.sweepOrphans();
  }

  async close(): Promise<void> {
    await this.images.releaseAll();
  }
}
