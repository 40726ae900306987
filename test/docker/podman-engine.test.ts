/**
 * Podman's Docker-compatible API as an engine of the docker-pool backend (scripts/setup-podman.sh serves it).
 * `locfix evaluate --backend docker-pool` with the local Docker engine taking one sandbox at a time and Podman
 * three, so most instances go to Podman: the base image is streamed to it from Docker, instance images are
 * built there, and the gold patches of mini-benchmark instances resolve on both. A sandbox left behind on
 * Podman is found by its run label and swept.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';
import { DockerPoolBackend, parseEngineSpec } from '../../sandbox/docker/pool-backend.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { Services } from '../../app/services.ts';
import { runLocfix } from '../support/cli.ts';
import { ensureDocker } from '../support/docker.ts';

const SOCKET = process.env.LOCFIX_PODMAN_SOCKET ?? '/run/locfix-podman.sock';
const hasDocker = await ensureDocker('Podman as a pool engine');
// the API answers on the socket (a socket file left by a stopped service does not count)
const hasPodman = existsSync(SOCKET) && spawnSync('podman', ['--remote', '--url', `unix://${SOCKET}`, 'version'], { timeout: 20_000 }).status === 0;
if (!hasPodman) {
  if (process.env.LOCFIX_REQUIRE_PODMAN === '1') throw new Error(`Podman as a pool engine: no Podman API answers at ${SOCKET} (LOCFIX_REQUIRE_PODMAN=1)`);
  console.warn(`[skip] Podman as a pool engine: no Podman API answers at ${SOCKET}. Run scripts/setup-podman.sh as root.`);
}
const RUN_ID = `podman-test-${process.pid}`;
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasDocker || !hasPodman)('Podman as a docker-pool engine', () => {
  it('locfix evaluate on Docker and Podman side by side resolves every gold patch; a sandbox left on Podman is swept', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-podman-'));
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    const podman = `unix://${SOCKET}`;
    const ids = bench.instances.slice(0, 4).map((i) => i.instance_id);
    const before = new Set(podmanInstanceImages());
    const result = await runLocfix(
      [
        'evaluate',
        ...['--dataset', bench.datasetPath, '--predictions', 'gold', '--run-id', RUN_ID, '--runs-dir', path.join(dir, 'runs')],
        ...['--mirrors', bench.mirrorsDir, '--instances', ids.join(','), '--memory', '1'],
        ...['--backend', 'docker-pool', '--engine', 'unix:///var/run/docker.sock=1', '--engine', `${podman}=3`, '--cache-level', 'instance'],
      ],
      path.join(dir, 'cache'),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Instances resolved: 4');
    // Podman built instance images, so it evaluated some of them (kept here by --cache-level instance)
    const built = podmanInstanceImages().filter((image) => !before.has(image));
    expect(built.length, 'instance images built on Podman').toBeGreaterThan(0);
    spawnSync('podman', ['rmi', '-f', ...built]);

    const services = new Services({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, embedder: 'lexical' });
    try {
      const pool = new DockerPoolBackend(services.store, { memoryGiB: 1, cpus: 1, images: {}, engines: [parseEngineSpec(`${podman}=1`)] });
      const engine = pool.engines[0]!;
      await engine.runtime.create({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID });
      expect(await pool.sweep(RUN_ID)).toBe(1);
      expect(await pool.sweep(RUN_ID)).toBe(0);
    } finally {
      await services.close();
    }
  });
});

function podmanInstanceImages(): string[] {
  const out = spawnSync('podman', ['images', '--format', '{{.Repository}}:{{.Tag}}'], { encoding: 'utf8' }).stdout;
  return out.split('\n').filter((line) => line.includes('locfix/sweb.inst.'));
}
