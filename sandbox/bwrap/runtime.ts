/**
 * The bubblewrap sandbox kind (src/sandbox/types.ts' interfaces without a daemon): every command runs under
 * `bwrap` in fresh PID, network, IPC and UTS namespaces, over an image from the RootfsStore. The image's
 * layers are overlayfs lower layers and each sandbox has a writable layer of its own on disk, so the whole
 * root is writable as in a container and the image never changes. The overlay is mounted by `unshare` in a
 * private mount namespace (a user namespace too when not root: Linux ≥ 5.11 mounts overlayfs there), then
 * bwrap takes it as its root.
 *
 * Differences from a Docker container, each deliberate or a limit of the kernel:
 * - each `exec` is its own process tree: a process left running in the background ends with its command
 *   (the sandbox's files persist between commands, its processes do not);
 * - commands of one sandbox run one at a time (one overlay mount of a writable layer at a time);
 * - memory, CPU and pids limits hold where this user may create cgroups (cgroup-limits.ts says which);
 * - network mode "bridge" does not exist (no daemon makes a bridge); "host" shares the host's network;
 * - commands run as root inside: `user` other than root is refused rather than faked.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import type { Readable } from 'node:stream';
import { pack as tarPack } from 'tar-stream';
import {
  DEFAULT_LIMITS,
  type ExecOptions,
  type ExecResult,
  type FileToCopy,
  SandboxDeadError,
  type SandboxLimits,
  type SandboxOptions,
  type SandboxRuntime,
} from '../../src/sandbox/types.ts';
import { beforeSignalExit } from '../../src/util/termination.ts';
import { pidAlive } from '../../src/util/file-lock.ts';
import { OutputCollector } from '../common/output-collector.ts';
import { addTree } from '../common/tar.ts';
import { CgroupLimits, type LimitsInEffect, removeLeftoverCgroups, type SandboxCgroup } from './cgroup-limits.ts';
import { DEFAULT_IMAGE_ENV, type RootfsStore, assertMountablePath, removeTree } from './image-store.ts';
import { bwrapLauncher, bwrapOptions, commandArgv, LAUNCH_CWD, LAUNCH_ENV, launchScript, overlayRoot, withOverlay } from './command-line.ts';
import { sandboxFolders, type SandboxOwner } from './sandbox-folders.ts';
import { assertOwners, launchSettings, type LaunchSettings, prepareSandboxFolder } from './launch.ts';
import { LOOPBACK_HOSTS_SCRIPT } from '../common/loopback-hosts.ts';
import { withFreshSandbox } from '../common/fresh-sandbox.ts';

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const DEFAULT_EXEC_TIMEOUT_MS = 2 * 60 * 60_000;

export class BwrapUnavailableError extends Error {
  constructor(detail: string) {
    super(`the bubblewrap sandbox cannot run here (${detail}); install bubblewrap (Debian: apt-get install bubblewrap) on Linux ≥ 5.11`);
    this.name = 'BwrapUnavailableError';
  }
}

const liveSandboxes = new Set<BwrapSandbox>();
let cleanupInstalled = false;
function trackLive(sandbox: BwrapSandbox): void {
  if (!cleanupInstalled) {
    cleanupInstalled = true;
    beforeSignalExit(() => Promise.all([...liveSandboxes].map((s) => s.dispose().catch(() => undefined))));
  }
  liveSandboxes.add(sandbox);
}

/** One sandbox: an image's layers, a writable layer, a cgroup; commands run one at a time. */
export class BwrapSandbox {
  private dead?: string;
  private disposed?: Promise<void>;
  private readonly commands = new PQueue({ concurrency: 1 });

  constructor(
    readonly id: string,
    /** the sandbox's folder: upper/ (its writable layer), work/ (overlayfs' own), merged/ (the mount point) */
    readonly dir: string,
    readonly image: string,
    private readonly layers: readonly string[],
    private readonly env: Readonly<Record<string, string>>,
    private readonly workdir: string,
    private readonly network: 'none' | 'host',
    private readonly cgroup: SandboxCgroup,
    private readonly launch: LaunchSettings,
  ) {}

  get alive(): boolean {
    return this.dead === undefined;
  }

  /** processes running in the sandbox now, where a cgroup counts them */
  processCount(): Promise<number | undefined> {
    return this.cgroup.processCount();
  }

