import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_LABEL, DockerRuntime, type DockerSandbox } from '../../sandbox/docker/sandbox.ts';
import { DEFAULT_LIMITS, SandboxDeadError } from '../../src/sandbox/types.ts';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';
import { ensureDocker } from '../support/docker.ts';
import { FORK_EXPLOSION, forksBeforeLimit, LOOPBACK_PROBE, MEMORY_HOG, networkProbe, runContractFiles } from '../support/sandbox-probes.ts';

const hasDocker = await ensureDocker('docker sandbox tests');
const RUN_ID = `test-sandbox-${process.pid}`;

async function containersOfRun(runtime: DockerRuntime, runId: string): Promise<number> {
  return (await runtime.docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } })).length;
}

async function containerGone(runtime: DockerRuntime, id: string): Promise<boolean> {
  try {
    await runtime.docker.getContainer(id).inspect();
    return false;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode === 404;
  }
}

describe.skipIf(!hasDocker)('docker sandbox', () => {
  const runtime = new DockerRuntime({ concurrency: 2 });

  afterAll(async () => {
    if (hasDocker) await runtime.sweepContainers(RUN_ID);
  });

  it('copies files in, runs them, and returns stdout+stderr in one log with the exit code', async () => {
    await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      const { program, script } = await runContractFiles(sandbox);
      expect(program).toMatchObject({ exitCode: 3, timedOut: false, output: 'out 42\nerr\n' });
      expect(script).toBe('shell-ok\n');
      expect((await sandbox.readFile('/probe/pkg/mod.py')).toString()).toBe('VALUE = 41\n');
      const info = await sandbox.inspect();
      expect(info.Config.Labels).toMatchObject({ locfix: '1', [RUN_LABEL]: RUN_ID });
      expect(info.HostConfig.NetworkMode).toBe('none');
    });
    expect(await containersOfRun(runtime, RUN_ID)).toBe(0);
  });

  it('a hanging command hits the timeout, and the container is gone afterwards', async () => {
    let id = '';
    const started = Date.now();
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      id = sandbox.id;
      const r = await sandbox.exec('echo started; sleep 600', { timeoutMs: 1_500 });
      expect(sandbox.alive).toBe(false);
      await expect(sandbox.exec('true')).rejects.toBeInstanceOf(SandboxDeadError);
      return r;
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain('started');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await containerGone(runtime, id)).toBe(true);
  });

  it('the container is removed when the callback throws', async () => {
    let id = '';
    await expect(
      runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
        id = sandbox.id;
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    expect(await containerGone(runtime, id)).toBe(true);
  });

  it('a memory hog is killed by the memory limit', async () => {
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { memoryBytes: 96 * 1024 ** 2 } }, (sandbox) =>
      sandbox.exec(MEMORY_HOG, { timeoutMs: 60_000 }),
    );
    expect(result.timedOut).toBe(false);
    expect(result.output).not.toContain('allocated');
    // SIGKILL from the cgroup OOM killer
    expect(result.exitCode).toBe(137);
  });

  it('the pids limit stops a process explosion', async () => {
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { pidsLimit: 32 } }, (sandbox) =>
      sandbox.exec(FORK_EXPLOSION, { timeoutMs: 60_000 }),
    );
    const forks = forksBeforeLimit(result.output);
    expect(forks, result.output).toBeDefined();
    expect(forks).toBeLessThan(32);
  });

  it('a shell fork bomb under the default limits is held at the pids limit; the host goes on', { timeout: 120_000 }, async () => {
    let peak = 0;
    let hostSpawnMs = 0;
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { memoryBytes: 1024 ** 3 } }, async (sandbox) => {
      const bomb = sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 30', { timeoutMs: 12_000 });
      // while it runs: the container's process count, as the kernel's pids controller reports it
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 1_000));
        const stats = (await (sandbox as DockerSandbox).container.stats({ stream: false })) as { pids_stats?: { current?: number } };
        peak = Math.max(peak, stats.pids_stats?.current ?? 0);
        const t = Date.now();
        execFileSync('true');
        hostSpawnMs = Math.max(hostSpawnMs, Date.now() - t);
      }
      return bomb;
    });
    expect(result.timedOut).toBe(true);
    expect(peak, 'the bomb grew').toBeGreaterThan(100);
    expect(peak, 'held at the default pids limit').toBeLessThanOrEqual(DEFAULT_LIMITS.pidsLimit);
    expect(hostSpawnMs, 'the host still starts a process at once').toBeLessThan(5_000);
    expect(await containersOfRun(runtime, RUN_ID)).toBe(0);
  });

  it('has no network: only the loopback interface, no routes, and host services are unreachable', async () => {
    const server = net.createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const script = networkProbe(port);
      const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, (sandbox) =>
        sandbox.exec(['python3', '-c', script], { timeoutMs: 30_000 }),
      );
      expect(result.output).toContain("interfaces ['lo']");
      expect(result.output).toContain('routes 0');
      expect(result.output).toContain('unreachable ConnectionRefusedError');
      expect(result.output).not.toContain('reached');
    } finally {
      server.close();
    }
  });

  it('network off still has a working loopback: localhost resolves and a server on it answers (Django LiveServer)', async () => {
    const script = LOOPBACK_PROBE;
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, (sandbox) =>
      sandbox.exec(['python3', '-c', script], { timeoutMs: 30_000 }),
    );
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain('localhost 127.0.0.1');
    expect(result.output).toContain('hostname 127.0.1.1');
    expect(result.output).toContain('answer pong');
  });

  it('sweepContainers removes what a run left behind', async () => {
    const sweepRun = `${RUN_ID}-sweep`;
    const leftover = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: sweepRun });
    expect(await containersOfRun(runtime, sweepRun)).toBe(1);
    expect(await runtime.sweepContainers(sweepRun)).toBe(1);
    expect(await containerGone(runtime, leftover.id)).toBe(true);
    await leftover.dispose(); // already gone: a no-op
  });

  it('SIGINT removes the containers the process holds', async () => {
    const sigintRun = `${RUN_ID}-sigint`;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(path.dirname(fileURLToPath(import.meta.url)), 'sigint-child.ts'), sigintRun], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const id = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.trim());
      });
      child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
    });
    expect(await containerGone(runtime, id)).toBe(false);
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
    child.kill('SIGINT');
    // it ends by the signal itself, as it would without cleanups (src/util/termination.ts)
    expect(await exited).toBe('SIGINT');
    expect(await containerGone(runtime, id)).toBe(true);
    expect(await containersOfRun(runtime, sigintRun)).toBe(0);
  });
});
