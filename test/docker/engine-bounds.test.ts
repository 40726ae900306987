/**
 * Every wait on a Docker engine is bounded (docker/engine-client.ts). An engine that accepts connections and
 * never answers made `locfix evaluate` wait forever, printing nothing; one that stalled mid-run left its
 * instances stuck (the kill of a timed-out command waited on it). Now the first is refused at start with what
 * did not answer, and the second is drained and its work evaluated again on an engine that answers.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineNoAnswerError, engineClient } from '../../sandbox/docker/engine-client.ts';
import { DockerPoolBackend, parseEngineSpec } from '../../sandbox/docker/pool-backend.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { runLocfix } from '../support/cli.ts';
import { ensureDocker } from '../support/docker.ts';
import { startStallingEngine, type StallingEngine } from '../support/stalling-engine.ts';

let dir: string | undefined;
let engine: StallingEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  dir = undefined;
});

describe('an engine that never answers', () => {
  it('a ping, a listing and the pool check end within the bound, naming the engine and the request', { timeout: 30_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-hang-'));
    engine = await startStallingEngine(dir, { stalled: true });
    const runtime = new DockerRuntime({ docker: engineClient({ socketPath: engine.url.slice('unix://'.length) }, { answerMs: 300, transferMs: 300 }) });
    const started = Date.now();
    await expect(runtime.ping()).rejects.toThrow(`Docker engine ${engine.url} did not answer GET /_ping within 0.3 s`);
    await expect(runtime.sweepContainers('some-run')).rejects.toBeInstanceOf(EngineNoAnswerError);
    const pool = new DockerPoolBackend({ mirrorFor: () => undefined } as never, {
      engines: [parseEngineSpec(`${engine.url}=2`)],
      memoryGiB: 1,
      cpus: 1,
      images: {},
      answerMs: 300,
    });
    await expect(pool.check()).rejects.toThrow(/docker-pool: no engine answers \(.*did not answer GET \/_ping within 0\.3 s\)/);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(engine.connections).toBeGreaterThanOrEqual(3);
  });

  it('locfix evaluate on it stops at start with the reason instead of waiting forever', { timeout: 60_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-hang-'));
    engine = await startStallingEngine(dir, { stalled: true });
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    const result = await runLocfix(
      [
        'evaluate',
        ...['--dataset', bench.datasetPath, '--predictions', 'gold', '--run-id', 'hang', '--runs-dir', path.join(dir, 'runs'), '--mirrors', bench.mirrorsDir],
        ...['--backend', 'docker-pool', '--engine', engine.url, '--engine-timeout', '1'],
      ],
      path.join(dir, 'cache'),
    );
    expect(result.code, result.stdout).not.toBe(0);
    expect(result.stderr).toMatch(/no engine answers .*did not answer GET \/_ping within 1\.0 s/);
  });
});

const hasDocker = await ensureDocker('an engine that stalls mid-run');

describe.skipIf(!hasDocker)('an engine that stalls mid-run', () => {
  it('its instances are evaluated again on an engine that answers; the run ends', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-stall-'));
    // it stalls once an evaluation script has started on it: the output stops, and so does every answer
    engine = await startStallingEngine(dir, { stallAfter: { request: /POST \S*\/exec\/\w+\/start/, delayMs: 200 } });
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    const runsDir = path.join(dir, 'runs');
    const runId = `stall-${process.pid}`;
    const result = await runLocfix(
      [
        'evaluate',
        ...['--dataset', bench.datasetPath, '--predictions', 'gold', '--run-id', runId, '--runs-dir', runsDir, '--mirrors', bench.mirrorsDir],
        ...['--backend', 'docker-pool', '--engine', `${engine.url}=1`, '--engine', 'unix:///var/run/docker.sock=1', '--memory', '1'],
        ...['--engine-timeout', '2', '--timeout', '30'],
      ],
      path.join(dir, 'cache'),
    );
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const n = bench.instances.length;
    expect(result.stdout).toContain(`Instances resolved: ${n}`);
    expect(result.stdout).toContain('Instances with errors: 0');
    // at least one attempt ran on the stalled engine and was given up there
    const logs = await Promise.all(bench.instances.map((i) => readFile(path.join(instanceLogDir(runsDir, runId, i.instance_id), 'run_instance.log'), 'utf8')));
    expect(logs.join('\n')).toContain(`Docker engine ${engine.url} did not answer`);
    // what the stalled attempt left on the real engine behind the proxy belongs to a process that is gone
    await new DockerRuntime().sweepOrphans();
  });
});
