/**
 * `npm run bench:scale`: the numbers of "beyond one machine" (BENCHMARKS.md).
 *
 * 1. Evaluation throughput, one Docker engine against two. The mini-benchmark's gold patches are evaluated
 *    through the execution backend as `locfix run` evaluates them: the local engine with 2 sandboxes at once,
 *    a docker-pool of that engine and a second dockerd this script starts (own socket and data root) with 2
 *    each, and the local engine with 4 at once (the same total as the pool, to tell "a second engine" from
 *    "more sandboxes"). Instance images are built on both engines first and kept, so every timed pass is the
 *    evaluation itself. Passes alternate; medians over `--reps`.
 * 2. The per-task overhead of the Slurm path (needs a Slurm cluster, e.g. scripts/setup-slurm.sh). The demo
 *    pipeline without Docker (replayed from the bundled recording) as 2 shards: each shard run directly as
 *    `locfix run --shard i/2`, then the same shards through `locfix run --scheduler slurm` (poll every second).
 *    Tasks run one at a time (`--array …%1`), as the direct runs do. Overhead of a task = (its shard's end −
 *    its start as the scheduler saw it: the submission for the first, the previous task's end for the next) −
 *    the same shard's direct wall time.
 *
 *   npm run bench:scale -- [--reps 3] [--skip-engines] [--skip-slurm] [--out DIR]
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalDockerBackend } from '../sandbox/docker/local-backend.ts';
import { DockerPoolBackend, parseEngineSpec } from '../sandbox/docker/pool-backend.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../src/minibench/build.ts';
import type { ExecutionBackend } from '../src/sandbox/types.ts';
import { Services } from '../app/services.ts';
import { evaluateInstance } from '../validation/evaluate-instance.ts';
import { shardRunId } from '../app/cluster/shard-driver.ts';
import { readDemoRecording, splitDemoConfig } from '../test/support/demo-shards.ts';
import { startSecondEngine } from '../test/support/docker-engine.ts';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const reps = Number(value('--reps', '3'));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const BIN = path.resolve(import.meta.dirname, '../bin/locfix.js');

/** Evaluates every instance's gold patch through `backend`; wall seconds, and how many resolved. */
async function evaluatePass(
  backend: ExecutionBackend,
  bench: MiniBenchBuild,
  runsDir: string,
  runId: string,
): Promise<{ seconds: number; resolved: number; errors: string[] }> {
  const started = Date.now();
  const outcomes = await Promise.all(
    bench.instances.map((instance) =>
      backend.run(instance.instance_id, (engine) =>
        evaluateInstance(
          instance,
          { instance_id: instance.instance_id, model_name_or_path: 'gold', model_patch: instance.patch },
          { runId, runsDir, runtime: engine.runtime, images: engine.images, timeoutMs: 600_000 },
        ),
      ),
    ),
  );
  const errors = outcomes.filter((o) => !o.completed).map((o) => `${o.instanceId}: ${o.error ?? o.errorKind ?? 'not completed'}`);
  return { seconds: (Date.now() - started) / 1000, resolved: outcomes.filter((o) => o.resolved).length, errors };
}

async function benchEngines(dir: string, bench: MiniBenchBuild): Promise<Record<string, unknown>> {
  const services = new Services({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, embedder: 'lexical' });
  const engine2 = await startSecondEngine(path.join(dir, 'engine2'), { storageDriver: 'overlay2' });
  const runsDir = path.join(dir, 'runs');
  const images = { cacheLevel: 'instance' as const };
  const limits = { memoryGiB: 2, cpus: 1, images };
  const backends: Record<string, ExecutionBackend> = {
    'one engine, 2 at once': new LocalDockerBackend(services.store, { ...limits, concurrency: 2 }),
    'two engines, 2 at once each': new DockerPoolBackend(services.store, {
      ...limits,
      engines: [parseEngineSpec('unix:///var/run/docker.sock=2'), parseEngineSpec(`${engine2.url}=2`)],
    }),
    'one engine, 4 at once': new LocalDockerBackend(services.store, { ...limits, concurrency: 4 }),
  };
  try {
    // warm-up: instance images on both engines, kept (cache level "instance"), so the timed passes evaluate only
    const warm2 = new DockerPoolBackend(services.store, { ...limits, engines: [parseEngineSpec(`${engine2.url}=2`)] });
    const w1 = await evaluatePass(backends['one engine, 2 at once'], bench, runsDir, 'warm-1');
    // the two-engine pool streams the base image to the second engine; then every instance image is built there too
    await evaluatePass(backends['two engines, 2 at once each'], bench, runsDir, 'warm-pool');
    const w2 = await evaluatePass(warm2, bench, runsDir, 'warm-2');
    process.stderr.write(
      `warm-up: engine 1 ${w1.seconds.toFixed(1)} s (${w1.resolved}/${bench.instances.length} resolved), engine 2 ${w2.seconds.toFixed(1)} s (${w2.resolved} resolved)\n`,
    );
    if (w2.resolved !== w1.resolved) throw new Error(`the second engine resolved ${w2.resolved}, the first ${w1.resolved}: ${w2.errors.join('; ')}`);
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(backends).map((k) => [k, []]));
    for (let r = 0; r < reps; r++) {
      for (const [name, backend] of Object.entries(backends)) {
        const pass = await evaluatePass(backend, bench, runsDir, `rep-${r}-${name.replace(/\W+/g, '-')}`);
        if (pass.resolved !== w1.resolved) throw new Error(`${name}: ${pass.resolved} resolved, the warm-up had ${w1.resolved}`);
        times[name].push(pass.seconds);
        process.stderr.write(`rep ${r + 1}/${reps}: ${name}: ${pass.seconds.toFixed(1)} s\n`);
      }
    }
    const n = bench.instances.length;
    const rows = Object.entries(times).map(([name, xs]) => ({ name, medianSeconds: median(xs), instancesPerMinute: (60 * n) / median(xs), seconds: xs }));
    const one = rows[0].medianSeconds;
    return { instances: n, rows, ratioTwoEnginesOverOne: one / rows[1].medianSeconds, ratioFourAtOnceOverTwo: one / rows[2].medianSeconds };
  } finally {
    engine2.stop();
    await services.close();
  }
}

