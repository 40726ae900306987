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
 * Commands go to one long-lived `sh` in the container, written to its stdin. A fresh `docker exec` per
 * command costs several Docker API round trips, about 50 ms, which is as long as a typical grep; the
 * session avoids that. Each command's end is marked by a line with a random nonce and the exit code.
 * Its stdin is /dev/null, so it cannot read the commands that follow.
 *
 * Each command runs under coreutils `timeout`, so a slow `grep -r` ends that command and leaves the
 * session usable. A backstop a few seconds longer kills the container when the session stops answering.
 * The next command then recreates the container on the same volume.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import type Docker from 'dockerode';
import { pack as tarPack } from 'tar-stream';
import { DEFAULT_LIMITS, type ExecResult, type ReadOnlyWorkspace, type ReadOnlyWorkspaceOptions, type ReadOnlyWorkspaces } from '../../src/sandbox/types.ts';
import { OutputCollector } from '../common/output-collector.ts';
import { RUN_LABEL, SANDBOX_LABEL, ownedLabels, removeVolumes } from './ownership.ts';
import { DockerSandbox, createDockerClient, trackForCleanup } from './sandbox.ts';

export const WORKSPACE_ROOT = '/repo';
const NOBODY = '65534:65534';
/** extra time the exec backstop allows beyond the command's own timeout */
const BACKSTOP_MS = 5_000;

export class DockerReadOnlyWorkspaces implements ReadOnlyWorkspaces {
  constructor(private readonly docker: Docker = createDockerClient()) {}

  async open(snapshot: Parameters<ReadOnlyWorkspaces['open']>[0], options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace> {
    const started = performance.now();
    const labels = { ...ownedLabels(options.runId), 'locfix.snapshot': `${snapshot.repo}@${snapshot.commit}` };
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
    // blobs are read ahead in a window: one git round trip per file, in sequence, is seconds on django
    const AHEAD = 64;
    const reads: Array<Promise<Buffer> | undefined> = [];
    let cursor = 0;
    const next = (): Promise<Buffer> => {
      while (reads.length - cursor < AHEAD && reads.length < files.length) {
        const read = snapshot.readBlob(files[reads.length]!.blob);
        read.catch(() => undefined); // awaited in order below; a failure surfaces there
        reads.push(read);
      }
      const read = reads[cursor]!;
      reads[cursor++] = undefined;
      return read;
    };
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
        const body = await next();
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
  private session?: ShellSession;
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
    this.session = await ShellSession.open(this.docker, container);
  }

  async run(argv: readonly string[], options: { timeoutMs: number; maxOutputBytes: number; workdir?: string }): Promise<ExecResult> {
    if (this.disposed) throw new Error('the read-only workspace was disposed');
    if (!this.sandbox?.alive || !this.session?.alive) {
      await this.sandbox?.dispose().catch(() => undefined);
      await this.start();
    }
    const seconds = Math.max(1, Math.ceil(options.timeoutMs / 1000));
    const result = await this.session!.run(
      ['timeout', '-k', '2', String(seconds), ...argv],
      options.workdir ?? WORKSPACE_ROOT,
      seconds * 1000 + BACKSTOP_MS,
      options.maxOutputBytes,
    );
    if (result.exitCode === null) {
      // the session stopped answering: end the container; the next command starts a new one
      await this.sandbox!.dispose().catch(() => undefined);
    }
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

const shellQuote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** One `sh` reading commands from its stdin; each command's output ends with a nonce line and its exit code. */
class ShellSession {
  alive = true;
  private pending?: { nonce: string; collector: OutputCollector; tail: string; done: (code: number) => void };

  private constructor(private readonly stream: Duplex) {}

  static async open(docker: Docker, container: Docker.Container): Promise<ShellSession> {
    const exec = await container.exec({
      Cmd: ['/bin/sh'],
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      User: NOBODY,
      WorkingDir: WORKSPACE_ROOT,
    });
    const stream = (await exec.start({ hijack: true, stdin: true })) as unknown as Duplex;
    const session = new ShellSession(stream);
    const sink = new PassThrough();
    sink.on('data', (chunk: Buffer) => session.onData(chunk));
    docker.modem.demuxStream(stream, sink, sink);
    const end = () => {
      session.alive = false;
      session.pending?.done(-1);
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
    return session;
  }

  private onData(chunk: Buffer): void {
    const p = this.pending;
    if (!p) return;
    p.collector.push(chunk);
    p.tail = (p.tail + chunk.toString('utf8')).slice(-200);
    const m = new RegExp(`\\n${p.nonce} (\\d+)\\n$`).exec(p.tail);
    if (m) p.done(Number(m[1]));
  }

  run(argv: readonly string[], workdir: string, backstopMs: number, maxOutputBytes: number): Promise<ExecResult> {
    if (this.pending) throw new Error('the workspace runs one command at a time');
    const started = Date.now();
    const nonce = `__locfix_${randomBytes(8).toString('hex')}`;
    const collector = new OutputCollector(maxOutputBytes + 200);
    return new Promise<ExecResult>((resolve) => {
      const timer = setTimeout(() => finish(null), backstopMs);
      const finish = (code: number | null) => {
        clearTimeout(timer);
        this.pending = undefined;
        if (code === null || code === -1) this.alive = false;
        // the marker line and the newline printed before it are not the command's output
        const output = collector.text().replace(new RegExp(`\\n?${nonce} \\d+\\n$`), '');
        const exitCode = code === null || code === -1 ? null : code;
        resolve({ exitCode, output, timedOut: code === null, durationMs: Date.now() - started });
      };
      this.pending = { nonce, collector, tail: '', done: finish };
      if (!this.alive) return finish(-1);
      const line = `cd ${shellQuote(workdir)} && ${argv.map(shellQuote).join(' ')} </dev/null 2>&1; printf '\\n%s %s\\n' ${nonce} "$?"\n`;
      this.stream.write(line);
    });
  }
}

/** Removes the snapshot volumes locfix left behind (those of `runId` when given); returns how many. */
export async function sweepWorkspaceVolumes(runId?: string, docker: Docker = createDockerClient()): Promise<number> {
  const label = runId ? [`${RUN_LABEL}=${runId}`] : [`${SANDBOX_LABEL}=1`];
  const { Volumes } = await docker.listVolumes({ filters: { label } });
  const mine = (Volumes ?? []).filter((v) => v.Name.startsWith('locfix-ro-'));
  await removeVolumes(docker, mine);
  return mine.length;
}
