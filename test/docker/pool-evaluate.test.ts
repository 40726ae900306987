/**
 * `locfix evaluate --backend docker-pool` over two real engines, the local one and a second dockerd the test
 * starts, with the second killed while it evaluates: the pool drains it and evaluates its instances again on
 * the first, so every instance of the mini-benchmark ends with one report, resolved, and one graded result in
 * its log (a killed attempt leaves a started container in the log, never a result).
 */
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_LABEL } from '../../sandbox/docker/sandbox.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { runLocfix } from '../support/cli.ts';
import { ensureDocker } from '../support/docker.ts';
import { startSecondEngine, type SecondEngine } from '../support/docker-engine.ts';

const hasDocker = await ensureDocker('locfix evaluate on a pool with an engine killed mid-run');
const RUN_ID = `pool-eval-${process.pid}`;
let dir: string | undefined;
let second: SecondEngine | undefined;
afterAll(async () => {
  second?.stop();
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

describe.skipIf(!hasDocker)('locfix evaluate on a docker-pool', () => {
  it('an engine killed mid-run: every instance is still evaluated, exactly once', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-pool-eval-'));
    const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
    second = await startSecondEngine(path.join(dir, 'engine2'), { storageDriver: 'overlay2' });
    const runsDir = path.join(dir, 'runs');
    const run = runLocfix(
      [
        'evaluate',
        ...['--dataset', bench.datasetPath, '--predictions', 'gold', '--run-id', RUN_ID, '--runs-dir', runsDir, '--mirrors', bench.mirrorsDir],
        ...['--backend', 'docker-pool', '--engine', 'unix:///var/run/docker.sock=2', '--engine', `${second.url}=2`, '--memory', '1'],
      ],
      path.join(dir, 'cache'),
    );
    // the second engine dies once it runs a container of this run
    let killed = false;
    for (let i = 0; i < 600 && !killed; i++) {
      const running = await second.docker.listContainers({ filters: { label: [`${RUN_LABEL}=${RUN_ID}`] } }).catch(() => []);
      if (running.length) {
        second.kill();
        killed = true;
      } else await new Promise((r) => setTimeout(r, 100));
    }
    expect(killed, 'the second engine got work before it was killed').toBe(true);
    const result = await run;
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const n = bench.instances.length;
    expect(result.stdout).toContain(`Instances completed: ${n}`);
    expect(result.stdout).toContain(`Instances resolved: ${n}`);
    expect(result.stdout).toContain('Instances with errors: 0');
    let failedAttempts = 0;
    for (const instance of bench.instances) {
      const log = await readFile(path.join(instanceLogDir(runsDir, RUN_ID, instance.instance_id), 'run_instance.log'), 'utf8');
      expect(log.match(/Result for \S+: resolved: true/g), instance.instance_id).toHaveLength(1);
      failedAttempts += (log.match(/ - ERROR - /g) ?? []).length;
    }
    // the attempts the killed engine was running are in the logs, each followed by the one that resolved
    expect(failedAttempts).toBeGreaterThan(0);
  });
});
