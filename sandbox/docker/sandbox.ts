/**
 * The Docker backend of the sandbox interface (src/sandbox/types.ts): containers for running code locfix did not write (model patches, repository tests,
 * model-written reproduction scripts).
 *
 * Every container: no network unless asked for (NetworkDisabled + network mode "none"), memory (swap included), CPU and
 * pids limits, labels `locfix=1` and `locfix.run=<run id>` so leftovers of a crashed run can be swept, and
 * a guaranteed removal: `withSandbox` removes it in a finally block, and SIGINT/SIGTERM remove every
 * container this process still holds before the process exits.
 *
 * A command that runs past its timeout cannot be killed through the Docker API (execs have no kill), so
 * the whole container is killed and the sandbox is marked dead; callers that reuse a sandbox create a new
 * one after a timeout. Where the process runs on the same host as the daemon that is also what the
 * harness ends up doing (it stops the container).
 */
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import PQueue from 'p-queue';
import { PassThrough, type Readable } from 'node:stream';
import path from 'node:path';
import {
  DEFAULT_LIMITS,
  SandboxDeadError,
  type ExecOptions,
  type ExecResult,
  type FileToCopy,
  type Sandbox,
  type SandboxLimits,
  type SandboxOptions,
  type SandboxRuntime,
} from '../../src/sandbox/types.ts';
import { OutputCollector } from '../common/output-collector.ts';
import { addTree } from '../common/tar.ts';
import { LOOPBACK_HOSTS_SCRIPT } from '../common/loopback-hosts.ts';
import { withFreshSandbox } from '../common/fresh-sandbox.ts';
import { pack as tarPack, extract as tarExtract } from 'tar-stream';
import { beforeSignalExit } from '../../src/util/termination.ts';
import { RUN_LABEL, SANDBOX_LABEL, ownedLabels, sweepOrphans } from './ownership.ts';
import { ENGINE_TRANSFER_MS, EngineNoAnswerError, engineClient, engineHeartbeat, withinEngineBound } from './engine-client.ts';

export { RUN_LABEL, SANDBOX_LABEL } from './ownership.ts';

export class DockerUnavailableError extends Error {
  constructor(detail: string) {
    super(`the Docker daemon does not answer (${detail}); run scripts/setup-docker.sh as root, or set DOCKER_HOST`);
    this.name = 'DockerUnavailableError';
  }
}

/** A dockerode client for DOCKER_HOST when it is set, the local socket otherwise (dockerode's defaults). */
export function createDockerClient(): Docker {
  return engineClient();
}

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
/** a command given no timeout still ends: an engine that stalls mid-stream would otherwise hold it forever */
export const DEFAULT_EXEC_TIMEOUT_MS = 2 * 60 * 60_000;
/** a container kill the engine does not confirm in this long is given up (the sandbox is dead either way) */
const KILL_BOUND_MS = 30_000;

/** Writes the standard loopback names (sandbox/common/loopback-hosts.ts). */
async function writeLoopbackHosts(sandbox: DockerSandbox): Promise<void> {
  const result = await sandbox.exec(['/bin/sh', '-c', LOOPBACK_HOSTS_SCRIPT], { user: 'root', timeoutMs: 30_000 });
  if (result.exitCode !== 0) throw new Error(`sandbox ${sandbox.id.slice(0, 12)}: writing /etc/hosts failed: ${result.output.trim()}`);
}

/** Every container this process created and has not removed yet: removed before a signal ends the process. */
const liveSandboxes = new Set<DockerSandbox>();
let signalCleanupInstalled = false;

function installSignalCleanup(): void {
  if (signalCleanupInstalled) return;
  signalCleanupInstalled = true;
  // bounded by src/util/termination.ts; a command that claims SIGINT (Ctrl-C finishes the stages in flight)
  // keeps its containers until it ends
  beforeSignalExit(() => Promise.all([...liveSandboxes].map((sandbox) => sandbox.dispose().catch(() => undefined))));
}

/** Registers a container made outside `DockerRuntime.create` for removal on SIGINT/SIGTERM. */
export function trackForCleanup(sandbox: DockerSandbox): void {
  installSignalCleanup();
  liveSandboxes.add(sandbox);
}

/** One running container. Obtain through `DockerRuntime.withSandbox` (or `create` + `dispose`). */
export class DockerSandbox implements Sandbox {
  private dead?: string;
  private disposed?: Promise<void>;

  constructor(
    readonly docker: Docker,
    readonly container: Docker.Container,
    readonly image: string,
    readonly startedMs: number,
  ) {}

