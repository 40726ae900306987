/**
 * A local Chroma server that locfix starts itself when no Chroma URL is configured.
 *
 * The server is the `chroma run` CLI shipped by the `chromadb` npm package, resolved from node_modules (not
 * PATH) and run with this Node binary. It listens on a free loopback port; its pid/port/path go into a
 * small state file next to the data folder, so a later process can reuse a server that is still alive
 * instead of starting a second one on the same data (Chroma's local storage is single-writer).
 * A server this process started is stopped when the process exits or is interrupted; one whose starter was
 * killed (-9) is adopted by the next process that finds it, and stopped when that one ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { readJsonIfExists, writeJsonAtomic } from '../util/fsx.ts';
import { acquireFileLock, pidAlive } from '../util/file-lock.ts';
import { onExit } from '../util/termination.ts';

const require = createRequire(import.meta.url);
const HOST = '127.0.0.1';

export interface ChromaServer {
  url: string;
  host: string;
  port: number;
  dataDir: string;
  /** true when this process started it (and will stop it on exit) */
  owned: boolean;
  /** stops the server if this process owns it; a no-op for reused servers */
  stop(): Promise<void>;
}

export interface StartChromaOptions {
  /** Chroma persistence folder, e.g. <cacheDir>/chroma */
  dataDir: string;
  /** state file recording a running server; default <dataDir>/../chroma-server.json */
  stateFile?: string;
  /** fixed port; default a free loopback port */
  port?: number;
  /** give up waiting for the heartbeat after this long; default 60 s */
  startTimeoutMs?: number;
  /** reuse a live server recorded in the state file; default true */
  reuse?: boolean;
  /** where the server's output goes; default <dataDir>/../chroma-server.log */
  logFile?: string;
}

interface ServerState {
  pid: number;
  port: number;
  dataDir: string;
  startedAt: string;
  /** the process that stops the server when it ends (absent in state files of earlier versions) */
  ownerPid?: number;
}

