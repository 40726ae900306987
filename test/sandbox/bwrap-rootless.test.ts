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

describe.skipIf(!usable)('bwrap sandbox without root', () => {
  it('an unprivileged user imports, sandboxes as root inside, writes its own layer; the pids limit holds without cgroups', { timeout: 120_000 }, async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-rootless-'));
    await fs.chmod(dir, 0o777);
    const archive = (await new DockerRuntime().docker.getImage(DEFAULT_BASE_IMAGE).get()) as NodeJS.ReadableStream;
    await pipeline(archive, createWriteStream(path.join(dir, 'base.tar'), { mode: 0o644 }));
    const child = path.join(import.meta.dirname, 'rootless-child.ts');
    const { stdout } = await promisify(execFile)(
      'setpriv',
      ['--reuid', '65534', '--regid', '65534', '--clear-groups', process.execPath, '--import', 'tsx', child, dir],
      { env: { ...process.env, HOME: dir }, cwd: path.resolve(import.meta.dirname, '../..'), maxBuffer: 16 * 1024 * 1024 },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      uid: number;
      limits: { memory: string; pids: string };
      run: { exitCode: number; output: string };
      forks: { output: string };
      left: number;
    };
    expect(result.uid).toBe(65534);
    expect(result.run.exitCode, result.run.output).toBe(0);
    expect(result.run.output).toBe('uid 0\nwritten\n127.0.0.1\tlocalhost\n');
    // said, not faked: no cgroup for nobody here, so the pids limit is prlimit's
    expect(result.limits.pids).toMatch(/RLIMIT_NPROC|cgroup/);
    expect(forksBeforeLimit(result.forks.output), result.forks.output).toBeLessThan(32);
    expect(result.left).toBe(0);
  });
});
