/**
 * The execution seam: what validation and evaluation need from the place where untrusted code runs (model
 * patches, repository tests, model-written reproduction scripts). docker/sandbox.ts implements it on one
 * Docker engine; another backend (an engine pool, a cluster) is one more implementation of these
 * interfaces. Validation imports only this file.
 */
import type { ResolvedSpec } from '../harness/specs.ts';
import type { InstanceSpec } from '../harness/instance-spec.ts';

export interface SandboxLimits {
  /** hard memory limit in bytes; swap is capped at the same value, so the container gets no swap */
  memoryBytes: number;
  /** CPU quota in units of 1e-9 CPUs (1e9 = one core) */
  nanoCpus: number;
  /** maximum number of processes/threads in the container (fork bombs) */
  pidsLimit: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryBytes: 4 * 1024 ** 3,
  nanoCpus: 1e9,
  pidsLimit: 1024,
};

export interface SandboxOptions {
  image: string;
  /** run id recorded as a label, so `sweepContainers(runId)` finds what this run left behind */
  runId?: string;
  /** container name prefix (a random suffix is added) */
  namePrefix?: string;
  limits?: Partial<SandboxLimits>;
  workdir?: string;
  env?: Record<string, string>;
  labels?: Record<string, string>;
  /** 'none' (default): no network, a working loopback. 'bridge' / 'host': the engine's network, as the
   * harness runs (for parity; the run records which was used) */
  network?: NetworkMode;
}

/** where validation and evaluation run (app/engine/backends.ts makes each): one Docker engine, a pool of engines, or
 * bubblewrap sandboxes on this host with no daemon; the first is the default */
