/**
 * The bubblewrap sandbox kind against the Docker kind's own contract (test/docker/sandbox.test.ts): files in,
 * one log with the exit code, timeouts that end the sandbox, limits that hold, no network but a loopback, and
 * nothing left behind. Real bwrap over the base image imported from Docker's (test/support/sandbox-kinds.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BwrapRuntime, type BwrapSandbox } from '../../sandbox/bwrap/runtime.ts';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/common/image-recipe.ts';
import { DEFAULT_LIMITS, isMissingImageError, SandboxDeadError } from '../../src/sandbox/types.ts';
import { BwrapImageEngine } from '../../sandbox/bwrap/images.ts';
import { bwrapTestStore, ensureBwrap } from '../support/sandbox-kinds.ts';
import { FORK_EXPLOSION, forksBeforeLimit, LOOPBACK_PROBE, MEMORY_HOG, networkProbe, runContractFiles } from '../support/sandbox-probes.ts';

const hasBwrap = await ensureBwrap('bwrap sandbox tests');
const RUN_ID = `test-bwrap-${process.pid}`;

describe.skipIf(!hasBwrap)('bwrap sandbox', () => {
  const runtime = new BwrapRuntime({ store: bwrapTestStore(), concurrency: 2 });

  afterAll(async () => {
    if (hasBwrap) await runtime.sweepContainers(RUN_ID);
  });

  it('copies files in, runs them, and returns stdout+stderr in one log with the exit code; the image is unchanged', async () => {
    let dir = '';
    await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      dir = sandbox.dir;
      const { program, script } = await runContractFiles(sandbox);
      expect(program).toMatchObject({ exitCode: 3, timedOut: false, output: 'out 42\nerr\n' });
      expect(script).toBe('shell-ok\n');
      // the root is writable as a container's, and a deleted file of the image is gone for this sandbox only
      expect((await sandbox.exec('echo x > /eval.sh && rm /etc/debian_version && ls /etc/debian_version; cat /eval.sh')).output).toContain('x');
    });
    expect(existsSync(dir)).toBe(false);
    await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      expect((await sandbox.exec('test -e /etc/debian_version && test ! -e /eval.sh && echo pristine')).output).toBe('pristine\n');
    });
    expect(await runtime.sandboxesOfRun(RUN_ID)).toBe(0);
  });

  it('a hanging command hits the timeout, its processes end, and the sandbox is dead and gone afterwards', async () => {
    let dir = '';
    const started = Date.now();
    const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      dir = sandbox.dir;
      const r = await sandbox.exec('echo started; sleep 600 & sleep 600', { timeoutMs: 1_500 });
      expect(sandbox.alive).toBe(false);
      await expect(sandbox.exec('true')).rejects.toBeInstanceOf(SandboxDeadError);
      return r;
    });
    expect(result).toMatchObject({ timedOut: true, exitCode: null });
    expect(result.output).toContain('started');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(existsSync(dir)).toBe(false);
    // the PID namespace died with its first process: no `sleep 600` is left on the host
    expect(execFileSync('ps', ['-eo', 'args']).toString()).not.toMatch(/^sleep 600$/m);
  });

  it('the sandbox is removed when the callback throws', async () => {
    let dir = '';
    await expect(
      runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
        dir = sandbox.dir;
        throw new Error('callback failed');
      }),
    ).rejects.toThrow('callback failed');
    expect(existsSync(dir)).toBe(false);
  });

  it('says which limits hold; where a cgroup holds them, a memory hog is killed and the pids limit stops a process explosion', async () => {
    const limits = await runtime.limitsInEffect();
    if (!limits.memory.startsWith('cgroup')) {
      // no cgroup this user may create: said, not faked
      expect(limits.memory).toMatch(/^none \(/);
      return;
    }
    const hog = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { memoryBytes: 96 * 1024 ** 2 } }, (sandbox) =>
      sandbox.exec(MEMORY_HOG, { timeoutMs: 60_000 }),
    );
    expect(hog.output).not.toContain('allocated');
    expect(hog.exitCode).toBe(137);
    const forks = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { pidsLimit: 32 } }, (sandbox) =>
      sandbox.exec(FORK_EXPLOSION, { timeoutMs: 60_000 }),
    );
    expect(forksBeforeLimit(forks.output), forks.output).toBeDefined();
    expect(forksBeforeLimit(forks.output)).toBeLessThan(32);
  });

  it('a shell fork bomb under the default limits is held at the pids limit; the host goes on', { timeout: 60_000 }, async () => {
    if (!(await runtime.limitsInEffect()).pids.startsWith('cgroup')) return;
    let peak = 0;
    let hostSpawnMs = 0;
    const result = await runtime.withSandbox(
      { image: DEFAULT_BASE_IMAGE, runId: RUN_ID, limits: { memoryBytes: 1024 ** 3 } },
      async (sandbox: BwrapSandbox) => {
        const bomb = sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 30', { timeoutMs: 6_000 });
        for (let i = 0; i < 4; i++) {
          await new Promise((r) => setTimeout(r, 1_000));
          peak = Math.max(peak, (await sandbox.processCount()) ?? 0);
          const t = Date.now();
          execFileSync('true');
          hostSpawnMs = Math.max(hostSpawnMs, Date.now() - t);
        }
        return bomb;
      },
    );
    expect(result.timedOut).toBe(true);
    expect(peak, 'the bomb grew').toBeGreaterThan(100);
    expect(peak, 'held at the default pids limit').toBeLessThanOrEqual(DEFAULT_LIMITS.pidsLimit);
    expect(hostSpawnMs, 'the host still starts a process at once').toBeLessThan(5_000);
    expect(await runtime.sandboxesOfRun(RUN_ID)).toBe(0);
  });

  it('has no network: only the loopback interface, no routes, host services unreachable; localhost resolves and answers', async () => {
    const server = net.createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const script = `${networkProbe(port)}\n${LOOPBACK_PROBE}`;
      const result = await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, (sandbox) =>
        sandbox.exec(['python3', '-c', script], { timeoutMs: 30_000 }),
      );
      expect(result.output).toContain("interfaces ['lo']");
      expect(result.output).toContain('routes 0');
      expect(result.output).toContain('unreachable ConnectionRefusedError');
      expect(result.output).not.toContain('reached');
      expect(result.output).toContain('localhost 127.0.0.1');
      expect(result.output).toContain('hostname 127.0.1.1');
      expect(result.output).toContain('answer pong');
    } finally {
      server.close();
    }
  });

  it('a symbolic link the sandbox made cannot point a later copy at the host', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-outside-'));
    try {
      await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
        await sandbox.exec(['sh', '-c', `mkdir -p ${outside} && ln -s ${outside} /escape`]);
        await sandbox.copyFiles([{ path: '/escape/pwned', content: 'x' }]);
        // the copy followed the link inside the sandbox, to the sandbox's own folder of that name
        expect((await sandbox.exec(['cat', `${outside}/pwned`])).output).toBe('x');
      });
      expect(await fs.readdir(outside)).toEqual([]);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('sweepContainers removes what a run left; sweepOrphans what a dead process left, and nothing a live one holds', async () => {
    const sweepRun = `${RUN_ID}-sweep`;
    const leftover = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: sweepRun });
    expect(await runtime.sandboxesOfRun(sweepRun)).toBe(1);
    expect(await runtime.sweepContainers(sweepRun)).toBe(1);
    expect(existsSync(leftover.dir)).toBe(false);
    await leftover.dispose();

    const orphan = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: `${RUN_ID}-orphan` });
    const live = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId: `${RUN_ID}-live` });
    try {
      // a pid that is gone: what a process killed with -9 leaves
      const gone = Number(execFileSync('sh', ['-c', 'echo $$']).toString().trim());
      const owned = JSON.parse(await fs.readFile(path.join(orphan.dir, 'owner.json'), 'utf8')) as { cgroups?: string[] };
      const liveCgroups = (JSON.parse(await fs.readFile(path.join(live.dir, 'owner.json'), 'utf8')) as { cgroups?: string[] }).cgroups ?? [];
      await fs.writeFile(path.join(orphan.dir, 'owner.json'), JSON.stringify({ ...owned, host: os.hostname(), pid: gone }));
      expect(await runtime.sweepOrphans()).toBe(1);
      expect(existsSync(orphan.dir)).toBe(false);
      // where cgroups hold the limits, the dead process' sandbox cgroups go too (before: left empty forever)
      if ((await runtime.limitsInEffect()).pids.includes('cgroup')) {
        expect(owned.cgroups?.length).toBeGreaterThan(0);
        for (const dir of owned.cgroups ?? []) expect(existsSync(dir), dir).toBe(false);
        for (const dir of liveCgroups) expect(existsSync(dir), dir).toBe(true);
      }
      expect((await live.exec('true')).exitCode).toBe(0);
    } finally {
      await orphan.dispose();
      await live.dispose();
    }
  });

  it('refuses what it cannot do rather than faking it: another user, a bridge network', async () => {
    await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
      await expect(sandbox.exec('id', { user: 'nobody' })).rejects.toThrow(/run as root inside/);
    });
    await expect(runtime.create({ image: DEFAULT_BASE_IMAGE, network: 'bridge' })).rejects.toThrow(/needs a daemon/);
    await expect(runtime.create({ image: 'no/such:image' })).rejects.toThrow(/no such image no\/such:image in the image store/);
  });

  it('an image a live sandbox uses is not removed (as Docker keeps an image a container uses); once it is gone, it is', async () => {
    const store = bwrapTestStore();
    const name = `test/in-use-${process.pid}:1`;
    const owners = (await store.get(DEFAULT_BASE_IMAGE))!.owners;
    await store.add({ name, parent: DEFAULT_BASE_IMAGE, env: [], workdir: '/', ...(owners ? { owners } : {}) }, await store.scratch('layer'));
    const engine = new BwrapImageEngine(runtime);
    const sandbox = await runtime.create({ image: name, runId: RUN_ID });
    try {
      await engine.remove(name); // before: the layer went from under the running sandbox
      expect(await store.exists(name)).toBe(true);
      expect((await sandbox.exec('true')).exitCode).toBe(0);
    } finally {
      await sandbox.dispose();
    }
    await engine.remove(name);
    expect(await store.exists(name)).toBe(false);
    // a sandbox of a missing image fails as an engine's 404 does, so evaluation builds the image again
    await expect(runtime.create({ image: name })).rejects.toSatisfy(isMissingImageError);
  });
});
