/**
 * Execution backends by name (config `sandbox.backend`, `--backend`): where validation, evaluation and the
 * explorer's read-only workspaces run. Adding one is its folder or file in sandbox/ plus one line here; the run
 * and `locfix evaluate` both build theirs through `createExecutionBackend`.
 */
import path from 'node:path';
import type { RunConfig } from '../../src/config.ts';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import type { BackendName, ExecutionBackend } from '../../src/sandbox/types.ts';
import { LocalDockerBackend } from '../../sandbox/docker/local-backend.ts';
import type { ImageConfig, MirrorLocator } from '../../sandbox/docker/images.ts';
import { DockerPoolBackend, parseEngineSpec } from '../../sandbox/docker/pool-backend.ts';
import { BwrapBackend } from '../../sandbox/bwrap/backend.ts';

export type { BackendName };

export interface BackendSettings {
  images: ImageConfig;
  memoryGiB: number;
  cpus: number;
  /** sandboxes at once (per engine unless an engine names its own) */
  concurrency: number;
  /** the pool's engines, "URL" or "URL=N" */
  engines: readonly string[];
  /** how long an engine may take to answer one request */
  answerMs: number;
  /** the bwrap backend's image store */
  imageStore: string;
}

const BACKENDS: Record<BackendName, (mirrors: MirrorLocator, s: BackendSettings) => ExecutionBackend> = {
  local: (mirrors, s) =>
    new LocalDockerBackend(mirrors, { memoryGiB: s.memoryGiB, cpus: s.cpus, images: s.images, concurrency: s.concurrency, answerMs: s.answerMs }),
  'docker-pool': (mirrors, s) =>
    new DockerPoolBackend(mirrors, {
      memoryGiB: s.memoryGiB,
      cpus: s.cpus,
      images: s.images,
      engines: s.engines.map((e) => parseEngineSpec(e, s.concurrency)),
      answerMs: s.answerMs,
    }),
  bwrap: (mirrors, s) =>
    new BwrapBackend(mirrors, { imageStore: s.imageStore, memoryGiB: s.memoryGiB, cpus: s.cpus, images: s.images, concurrency: s.concurrency }),
};

function createExecutionBackend(name: BackendName, mirrors: MirrorLocator, settings: BackendSettings): ExecutionBackend {
  return BACKENDS[name](mirrors, settings);
}

/** The backend a run configuration names. */
export function runBackend(config: Pick<RunConfig, 'sandbox' | 'concurrency' | 'cacheDir'>, mirrors: MirrorLocator): ExecutionBackend {
  const d = config.sandbox;
  return createExecutionBackend(d.backend, mirrors, {
    images: {
      ...(d.baseImage ? { baseImage: d.baseImage } : {}),
      envImages: d.envImages,
      instanceSetup: d.instanceSetup,
      useOfficialImages: d.useOfficialImages,
      pullOfficialImages: d.pullOfficialImages,
      arch: d.arch,
      cacheLevel: d.cacheLevel,
    },
    memoryGiB: d.memoryGiB,
    cpus: d.cpus,
    concurrency: config.concurrency.sandboxes,
    engines: d.engines,
    answerMs: d.answerTimeoutSeconds * 1000,
    imageStore: path.resolve(d.imageStore ?? defaultImageStore(config.cacheDir)),
  });
}

/** Where the bwrap backend keeps its images unless the config names a folder. */
export function defaultImageStore(cacheDir: string | undefined): string {
  return path.join(cacheDir ?? defaultCacheDir(), 'sandbox-images');
}