export const BACKEND_NAMES = ['local', 'docker-pool', 'bwrap'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

export const NETWORK_MODES = ['none', 'bridge', 'host'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** which images locfix built are kept after a run, as the harness' --cache_level (docker/images.ts) */
export const CACHE_LEVELS = ['none', 'base', 'env', 'instance'] as const;
export type CacheLevel = (typeof CACHE_LEVELS)[number];

export interface ExecOptions {
  /** kill the container when the command runs longer (default: no timeout) */
  timeoutMs?: number;
  workdir?: string;
  env?: Record<string, string>;
  user?: string;
  /** keep at most this many bytes of output (head and tail are kept, the middle is dropped) */
  maxOutputBytes?: number;
}

export interface ExecResult {
  /** null when the command was killed by the timeout */
  exitCode: number | null;
  /** stdout and stderr interleaved in arrival order */
  output: string;
  timedOut: boolean;
  durationMs: number;
}

export interface FileToCopy {
  /** path inside the container, absolute */
  path: string;
  content: string | Buffer;
  mode?: number;
}

export class SandboxDeadError extends Error {
  constructor(id: string, reason: string) {
    super(`sandbox ${id.slice(0, 12)} is no longer usable: ${reason}`);
    this.name = 'SandboxDeadError';
  }
}

/** A sandbox kind's own "no such image" (a store of unpacked images): the same signal as an engine's 404. */
export class MissingImageError extends Error {
  readonly statusCode = 404;
  constructor(image: string, where: string) {
    super(`no such image ${image} in ${where}`);
    this.name = 'MissingImageError';
  }
}

/**
 * The engine has no such image (Docker: "No such image", Podman: "image not known"). Another process on the
 * same engine may remove a shared instance image after its own use (cache level "env") between this process's
 * lookup and its container's start: the caller asks its InstanceImages for the image again, which rebuilds it.
 */
export function isMissingImageError(err: unknown): boolean {
  if (err instanceof MissingImageError) return true;
  const e = err as { statusCode?: number; message?: string } | undefined;
  return e?.statusCode === 404 && /no such image|image not known/i.test(e.message ?? '');
}

/** One running, network-less container (or its equivalent): commands, files in, removal. */
export interface Sandbox {
  readonly id: string;
  /** false once a timeout killed it or it was disposed; callers that reuse a sandbox create a new one */
  readonly alive: boolean;
  /**
   * Runs a command (a string goes through `/bin/bash -c` with stderr joined to stdout); output in arrival
   * order. On timeout the sandbox is killed and is dead afterwards.
   */
  exec(command: string | readonly string[], options?: ExecOptions): Promise<ExecResult>;
  /** Copies files in; parent folders are created. */
  copyFiles(files: readonly FileToCopy[]): Promise<void>;
  /** Stops and removes it; safe to call more than once. */
  dispose(): Promise<void>;
}

/** Creates sandboxes, at most a configured number at a time through `withSandbox`. */
export interface SandboxRuntime {
  /** Throws a clear error when the backend does not answer. */
  ping(): Promise<void>;
  /** Creates and starts a sandbox; the caller must `dispose()` it (prefer `withSandbox`). */
  create(options: SandboxOptions): Promise<Sandbox>;
  /** Runs `fn` with a fresh sandbox (queued by the concurrency limit); the sandbox is always removed. */
  withSandbox<T>(options: SandboxOptions, fn: (sandbox: Sandbox) => Promise<T>): Promise<T>;
  /** Removes sandboxes this tool left behind (only those of `runId` when given); returns how many. */
  sweepContainers(runId?: string): Promise<number>;
  /** removes what locfix processes on this host that are gone left behind */
  sweepOrphans(): Promise<number>;
}

/** The image an instance runs in. */
export interface InstanceImage {
  image: string;
  source: 'official' | 'local';
  /** shell lines the eval script runs first (activating the official images' conda env) */
  prelude: string[];
  spec: ResolvedSpec;
  /** true when this call built the image (false: it already existed) */
  built: boolean;
}

/** Finds or builds the image for an instance's spec. */
export interface InstanceImages {
  instanceImage(spec: InstanceSpec, log?: (line: string) => void): Promise<InstanceImage>;
  /** why no image for the instance can be had here, without building one; undefined when one can */
  missingImage?(spec: InstanceSpec): Promise<string | undefined>;
  /** the caller is done with an instance's image (evaluation finished): the cache policy may remove it */
  release?(image: InstanceImage): Promise<void>;
  /** the run is over: the cache policy may remove the environment images it built */
  releaseAll?(): Promise<void>;
}

/**
 * A repository snapshot copied into a sandbox where nothing can be written: the snapshot is mounted
 * read-only at `root`, the root filesystem is read-only, the network is off, commands run unprivileged.
 * The explorer localizer runs its inspection commands here.
 */
export interface ReadOnlyWorkspace {
  /** absolute path of the snapshot inside the sandbox (the working folder of every command) */
  readonly root: string;
  /** how long copying the snapshot in took */
  readonly setupMs: number;
  /** runs one argv (no shell unless the argv names one); a timeout ends the command, not the workspace */
  run(argv: readonly string[], options: { timeoutMs: number; maxOutputBytes: number; workdir?: string }): Promise<ExecResult>;
  /** removes the sandbox and the snapshot copy; safe to call more than once */
  dispose(): Promise<void>;
}

export interface ReadOnlyWorkspaceOptions {
  image: string;
  runId?: string;
  limits?: Partial<SandboxLimits>;
}

/** Opens read-only workspaces of snapshots (listFiles + readBlob is all it reads). */
export interface ReadOnlyWorkspaces {
  open(snapshot: WorkspaceSnapshot, options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace>;
}

/** What a workspace reads of a snapshot: its files and their blobs. */
export interface WorkspaceSnapshot {
  readonly repo: string;
  readonly commit: string;
  listFiles(): Promise<Array<{ path: string; blob: string }>>;
  readBlob(blob: string): Promise<Buffer>;
}

/** One place that runs sandboxes: a runtime and the instance images built or found on it. */
export interface ExecutionEngine {
  /** e.g. "local", or the engine's URL in a pool */
  readonly id: string;
  readonly runtime: SandboxRuntime;
  readonly images: InstanceImages;
}

/**
 * Where the per-instance sandbox work of validation and evaluation runs. The local backend is one engine
 * with a bound on sandboxes in use; another backend (several engines, a cluster) is one more implementation
 * of this interface. `run` may retry `work` on another engine when the one it ran on fails, so `work` must
 * start from nothing (a fresh testbed) and leave nothing behind.
 */
export interface ExecutionBackend {
  readonly name: string;
  run<T>(label: string, work: (engine: ExecutionEngine) => Promise<T>): Promise<T>;
  /** fails, saying why, when no engine of the backend answers (a command checks this before any instance) */
  check?(): Promise<void>;
  /**
   * a read-only sandbox holding a snapshot (the explorer's commands run there), for backends that can hold one;
   * it carries `options.runId`, so `sweep` removes what a killed invocation left of it
   */
  openWorkspace?(snapshot: WorkspaceSnapshot, options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace>;
  /** removes the sandboxes (and workspace snapshots) a run left behind (a killed invocation's), on every engine; returns how many */
  sweep(runId: string): Promise<number>;
  /** removes what locfix processes on this host that are gone left behind, whatever their run; returns how many */
  sweepOrphans(): Promise<number>;
  /** the run is over: each engine's image cache policy may remove the environment images it built */
  close?(): Promise<void>;
}
