/**
 * Read-only workspaces on one Docker engine (src/sandbox/types.ts `ReadOnlyWorkspaces`). The snapshot's
 * files are streamed as one tar archive into a fresh volume through a container that is created but never
 * started. The workspace container then mounts that volume read-only at /repo. Its other settings:
 *
 * - a read-only root filesystem and no /dev/shm (IPC mode "none");
 * - no network, all capabilities dropped, no-new-privileges;
 * - user nobody (65534);
 * - memory, CPU and pids limits.
 *
 * Nothing a command does can change a byte of the snapshot or leave a file behind. The volume works on any
 * engine, local or remote: no host folder is shared.
 *
 * Each command runs under coreutils `timeout`, so a slow `grep -r` ends that command and leaves the
 * container usable. The sandbox's own exec timeout (a few seconds longer) is the backstop. When that kills
 * the container, the next command recreates it on the same volume.
 */
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Docker from 'dockerode';
import { pack as tarPack } from 'tar-stream';
import { DEFAULT_LIMITS, type ExecResult, type ReadOnlyWorkspace, type ReadOnlyWorkspaceOptions, type ReadOnlyWorkspaces } from '../src/sandbox/types.ts';
import { DockerSandbox, RUN_LABEL, SANDBOX_LABEL, createDockerClient, trackForCleanup } from './sandbox.ts';

export const WORKSPACE_ROOT = '/repo';
const NOBODY = '65534:65534';
/** extra time the exec backstop allows beyond the command's own timeout */
const BACKSTOP_MS = 5_000;

export class DockerReadOnlyWorkspaces implements ReadOnlyWorkspaces {
  constructor(private readonly docker: Docker = createDockerClient()) {}

  async open(snapshot: Parameters<ReadOnlyWorkspaces['open']>[0], options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace> {
    const started = performance.now();
    const labels = { [SANDBOX_LABEL]: '1', 'locfix.snapshot': `${snapshot.repo}@${snapshot.commit}`, ...(options.runId ? { [RUN_LABEL]: options.runId } : {}) };
    const volume = `locfix-ro-${randomBytes(6).toString('hex')}`;
    await this.docker.createVolume({ Name: volume, Labels: labels });
    try {
      await fillVolume(this.docker, volume, snapshot, options.image, labels);
      const workspace = new DockerReadOnlyWorkspace(this.docker, volume, options, labels, performance.now() - started);
      await workspace.start();
      return workspace;
    } catch (err) {
      await this.docker
        .getVolume(volume)
        .remove()
        .catch(() => undefined);
      throw err;
    }
  }
}

/** Streams every file of the snapshot into the volume through a created (never started) container. */
async function fillVolume(
  docker: Docker,
  volume: string,
  snapshot: Parameters<ReadOnlyWorkspaces['open']>[0],
  image: string,
  labels: Record<string, string>,
): Promise<void> {
  const writer = await docker.createContainer({
    Image: image,
    Cmd: ['true'],
    NetworkDisabled: true,
    Labels: labels,
    HostConfig: { Binds: [`${volume}:${WORKSPACE_ROOT}`], NetworkMode: 'none' },
  });
  try {
    const files = await snapshot.listFiles();
    const pack = tarPack();
    const producing = (async () => {
      const dirs = new Set<string>();
      for (const file of files) {
        const parts = file.path.split('/');
        for (let i = 1; i < parts.length; i++) {
          const dir = parts.slice(0, i).join('/');
          if (dirs.has(dir)) continue;
          dirs.add(dir);
          pack.entry({ name: `${dir}/`, type: 'directory', mode: 0o755 });
        }
        const body = await snapshot.readBlob(file.blob);
        await new Promise<void>((resolve, reject) =>
          pack.entry({ name: file.path, mode: 0o644, size: body.length }, body, (err) => (err ? reject(err) : resolve())),
        );
      }
      pack.finalize();
    })();
    producing.catch((err) => pack.destroy(err as Error));
    await Promise.all([writer.putArchive(pack as unknown as Readable, { path: WORKSPACE_ROOT }), producing]);
  } finally {
    await writer.remove({ force: true }).catch(() => undefined);
  }
}

class DockerReadOnlyWorkspace implements ReadOnlyWorkspace {
  readonly root = WORKSPACE_ROOT;
  private sandbox?: DockerSandbox;
  private disposed = false;

  constructor(
    private readonly docker: Docker,
    private readonly volume: string,
    private readonly options: ReadOnlyWorkspaceOptions,
    private readonly labels: Record<string, string>,
    readonly setupMs: number,
  ) {}

  async start(): Promise<void> {
    const limits = { ...DEFAULT_LIMITS, ...this.options.limits };
    const container = await this.docker.createContainer({
      name: `locfix-explore-${randomBytes(5).toString('hex')}`,
      Image: this.options.image,
      Cmd: ['sleep', 'infinity'],
      User: NOBODY,
      WorkingDir: WORKSPACE_ROOT,
      NetworkDisabled: true,
      Labels: this.labels,
      HostConfig: {
        Binds: [`${this.volume}:${WORKSPACE_ROOT}:ro`],
        ReadonlyRootfs: true,
        IpcMode: 'none',
        NetworkMode: 'none',
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: limits.memoryBytes,
        MemorySwap: limits.memoryBytes,
        NanoCpus: limits.nanoCpus,
        PidsLimit: limits.pidsLimit,
        Init: true,
      },
    });
    const sandbox = new DockerSandbox(this.docker, container, this.options.image, Date.now());
    trackForCleanup(sandbox);
    try {
      await container.start();
    } catch (err) {
      await sandbox.dispose().catch(() => undefined);
      throw err;
    }
    this.sandbox = sandbox;
  }

  async run(argv: readonly string[], options: { timeoutMs: number; maxOutputBytes: number; workdir?: string }): Promise<ExecResult> {
    if (this.disposed) throw new Error('the read-only workspace was disposed');
    if (!this.sandbox?.alive) await this.start();
    const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
    const result = await this.sandbox!.exec(['timeout', '-k', '2', String(seconds), ...argv], {
      timeoutMs: seconds * 1000 + BACKSTOP_MS,
      maxOutputBytes: options.maxOutputBytes,
      user: NOBODY,
      workdir: options.workdir ?? WORKSPACE_ROOT,
    });
    // coreutils timeout exits 124 (137 after its KILL) when the command ran out of time
    const timedOut = result.timedOut || result.exitCode === 124 || result.exitCode === 137;
    return { ...result, timedOut };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.sandbox?.dispose().catch(() => undefined);
    await this.docker
      .getVolume(this.volume)
      .remove({ force: true })
      .catch((err: { statusCode?: number }) => {
        if (err?.statusCode !== 404) throw err;
      });
  }
}

/** Removes the snapshot volumes locfix left behind (those of `runId` when given); returns how many. */
export async function sweepWorkspaceVolumes(runId?: string, docker: Docker = createDockerClient()): Promise<number> {
  const label = runId ? [`${RUN_LABEL}=${runId}`] : [`${SANDBOX_LABEL}=1`];
  const { Volumes } = await docker.listVolumes({ filters: { label } });
  const mine = (Volumes ?? []).filter((v) => v.Name.startsWith('locfix-ro-'));
  await Promise.all(
    mine.map((v) =>
      docker
        .getVolume(v.Name)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
  return mine.length;
}