  /** the writable layer: after a build, the new image's layer */
  get upperDir(): string {
    return path.join(this.dir, 'upper');
  }

  async exec(command: string | readonly string[], options: ExecOptions = {}): Promise<ExecResult> {
    this.assertAlive();
    if (options.user !== undefined && options.user !== 'root' && options.user !== '0') {
      throw new Error(`bwrap sandbox: commands run as root inside; user ${JSON.stringify(options.user)} is not supported`);
    }
    return (await this.commands.add(() => this.run(commandArgv(command), options))) as ExecResult;
  }

  /** Copies files in as one tar archive, unpacked by `tar` inside the sandbox (a symbolic link the sandbox made cannot point the copy at the host). */
  async copyFiles(files: readonly FileToCopy[]): Promise<void> {
    const pack = tarPack();
    for (const file of files) {
      if (!path.posix.isAbsolute(file.path)) throw new Error(`copyFiles: sandbox path must be absolute: ${file.path}`);
      const body = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
      pack.entry({ name: file.path.replace(/^\/+/, ''), mode: file.mode ?? 0o644, size: body.length }, body);
    }
    pack.finalize();
    await this.untar(
      pack as unknown as Readable,
      '/',
      files.map((f) => path.posix.dirname(f.path)),
    );
  }

  /** Copies a host folder (recursively, symlinks kept) to `sandboxDir`. */
  async copyDir(hostDir: string, sandboxDir: string): Promise<void> {
    if (!path.posix.isAbsolute(sandboxDir)) throw new Error(`copyDir: sandbox path must be absolute: ${sandboxDir}`);
    const pack = tarPack();
    const producing = (async () => {
      await addTree(pack, hostDir, '.');
      pack.finalize();
    })();
    producing.catch((err) => pack.destroy(err as Error));
    await Promise.all([this.untar(pack as unknown as Readable, sandboxDir, [sandboxDir]), producing]);
  }

  /** Unpacks a tar archive into `into` by `tar` inside the sandbox, creating `dirs` first. */
  private async untar(archive: Readable, into: string, dirs: readonly string[]): Promise<void> {
    this.assertAlive();
    const argv = ['/bin/sh', '-c', 'mkdir -p -- "$@" && exec tar -x --no-same-owner -f - -C "$0"', into, ...new Set(dirs)];
    const result = (await this.commands.add(() => this.run(argv, { timeoutMs: 10 * 60_000 }, archive))) as ExecResult;
    if (result.exitCode !== 0)
      throw new Error(`copying files into sandbox ${this.id}: tar exited with ${result.exitCode}: ${result.output.trim().slice(0, 2000)}`);
  }