function runCli(argv: string[], cwd: string): { seconds: number; code: number | null; output: string } {
  const started = Date.now();
  const r = spawnSync(process.execPath, [BIN, ...argv], { cwd, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { seconds: (Date.now() - started) / 1000, code: r.status, output: r.stdout + r.stderr };
}

async function benchSlurm(dir: string, bench: MiniBenchBuild): Promise<Record<string, unknown>> {
  const recording = await readDemoRecording();
  const config = { ...(await splitDemoConfig(dir, bench, recording, 'unused')) } as Record<string, unknown>;
  // the pipeline without Docker: localization, repair and selection, so the task is short and the overhead shows
  Object.assign(config, {
    validation: { regression: false, reproduction: false, reproductionSamples: 1, timeoutSeconds: 300 },
    evaluation: { enabled: false, timeoutSeconds: 600 },
    stopAfter: 'select',
    // one task at a time, as the direct runs are, so the two sides share the 2 cores the same way
    cluster: { cpusPerTask: 1, memory: '2G', pollSeconds: 1, maxRunning: 1 },
  });
  const configFile = path.join(dir, 'slurm-config.json');
  await writeFile(configFile, JSON.stringify(config));
  const direct: number[][] = [[], []];
  const overhead: number[] = [];
  const queueWait: number[] = [];
  const driverWall: number[] = [];
  for (let r = 0; r < reps; r++) {
    for (const shard of [1, 2]) {
      const d = runCli(['run', '--config', configFile, '--shard', `${shard}/2`, '--run-id', `direct-${r}-${shard}`], dir);
      if (d.code !== 0) throw new Error(`direct shard ${shard}: exit ${d.code}\n${d.output}`);
      direct[shard - 1].push(d.seconds);
    }
    const s = runCli(['run', '--config', configFile, '--scheduler', 'slurm', '--shards', '2', '--run-id', `slurm-${r}`], dir);
    if (s.code !== 0) throw new Error(`slurm run: exit ${s.code}\n${s.output}`);
    driverWall.push(s.seconds);
    const stateDir = path.join(String(config.runsDir), `slurm-${r}.cluster`);
    const jobs = JSON.parse(await readFile(path.join(stateDir, 'jobs.json'), 'utf8')) as Array<{ jobId: string; submittedAt: string }>;
    const submitted = Date.parse(jobs[0].submittedAt);
    let free = submitted; // when the one task slot became free
    for (const shard of [1, 2]) {
      const result = JSON.parse(await readFile(path.join(stateDir, 'shards', shardRunId(`slurm-${r}`, shard, 2), 'result.json'), 'utf8')) as {
        finishedAt: string;
      };
      const log = await readFile(path.join(stateDir, 'logs', `shard-${shard}.job-${jobs[0].jobId}.log`), 'utf8');
      const start = /at (\d{4}-\d\d-\d\dT[\d:.]+Z)/.exec(log)?.[1];
      if (start) queueWait.push((Date.parse(start) - free) / 1000);
      overhead.push((Date.parse(result.finishedAt) - free) / 1000 - direct[shard - 1][r]);
      free = Date.parse(result.finishedAt);
    }
    process.stderr.write(`rep ${r + 1}/${reps}: direct ${direct[0][r].toFixed(1)} + ${direct[1][r].toFixed(1)} s, slurm driver ${s.seconds.toFixed(1)} s\n`);
  }
  return {
    shards: 2,
    instances: recording.instances.length,
    directShardSeconds: direct.map(median),
    slurmDriverSeconds: median(driverWall),
    slotFreeToTaskStartSeconds: median(queueWait),
    perTaskOverheadSeconds: median(overhead),
    perTaskOverheadAll: overhead,
  };
}

const outDir = path.resolve(value('--out', path.join(os.tmpdir(), 'locfix-bench-scale')));
await mkdir(outDir, { recursive: true });
const dir = await mkdtemp(path.join(outDir, 'work-'));
try {
  const bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  const results: Record<string, unknown> = { date: new Date().toISOString(), reps, cpus: os.cpus().length };
  if (!flag('--skip-engines')) results.engines = await benchEngines(dir, bench);
  if (!flag('--skip-slurm')) results.slurm = await benchSlurm(dir, bench);
  const file = path.join(outDir, 'bench-scale.json');
  await writeFile(file, JSON.stringify(results, null, 2) + '\n');
  process.stdout.write(JSON.stringify(results, null, 2) + '\n');
  process.stderr.write(`written: ${file}\n`);
} finally {
  if (!flag('--keep')) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
