/**
 * The bwrap kind without root, as on a cluster node: an unprivileged user (nobody, through setpriv) imports an image,
 * gets root inside its sandbox (a user namespace maps it), writes to the image's files in its own layer, has the
 * loopback /etc/hosts, and the pids limit holds through RLIMIT_NPROC where no cgroup may be made. Runs only where
 * the test process is root (to become nobody) and bwrap works.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/common/image-recipe.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { ensureBwrap } from '../support/sandbox-kinds.ts';
import { forksBeforeLimit } from '../support/sandbox-probes.ts';

const usable = os.userInfo().uid === 0 && existsSync('/usr/bin/setpriv') && (await ensureBwrap('bwrap without root'));
let dir: string | undefined;

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** `child` run as nobody with the base image saved in `dir`; its last line, parsed. */
async function asNobody<T>(child: string): Promise<T> {
  if (!dir) {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-rootless-'));
    await fs.chmod(dir, 0o777);
    const archive = (await new DockerRuntime().docker.getImage(DEFAULT_BASE_IMAGE).get()) as NodeJS.ReadableStream;
    await pipeline(archive, createWriteStream(path.join(dir, 'base.tar'), { mode: 0o644 }));
  }
  const { stdout } = await promisify(execFile)(
    'setpriv',
    ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, '--import', 'tsx', path.join(import.meta.dirname, child), dir],
    { env: { ...process.env, HOME: dir }, cwd: path.resolve(import.meta.dirname, '../..'), maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}

describe.skipIf(!usable)('bwrap sandbox without root', () => {
  it('the containment battery: every case refused, memory without a cgroup said as a limitation', { timeout: 300_000 }, async () => {
    const { uid, results } = await asNobody<{ uid: number; results: Array<{ name: string; verdict: string; why?: string; evidence?: string }> }>(
      'containment-child.ts',
    );
    expect(uid).toBe(65534);
    expect(results.length).toBeGreaterThanOrEqual(12);
    for (const result of results) {
      if (result.verdict === 'limitation') expect(result.name, JSON.stringify(result)).toMatch(/fill memory|setuid file/);
      else expect(result, JSON.stringify(result)).toMatchObject({ verdict: 'refused' });
    }
  });

  it('an unprivileged user imports, sandboxes as root inside, writes its own layer; the pids limit holds without cgroups', { timeout: 120_000 }, async () => {
    const result = await asNobody<{
      uid: number;
      limits: { memory: string; pids: string };
      run: { exitCode: number; output: string };
      forks: { output: string };
      left: number;
    }>('rootless-child.ts');
    expect(result.uid).toBe(65534);
    expect(result.run.exitCode, result.run.output).toBe(0);
    expect(result.run.output).toBe('uid 0\nwritten\n127.0.0.1\tlocalhost\n');
    // said, not faked: no cgroup for nobody here, so the pids limit is prlimit's
    expect(result.limits.pids).toMatch(/RLIMIT_NPROC|cgroup/);
    expect(forksBeforeLimit(result.forks.output), result.forks.output).toBeLessThan(32);
    expect(result.left).toBe(0);
  });
});