  private async run(argv: readonly string[], options: ExecOptions, stdin?: Readable): Promise<ExecResult> {
    this.assertAlive();
    const started = Date.now();
    const env = { ...this.env, ...options.env };
    // bwrap's options go through a file opened as fd 3: as argv they would be the sandbox's /proc/1/cmdline,
    // host paths and all
    const mount = {
      layers: this.layers,
      upper: this.upperDir,
      work: path.join(this.dir, 'work'),
      merged: path.join(this.dir, 'merged'),
      network: this.network,
    };
    const optionsFile = path.join(this.dir, 'bwrap-options');
    const hostname = `locfix-${this.id.slice(0, 12)}`;
    const root = overlayRoot(mount, this.launch.identity);
    await fs.writeFile(optionsFile, bwrapOptions({ root, hostname, env, workdir: options.workdir ?? this.workdir, network: this.network }), { mode: 0o600 });
    const inner = withOverlay(mount, this.launch.identity, bwrapLauncher(argv));
    const launcher = ['-c', launchScript(this.cgroup.joinLines), 'locfix-cgroup', optionsFile, this.launch.seccomp, ...this.cgroup.prefix, ...inner];
    // nothing of locfix's environment (a model server's key, say) goes along: bwrap's pid 1 keeps it, readable inside
    const child = spawn('/bin/sh', launcher, {
      detached: true,
      env: LAUNCH_ENV,
      cwd: LAUNCH_CWD,
      stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const collector = new OutputCollector(options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT);
    child.stdout?.on('data', (chunk: Buffer) => collector.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => collector.push(chunk));
    if (stdin && child.stdin) {
      child.stdin.on('error', () => undefined); // a command that exits before reading all of it
      stdin.pipe(child.stdin);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
    let timedOut = false;
    const exited = new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) => resolve(code));
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    let exitCode: number | null;
    try {
      exitCode = await exited;
    } finally {
      clearTimeout(timer);
    }
    if (timedOut) {
      this.dead = `a command timed out after ${timeoutMs} ms`;
      return { exitCode: null, output: collector.text(), timedOut: true, durationMs: Date.now() - started };
    }
    return { exitCode, output: collector.text(), timedOut: false, durationMs: Date.now() - started };
  }

  /** Removes the sandbox's folder and cgroup; safe to call more than once. */
  dispose(): Promise<void> {
    if (!this.disposed) {
      this.dead ??= 'disposed';
      this.disposed = this.commands
        .onIdle()
        .then(async () => {
          await this.cgroup.remove().catch(() => undefined);
          await removeTree(this.dir);
        })
        .finally(() => liveSandboxes.delete(this));
    }
    return this.disposed;
  }

  /** Hands the writable layer over (a build keeps it as the new image's layer); the sandbox is dead after. */
  async takeUpperLayer(into: string): Promise<void> {
    await this.commands.onIdle();
    this.dead ??= 'its layer was taken';
    await fs.rename(this.upperDir, into);
  }

  private assertAlive(): void {
    if (this.dead !== undefined) throw new SandboxDeadError(this.id, this.dead);
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface BwrapRuntimeOptions {
  store: RootfsStore;
  /** how many sandboxes may run at once through `withSandbox` (default 2) */
  concurrency?: number;
  defaultLimits?: Partial<SandboxLimits>;
}

/** Creates bubblewrap sandboxes over the images of one store. */
export class BwrapRuntime implements SandboxRuntime {
  readonly store: RootfsStore;
  private readonly queue: PQueue;
  private readonly limits: SandboxLimits;
  private readonly cgroups = new CgroupLimits();
  private launch?: Promise<LaunchSettings>;

  constructor(options: BwrapRuntimeOptions) {
    this.store = options.store;
    this.queue = new PQueue({ concurrency: options.concurrency ?? 2 });
    this.limits = { ...DEFAULT_LIMITS, ...options.defaultLimits };
  }

  /** The identity and seccomp filter of this store's sandboxes, found once. */
  private launchSettings(): Promise<LaunchSettings> {
    this.launch ??= launchSettings(this.store);
    this.launch.catch(() => {
      this.launch = undefined;
    });
    return this.launch;
  }

  /** Fails, saying why, when bwrap, the subordinate ids, newuidmap or libseccomp is missing, or an overlay cannot be mounted here. */
  async ping(): Promise<void> {
    const { identity } = await this.launchSettings().catch((err: Error) => {
      throw new BwrapUnavailableError(err.message);
    });
    const probe = await this.store.scratch('probe');
    try {
      await fs.mkdir(path.join(probe, 'lower'));
      const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((d) => path.join(probe, d));
      await prepareSandboxFolder(probe, identity, [lower], 'probe');
      const argv = withOverlay({ layers: [lower], upper, work, merged, network: 'none' }, identity, ['bwrap', '--version']);
      const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(argv[0], argv.slice(1), { env: LAUNCH_ENV, cwd: LAUNCH_CWD, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (c: Buffer) => (output += c.toString()));
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        child.on('error', (err) => resolve({ code: -1, output: err.message }));
        child.on('close', (code) => resolve({ code, output }));
      });
      if (result.code !== 0) throw new BwrapUnavailableError(result.output.trim().split('\n').slice(-2).join('; ') || `exit ${result.code}`);
    } finally {
      await removeTree(probe);
    }
  }

  /** Which of the limits hold here (cgroups or not). */
  limitsInEffect(limits: Partial<SandboxLimits> = {}): Promise<LimitsInEffect> {
    return this.cgroups.describe({ ...this.limits, ...limits });
  }

  imageExists(name: string): Promise<boolean> {
    return this.store.exists(name);
  }

  async create(options: SandboxOptions): Promise<BwrapSandbox> {
    const network = options.network ?? 'none';
    if (network === 'bridge') throw new Error('bwrap sandbox: network mode "bridge" needs a daemon to make the bridge; use "none" or "host"');
    const launch = await this.launchSettings();
    const dir = await this.store.scratch('sandbox');
    const id = path.basename(dir).replace(/^sandbox-/, '') + randomBytes(3).toString('hex');
    const owner: SandboxOwner = { ...(options.runId ? { runId: options.runId } : {}), host: os.hostname(), pid: process.pid, images: [options.image] };
    // the claim on the image comes first, so a removal in another process sees it before the layers are read
    await fs.writeFile(path.join(dir, 'owner.json'), JSON.stringify(owner));
    const resolved = await this.store.layers(options.image).catch(async (err) => {
      await removeTree(dir);
      throw err;
    });
    const { image, layers } = resolved;
    for (const layer of layers) assertMountablePath(layer);
    const hostname = `locfix-${id.slice(0, 12)}`;
    let hostsWritten: boolean;
    try {
      assertOwners(resolved.images, launch.identity);
      hostsWritten = await prepareSandboxFolder(dir, launch.identity, layers, hostname);
    } catch (err) {
      await removeTree(dir);
      throw err;
    }
    const env = { ...envRecord(DEFAULT_IMAGE_ENV), ...envRecord(image.env), ...options.env };
    const cgroup = await this.cgroups.forSandbox(`locfix-${id}`, { ...this.limits, ...options.limits }).catch(async (err) => {
      await removeTree(dir);
      throw err;
    });
    await fs.writeFile(
      path.join(dir, 'owner.json'),
      JSON.stringify({ ...owner, images: resolved.chain, ...(cgroup.dirs.length ? { cgroups: cgroup.dirs } : {}) }),
    );
    const sandbox = new BwrapSandbox(id, dir, options.image, layers, env, options.workdir ?? image.workdir, network, cgroup, launch);
    trackLive(sandbox);
    try {
      // as the Docker kind does: the standard loopback names, whatever the image's /etc/hosts holds (written
      // from the host above when the image has an /etc folder)
      const hosts = hostsWritten ? undefined : await sandbox.exec(['/bin/sh', '-c', LOOPBACK_HOSTS_SCRIPT], { timeoutMs: 30_000 });
      if (hosts && hosts.exitCode !== 0) throw new Error(`sandbox ${id}: writing /etc/hosts failed: ${hosts.output.trim()}`);
    } catch (err) {
      await sandbox.dispose().catch(() => undefined);
      throw err;
    }
    return sandbox;
  }

  withSandbox<T>(options: SandboxOptions, fn: (sandbox: BwrapSandbox) => Promise<T>): Promise<T> {
    return withFreshSandbox(this.queue, () => this.create(options), fn);
  }

  /** Removes the sandbox folders of `runId` (every one when none is given), as the Docker kind removes a run's containers. */
  sweepContainers(runId?: string): Promise<number> {
    return this.sweep((owner) => (runId === undefined ? true : owner.runId === runId));
  }

  /** Removes what locfix processes on this host that are gone left behind. */
  sweepOrphans(): Promise<number> {
    return this.sweep((owner) => owner.host === os.hostname() && owner.pid !== process.pid && !pidAlive(owner.pid));
  }

  /** Whether a sandbox of a live process (any process on another host) uses the image or one built on it. */
  async imageInUse(name: string): Promise<boolean> {
    return (await sandboxFolders(this.store.sandboxesDir)).some(
      ({ owner }) => owner.images?.includes(name) && (owner.host !== os.hostname() || owner.pid === process.pid || pidAlive(owner.pid)),
    );
  }

  /** How many sandbox folders of `runId` exist (live or left behind). */
  async sandboxesOfRun(runId: string): Promise<number> {
    return (await sandboxFolders(this.store.sandboxesDir)).filter(({ owner }) => owner.runId === runId).length;
  }

  private async sweep(matches: (owner: SandboxOwner) => boolean): Promise<number> {
    let removed = 0;
    for (const { dir, owner } of await sandboxFolders(this.store.sandboxesDir)) {
      if (!matches(owner)) continue;
      await removeTree(dir);
      // the killed process' sandbox processes died with it (--die-with-parent), so its cgroups are empty now
      await removeLeftoverCgroups(owner.cgroups ?? []);
      removed++;
    }
    return removed;
  }
}

function envRecord(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}
