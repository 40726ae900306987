/**
 * The docker-pool backend on two real Docker engines on this machine: the local daemon and a second one the
 * test starts (own socket, data root and exec root; vfs storage). The second engine starts without the base
 * image, and the pool streams it over when it first needs it. Eight pieces of sandbox work are spread by free
 * capacity; the second engine is killed while it runs one, which the pool drains and runs again on the first
 * engine, so every piece completes exactly once. A config asking for the pool without engines is refused.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/docker/images.ts';
import { dockerOptionsOf, DockerPoolBackend, parseEngineSpec } from '../../sandbox/docker/pool-backend.ts';
import { parseRunConfig } from '../../src/config.ts';
import { ensureDocker } from '../support/docker.ts';
import { startSecondEngine, type SecondEngine } from '../support/docker-engine.ts';

const hasDocker = await ensureDocker('docker-pool backend');
const RUN_ID = `pool-test-${process.pid}`;
let dir: string;
let second: SecondEngine | undefined;
let secondUrl: string;
const killSecond = () => second?.kill();

beforeAll(async () => {
  if (!hasDocker) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-pool-'));
  second = await startSecondEngine(dir);
  secondUrl = second.url;
}, 60_000);

afterAll(async () => {
  second?.stop();
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

describe('docker-pool backend', () => {
  it('engine specs and the config', () => {
    expect(parseEngineSpec('unix:///run/d.sock=3')).toEqual({ url: 'unix:///run/d.sock', maxWorkers: 3 });
    expect(parseEngineSpec('tcp://10.0.0.2:2375', 2)).toEqual({ url: 'tcp://10.0.0.2:2375', maxWorkers: 2 });
    expect(dockerOptionsOf('ssh://me@host')).toMatchObject({ protocol: 'ssh', host: 'host', username: 'me' });
    expect(() => parseEngineSpec('ftp://x')).toThrow(/expected unix:\/\//);
    expect(() => parseRunConfig({ runId: 'x', dataset: 'd.jsonl', docker: { backend: 'docker-pool' } })).toThrow(/needs at least one engine/);
  });

  it.skipIf(!hasDocker)('spreads work by capacity, loads the base image where needed, and survives an engine that dies', { timeout: 300_000 }, async () => {
    const pool = new DockerPoolBackend({ mirrorFor: () => undefined } as never, {
      engines: [parseEngineSpec('unix:///var/run/docker.sock=2'), parseEngineSpec(`${secondUrl}=2`)],
      memoryGiB: 1,
      cpus: 1,
      images: {},
    });
    const done = new Map<string, number>();
    let killed = false;
    const work = (label: string) =>
      pool.run(label, async (engine) => {
        const out = await engine.runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: RUN_ID }, async (sandbox) => {
          if (engine.id === secondUrl && !killed) {
            killed = true;
            setTimeout(killSecond, 500); // dies while this command runs
          }
          return sandbox.exec(`sleep 2; echo ${label}`, { timeoutMs: 60_000 });
        });
        if (out.exitCode !== 0) throw new Error(`${label}: exit ${out.exitCode}: ${out.output}`);
        done.set(label, (done.get(label) ?? 0) + 1);
        return out.output.trim();
      });
    const labels = Array.from({ length: 8 }, (_, i) => `w${i}`);
    const outputs = await Promise.all(labels.map(work));
    expect(outputs).toEqual(labels);
    expect([...done.values()]).toEqual(labels.map(() => 1));
    const onSecond = pool.placements.filter((p) => p.engine === secondUrl);
    expect(onSecond.length, 'the second engine got work').toBeGreaterThan(0);
    expect(
      onSecond.some((p) => !p.ok),
      'work failed on the killed engine',
    ).toBe(true);
    expect(pool.engines.find((e) => e.id === secondUrl)!.drained).toMatch(/stopped answering/);
    // what failed there ran again, and succeeded, on the first engine
    for (const failed of onSecond.filter((p) => !p.ok)) {
      expect(pool.placements.some((p) => p.label === failed.label && p.ok && p.engine !== secondUrl)).toBe(true);
    }
    expect(await pool.sweep(RUN_ID)).toBe(0);
  });
});
