/**
 * A second Docker engine on this machine, for the tests and the benchmark of the docker-pool backend: a
 * `dockerd` with its own socket, data root and exec root under `dir`, no network of its own. `kill()` ends
 * it with SIGKILL (an engine that dies), `stop()` ends it and everything that ran from its folders.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import Docker from 'dockerode';
import { dockerOptionsOf } from '../../sandbox/docker/pool-backend.ts';

export interface SecondEngine {
  url: string;
  docker: Docker;
  kill(): void;
  stop(): void;
}

export async function startSecondEngine(dir: string, options: { storageDriver?: 'vfs' | 'overlay2' } = {}): Promise<SecondEngine> {
  const url = `unix://${path.join(dir, 'docker.sock')}`;
  const child = spawn(
    'dockerd',
    [
      `--host=${url}`,
      `--data-root=${path.join(dir, 'data')}`,
      `--exec-root=${path.join(dir, 'exec')}`,
      `--pidfile=${path.join(dir, 'docker.pid')}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-masq=false',
      `--storage-driver=${options.storageDriver ?? 'vfs'}`,
    ],
    { detached: true, stdio: 'ignore' },
  );
  const docker = new Docker(dockerOptionsOf(url));
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      await docker.ping();
      break;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const kill = () => {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL'); // dockerd and the containerd it started
    } catch {
      // already gone
    }
  };
  return {
    url,
    docker,
    kill,
    stop: () => {
      kill();
      // a killed engine's container shims outlive it: end everything that runs from its folders
      spawnSync('pkill', ['-9', '-f', dir]);
      spawnSync('umount', ['-R', path.join(dir, 'data')]);
      spawnSync('umount', ['-R', path.join(dir, 'exec')]);
    },
  };
}