/** Path of the `chroma` CLI inside the installed chromadb package. */
export function chromaCliPath(): string {
  // chromadb's "exports" hide package.json; resolve the main entry and walk up to the package root
  let dir = path.dirname(require.resolve('chromadb'));
  for (;;) {
    const pkgFile = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name?: string; bin?: Record<string, string> | string };
      if (pkg.name === 'chromadb') {
        const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.chroma;
        if (!bin) throw new Error(`chromadb package at ${dir} declares no "chroma" bin`);
        return path.join(dir, bin);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('could not locate the chromadb package root to find its chroma CLI');
    dir = parent;
  }
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, HOST, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function chromaHeartbeat(url: string, timeoutMs = 2000): Promise<boolean> {
  try {
    const res = await fetch(`${url}/api/v2/heartbeat`, { signal: AbortSignal.timeout(timeoutMs) });
    return res.ok;
  } catch {
    return false;
  }
}

const owned = new Set<ChildProcess>();
let exitHooksInstalled = false;

/** servers whose owner was killed, adopted by this process (not its children: stopped by pid) */
const adopted = new Set<number>();

function killOwnedSync(): void {
  for (const child of owned) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  owned.clear();
  for (const pid of adopted) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  adopted.clear();
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  // a server this process started ends with it, however it ends (src/util/termination.ts)
  onExit(killOwnedSync);
}

async function waitForHeartbeat(url: string, child: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  while (Date.now() < deadline) {
    if (exited) break;
    if (await chromaHeartbeat(url, 1000)) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  let log = '';
  try {
    log = (await fs.readFile(logFile, 'utf8')).slice(-2000);
  } catch {
    // no log yet
  }
  if (!exited) child.kill('SIGKILL');
  throw new Error(`Chroma server at ${url} did not come up (${exited ?? `no heartbeat within ${timeoutMs} ms`}); log ${logFile}:\n${log}`);
}

/**
 * Returns a running local Chroma server for `dataDir`: the one recorded in the state file when it is
 * alive and serves the same folder, otherwise a new one.
 */
export async function startChromaServer(options: StartChromaOptions): Promise<ChromaServer> {
  const dataDir = path.resolve(options.dataDir);
  const stateFile = options.stateFile ?? path.join(path.dirname(dataDir), 'chroma-server.json');
  await fs.mkdir(dataDir, { recursive: true });
  if (!(options.reuse ?? true)) return spawnServer(options, dataDir, stateFile);
  // One starter per data folder at a time: two processes that both found no server would otherwise start
  // two servers on one single-writer store. The second waits, then finds the first one's server.
  const release = await acquireFileLock(`${stateFile}.lock`, {
    timeoutMs: (options.startTimeoutMs ?? 60_000) + 10_000,
    pollMs: 200,
    what: `starting the Chroma server for ${dataDir}`,
  });
  try {
    const state = await readJsonIfExists<ServerState>(stateFile).catch(() => undefined);
    if (state && state.dataDir === dataDir && pidAlive(state.pid)) {
      const url = `http://${HOST}:${state.port}`;
      if (await chromaHeartbeat(url)) {
        // its owner (this process, or another live one) stops it; this handle must not
        if (state.ownerPid && pidAlive(state.ownerPid)) {
          return { url, host: HOST, port: state.port, dataDir, owned: false, stop: async () => {} };
        }
        // its owner was killed (-9): this process adopts it and stops it when it ends, or it would run forever
        return await adoptOrphan(state, stateFile);
      }
      // an orphan (its starter was killed) that does not answer: it still holds the store, so it goes
      await stopOrphan(state.pid);
    }
    return await spawnServer(options, dataDir, stateFile);
  } finally {
    await release();
  }
}

async function adoptOrphan(state: ServerState, stateFile: string): Promise<ChromaServer> {
  await writeJsonAtomic(stateFile, { ...state, ownerPid: process.pid } satisfies ServerState);
  adopted.add(state.pid);
  installExitHooks();
  const stop = async (): Promise<void> => {
    adopted.delete(state.pid);
    await stopOrphan(state.pid);
    const now = await readJsonIfExists<ServerState>(stateFile);
    if (now?.pid === state.pid) await fs.rm(stateFile, { force: true });
  };
  return { url: `http://${HOST}:${state.port}`, host: HOST, port: state.port, dataDir: state.dataDir, owned: true, stop };
}

async function stopOrphan(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 25 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 200));
  if (pidAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

async function spawnServer(options: StartChromaOptions, dataDir: string, stateFile: string): Promise<ChromaServer> {
  const logFile = options.logFile ?? path.join(path.dirname(dataDir), 'chroma-server.log');

  const port = options.port ?? (await freeLoopbackPort());
  const url = `http://${HOST}:${port}`;
  const log = await fs.open(logFile, 'a');
  const child = spawn(process.execPath, [chromaCliPath(), 'run', '--path', dataDir, '--host', HOST, '--port', String(port)], {
    stdio: ['ignore', log.fd, log.fd],
    // no usage reporting from a local research tool
    env: { ...process.env, ANONYMIZED_TELEMETRY: 'False', CHROMA_ANONYMIZED_TELEMETRY: 'False' },
  });
  await log.close();
  owned.add(child);
  installExitHooks();
  child.once('exit', () => owned.delete(child));
  // recorded before the heartbeat: a starter killed while waiting leaves a server the next process can find
  await writeJsonAtomic(stateFile, { pid: child.pid ?? -1, port, dataDir, startedAt: new Date().toISOString(), ownerPid: process.pid } satisfies ServerState);
  await waitForHeartbeat(url, child, options.startTimeoutMs ?? 60_000, logFile);

  const stop = async (): Promise<void> => {
    owned.delete(child);
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
    const state = await readJsonIfExists<ServerState>(stateFile);
    if (state?.pid === child.pid) await fs.rm(stateFile, { force: true });
  };
  return { url, host: HOST, port, dataDir, owned: true, stop };
}