  get id(): string {
    return this.container.id;
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Copies files in (as one tar archive); parent folders are created. */
  async copyFiles(files: readonly FileToCopy[]): Promise<void> {
    this.assertAlive();
    const pack = tarPack();
    const dirs = new Set<string>();
    for (const file of files) {
      if (!path.posix.isAbsolute(file.path)) throw new Error(`copyFiles: container path must be absolute: ${file.path}`);
      const rel = file.path.replace(/^\/+/, '');
      const parts = rel.split('/');
      for (let i = 1; i < parts.length; i++) {
        const dir = parts.slice(0, i).join('/');
        if (!dirs.has(dir)) {
          dirs.add(dir);
          pack.entry({ name: dir, type: 'directory', mode: 0o755 });
        }
      }
      const body = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
      pack.entry({ name: rel, mode: file.mode ?? 0o644, size: body.length }, body);
    }
    pack.finalize();
    await this.container.putArchive(pack as unknown as Readable, { path: '/' });
  }

  /** Copies a host folder (recursively, symlinks kept) to `containerDir`. */
  async copyDir(hostDir: string, containerDir: string): Promise<void> {
    this.assertAlive();
    if (!path.posix.isAbsolute(containerDir)) throw new Error(`copyDir: container path must be absolute: ${containerDir}`);
    const pack = tarPack();
    const prefix = containerDir.replace(/^\/+/, '').replace(/\/+$/, '');
    const producing = (async () => {
      pack.entry({ name: prefix, type: 'directory', mode: 0o755 });
      await addTree(pack, hostDir, prefix);
      pack.finalize();
    })();
    producing.catch((err) => pack.destroy(err as Error));
    await Promise.all([this.container.putArchive(pack as unknown as Readable, { path: '/' }), producing]);
  }

  /** Reads one file out of the container. */
  async readFile(containerPath: string): Promise<Buffer> {
    this.assertAlive();
    const archive = (await this.container.getArchive({ path: containerPath })) as unknown as Readable;
    const extract = tarExtract();
    const chunks: Buffer[] = [];
    let found = false;
    const reading = new Promise<void>((resolve, reject) => {
      extract.on('entry', (header, stream, next) => {
        if (!found && header.type === 'file') {
          found = true;
          stream.on('data', (c: unknown) => {
            chunks.push(c as Buffer);
          });
        } else {
          stream.resume();
        }
        stream.on('end', next);
      });
      extract.on('finish', resolve);
      extract.on('error', reject);
      archive.on('error', reject);
      archive.pipe(extract);
    });
    await withinEngineBound(this.docker, `reading ${containerPath}`, ENGINE_TRANSFER_MS, reading).catch((err: unknown) => {
      archive.destroy();
      throw err;
    });
    if (!found) throw new Error(`${containerPath} in the container is not a regular file`);
    return Buffer.concat(chunks);
  }

  /**
   * Runs a command (a string goes through `/bin/bash -c`, with stderr joined to stdout inside the container).
   * stdout and stderr are demultiplexed into one log in arrival order. On timeout the container is killed
   * and the sandbox is dead afterwards.
   */
  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.assertAlive();
    // Docker forwards the two streams from separate pipes, so lines written to stdout and then stderr can
    // arrive in either order; one pipe keeps a shell command's log in the order the process wrote it.
    const cmd = typeof command === 'string' ? ['/bin/bash', '-c', `exec 2>&1\n${command}`] : [...command];
    const started = Date.now();
    const exec = await this.container.exec({
      Cmd: cmd,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      WorkingDir: options.workdir,
      User: options.user,
      Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
    });
    const stream = (await exec.start({ hijack: true, stdin: false })) as NodeJS.ReadableStream & { destroy?: () => void };
    const collector = new OutputCollector(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => collector.push(chunk));
    this.docker.modem.demuxStream(stream, sink, sink);

    const finished = new Promise<void>((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        resolve();
      }, timeoutMs);
    });
    const heartbeat = engineHeartbeat(this.docker);
    try {
      await Promise.race([finished, timeout, heartbeat.silent]);
    } catch (err) {
      // the engine stopped answering while the command ran: nothing it reports can be trusted any more
      this.dead = (err as Error).message;
      stream.destroy?.();
      throw err;
    } finally {
      clearTimeout(timer);
      heartbeat.stop();
    }
    if (timedOut) {
      this.dead = `a command timed out after ${timeoutMs} ms`;
      stream.destroy?.();
      try {
        await withinEngineBound(this.docker, 'a container kill', KILL_BOUND_MS, this.container.kill());
      } catch (err) {
        // a kill the engine does not answer means the engine stalled, not the command: say so, so that a
        // backend of several engines drains it and runs the work again elsewhere
        if (err instanceof EngineNoAnswerError) throw err;
      }
      return { exitCode: null, output: collector.text(), timedOut: true, durationMs: Date.now() - started };
    }
    // The stream can end a moment before the daemon records the exit code.
    let info = await exec.inspect();
    for (let i = 0; i < 50 && info.Running; i++) {
      await new Promise((r) => setTimeout(r, 20));
      info = await exec.inspect();
    }
    return { exitCode: info.ExitCode ?? null, output: collector.text(), timedOut: false, durationMs: Date.now() - started };
  }

  /** Stops and removes the container; safe to call more than once. */
  dispose(): Promise<void> {
    if (!this.disposed) {
      this.dead ??= 'disposed';
      this.disposed = this.container
        .remove({ force: true, v: true })
        .catch((err: { statusCode?: number }) => {
          // 404: already gone; 409: removal already in progress
          if (err?.statusCode !== 404 && err?.statusCode !== 409) throw err;
        })
        .finally(() => liveSandboxes.delete(this));
    }
    return this.disposed;
  }

  /** Container state as the daemon reports it (for diagnostics and tests). */
  async inspect(): Promise<Docker.ContainerInspectInfo> {
    return this.container.inspect();
  }

  private assertAlive(): void {
    if (this.dead !== undefined) throw new SandboxDeadError(this.id, this.dead);
  }
}

