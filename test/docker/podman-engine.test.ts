/**
 * Podman's Docker-compatible API as an engine of the docker-pool backend (scripts/setup-podman.sh serves it).
 * The pool has the local Docker engine with one sandbox at a time and Podman with three, so most instances go to
 * Podman: the base image is streamed to it from Docker, the instance images are built there, and the gold
 * patches of mini-benchmark instances resolve on both. A sandbox left behind on Podman is found by its run
 * label and swept.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from '../../docker/images.ts';
import { DockerPoolBackend, parseEngineSpec } from '../../docker/pool-backend.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { Services } from '../../src/services.ts';
import { evaluateInstance } from '../../validation/evaluate.ts';
import { ensureDocker } from '../support/docker.ts';

const SOCKET = process.env.LOCFIX_PODMAN_SOCKET ?? '/run/locfix-podman.sock';
const hasDocker = await ensureDocker('Podman as a pool engine');
const hasPodman = existsSync(SOCKET);
if (!hasPodman) {
  if (process.env.LOCFIX_REQUIRE_PODMAN === '1') throw new Error(`Podman as a pool engine: no Podman API socket at ${SOCKET} (LOCFIX_REQUIRE_PODMAN=1)`);
  console.warn(`[skip] Podman as a pool engine: no socket at ${SOCKET}. Run scripts/setup-podman.sh as root.`);
}
const RUN_ID = `podman-test-${process.pid}`;
let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!hasDocker || !hasPodman)('Podman as a docker-pool engine', () => {
  it('evaluates gold patches on Podman and Docker side by side, and sweeps what a run left on Podman', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-podman-'));
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    const services = new Services({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, embedder: 'lexical' });
    const podman = `unix://${SOCKET}`;
    const pool = new DockerPoolBackend(services.store, {
      memoryGiB: 1,
      cpus: 1,
      images: {},
      engines: [parseEngineSpec('unix:///var/run/docker.sock=1'), parseEngineSpec(`${podman}=3`)],
    });
    try {
      const instances = bench.instances.slice(0, 4);
      const outcomes = await Promise.all(
        instances.map((instance) =>
          pool.run(instance.instance_id, (engine) =>
            evaluateInstance(
              instance,
              { instance_id: instance.instance_id, model_name_or_path: 'gold', model_patch: instance.patch },
              { runId: RUN_ID, runsDir: path.join(dir!, 'runs'), runtime: engine.runtime, images: engine.images, timeoutMs: 300_000 },
            ),
          ),
        ),
      );
      expect(outcomes.map((o) => [o.instanceId, o.resolved, o.error ?? ''])).toEqual(instances.map((i) => [i.instance_id, true, '']));
      const onPodman = pool.placements.filter((p) => p.engine === podman && p.ok);
      expect(onPodman.length, 'Podman evaluated some instances').toBeGreaterThan(0);
      // a sandbox a killed invocation left on Podman: found by the run label and removed
      const engine = pool.engines.find((e) => e.id === podman)!;
      await engine.runtime.create({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID });
      expect(await pool.sweep(RUN_ID)).toBe(1);
      expect(await pool.sweep(RUN_ID)).toBe(0);
    } finally {
      await services.close();
    }
  });
});