export interface SandboxRuntimeOptions {
  docker?: Docker;
  /** how many sandboxes may run at once through `withSandbox` (default 2) */
  concurrency?: number;
  defaultLimits?: Partial<SandboxLimits>;
}

/** Creates sandboxes against one daemon, at most `concurrency` at a time. */
export class DockerRuntime implements SandboxRuntime {
  readonly docker: Docker;
  private readonly queue: PQueue;
  private readonly limits: SandboxLimits;

  constructor(options: SandboxRuntimeOptions = {}) {
    this.docker = options.docker ?? createDockerClient();
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    this.limits = { ...DEFAULT_LIMITS, ...options.defaultLimits };
  }

  /** Throws DockerUnavailableError when the daemon does not answer. */
  async ping(): Promise<void> {
    try {
      await this.docker.ping();
    } catch (err) {
      throw new DockerUnavailableError(err instanceof Error ? err.message : String(err));
    }
  }

  async imageExists(name: string): Promise<boolean> {
    try {
      await this.docker.getImage(name).inspect();
      return true;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return false;
      throw err;
    }
  }

  /** Creates and starts a container. The caller must `dispose()` it; prefer `withSandbox`. */
  async create(options: SandboxOptions): Promise<DockerSandbox> {
    const limits = { ...this.limits, ...options.limits };
    const network = options.network ?? 'none';
    const name = `${options.namePrefix ?? 'locfix'}-${randomBytes(5).toString('hex')}`.replace(/[^a-zA-Z0-9_.-]/g, '_');
    installSignalCleanup();
    const container = await this.docker.createContainer({
      name,
      Image: options.image,
      Cmd: ['sleep', 'infinity'],
      WorkingDir: options.workdir,
      Env: options.env ? Object.entries(options.env).map(([k, v]) => `${k}=${v}`) : undefined,
      NetworkDisabled: network === 'none',
      Labels: { ...ownedLabels(options.runId), ...options.labels },
      HostConfig: {
        NetworkMode: network,
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        NanoCpus: limits.nanoCpus,
        PidsLimit: limits.pidsLimit,
        // tini as PID 1 reaps zombies left by test processes and forwards the kill on timeout
        Init: true,
        AutoRemove: false,
      },
    });
    const sandbox = new DockerSandbox(this.docker, container, options.image, Date.now());
    liveSandboxes.add(sandbox);
    try {
      await container.start();
      // with a network Docker writes /etc/hosts itself
      if (network === 'none') await writeLoopbackHosts(sandbox);
    } catch (err) {
      await sandbox.dispose().catch(() => undefined);
      throw err;
    }
    return sandbox;
  }

  /** Runs `fn` with a fresh sandbox (queued by the concurrency limit); the container is always removed. */
  withSandbox<T>(options: SandboxOptions, fn: (sandbox: DockerSandbox) => Promise<T>): Promise<T> {
    return withFreshSandbox(this.queue, () => this.create(options), fn);
  }

  /** Removes what locfix processes on this host that are gone left behind (docker/ownership.ts). */
  sweepOrphans(): Promise<number> {
    return sweepOrphans(this.docker);
  }

  /** Removes containers labelled by locfix (only those of `runId` when given). Returns how many. */
  async sweepContainers(runId?: string): Promise<number> {
    const label = runId ? [`${RUN_LABEL}=${runId}`] : [`${SANDBOX_LABEL}=1`];
    const containers = await this.docker.listContainers({ all: true, filters: { label } });
    await Promise.all(
      containers.map((info) =>
        this.docker
          .getContainer(info.Id)
          .remove({ force: true, v: true })
          .catch((err: { statusCode?: number }) => {
            if (err?.statusCode !== 404 && err?.statusCode !== 409) throw err;
          }),
      ),
    );
    return containers.length;
  }
}

/** Module-level convenience for `locfix` commands and scripts. */
export async function sweepContainers(runId?: string, docker: Docker = createDockerClient()): Promise<number> {
  return new DockerRuntime({ docker }).sweepContainers(runId);
}
