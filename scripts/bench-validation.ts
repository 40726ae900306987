/**
 * Validation benchmark: the cost of regression-testing many candidate patches of one instance in one
 * reused container, against bare runs of the same tests.
 *
 *   npx tsx scripts/bench-validation.ts [--instance ID] [--candidates 40] [--distinct 10] [--out FILE]
 *
 * Candidates: `distinct` different patches (the gold patch, plus variants that add one distinct module-level
 * constant to the first file it changes), each repeated so there are `candidates` in all. The validation run
 * is `runRegressionTests` over all of them (deduplicated by key, reset + apply + tests per distinct patch).
 * The bare time is the same test command run `distinct` times in a warm container with nothing else.
 * Also measured: container start cost (create + start + first exec + removal) and exec round trip.
 * Needs Docker and the base image (scripts/setup-docker.sh).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DockerRuntime } from '../sandbox/docker/sandbox.ts';
import { DEFAULT_BASE_IMAGE, ImageProvider } from '../sandbox/docker/images.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { buildMiniBenchmark } from '../src/minibench/build.ts';
import { RepoStore } from '../src/repo/store.ts';
import { parsePatch } from '../src/patch.ts';
import { runRegressionTests, selectRegressionTests, type Candidate } from '../validation/regression.ts';
import { InstanceTestbed } from '../validation/testbed.ts';

const { values } = parseArgs({
  options: {
    instance: { type: 'string', default: 'minibench__urlkit-22' },
    candidates: { type: 'string', default: '40' },
    distinct: { type: 'string', default: '10' },
    out: { type: 'string' },
  },
});
const total = Number(values.candidates);
const distinct = Number(values.distinct);
if (!(distinct >= 1 && total >= distinct)) throw new Error('--candidates must be >= --distinct >= 1');

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Distinct valid patches: gold, then gold plus one distinct constant appended to its first file. */
function variantPatches(gitDir: string, baseCommit: string, gold: string, count: number): string[] {
  const holder = mkdtempSync(path.join(os.tmpdir(), 'locfix-bench-variants-'));
  const work = path.join(holder, 'work');
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', work, ...args], { encoding: 'utf8' });
    execFileSync('git', ['init', '-q', work]);
    git('fetch', '-q', '--depth=1', `file://${gitDir}`, baseCommit);
    git('checkout', '-q', 'FETCH_HEAD');
    const goldFile = path.join(holder, 'gold.diff');
    writeFileSync(goldFile, gold);
    const target = parsePatch(gold)[0].path;
    const patches = [gold];
    for (let k = 1; k < count; k++) {
      git('reset', '-q', '--hard');
      git('clean', '-qfd');
      git('apply', goldFile);
      const file = path.join(work, target);
      writeFileSync(file, readFileSync(file, 'utf8') + `\n_BENCH_VARIANT_${k} = ${k}\n`);
      patches.push(git('diff'));
    }
    return patches;
  } finally {
    rmSync(holder, { recursive: true, force: true });
  }
}

const root = mkdtempSync(path.join(os.tmpdir(), 'locfix-bench-validation-'));
const runtime = new DockerRuntime({ concurrency: 1 });
const runId = `bench-validation-${process.pid}`;
try {
  await runtime.ping();
  const bench = await buildMiniBenchmark(path.join(root, 'minibench'));
  const instance = bench.instances.find((i) => i.instance_id === values.instance);
  if (!instance) throw new Error(`instance ${values.instance} is not in the mini-benchmark (${bench.instances.map((i) => i.instance_id).join(', ')})`);
  const store = new RepoStore({ cacheDir: path.join(root, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
  const images = new ImageProvider(runtime, store, { useOfficialImages: false });

  // Container start cost: create + start + one exec + removal, on the base image.
  const startCosts: number[] = [];
  const execCosts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    const sandbox = await runtime.create({ image: DEFAULT_BASE_IMAGE, runId });
    await sandbox.exec('true');
    const t1 = Date.now();
    for (let j = 0; j < 5; j++) execCosts.push((await sandbox.exec('true')).durationMs);
    const t2 = Date.now();
    await sandbox.dispose();
    startCosts.push(t1 - t0 + (Date.now() - t2));
  }

  const imageStarted = Date.now();
  const image = await images.instanceImage(makeInstanceSpec(instance));
  const imageMs = Date.now() - imageStarted;

  const gitDir = await store.gitDir(instance.repo);
  const patches = variantPatches(gitDir, instance.base_commit, instance.patch, distinct);
  const candidates: Candidate[] = Array.from({ length: total }, (_, i) => ({ key: `v${i % distinct}`, patch: patches[i % distinct] }));

  const openStarted = Date.now();
  const testbed = await InstanceTestbed.open(runtime, images, instance, { runId, timeoutMs: 600_000 });
  const openMs = Date.now() - openStarted;
  try {
    const selection = await selectRegressionTests(testbed);

    // Bare: the test command alone, `distinct` times, in the warm container on the unpatched checkout.
    const bare: number[] = [];
    for (let i = 0; i < distinct; i++) bare.push((await testbed.run([selection.command])).durationMs);

    const validationStarted = Date.now();
    const results = await runRegressionTests(testbed, selection, candidates);
    const validationMs = Date.now() - validationStarted;
    const perCandidate = [...results.values()].map((r) => r.durationMs);
    const failures = [...results.values()].map((r) => r.regressionFailures);

    const bareDistinctMs = bare.reduce((a, b) => a + b, 0);
    const report = {
      instance: instance.instance_id,
      image: image.image,
      candidates: total,
      distinct,
      regressionTests: selection.tests.length,
      command: selection.command,
      loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
      containerStartMs: { mean: Math.round(mean(startCosts)), median: Math.round(median(startCosts)) },
      execRoundTripMs: { mean: Math.round(mean(execCosts)), median: Math.round(median(execCosts)) },
      instanceImageMs: imageMs,
      imageBuilt: image.built,
      testbedOpenMs: openMs,
      bareRunMs: { mean: Math.round(mean(bare)), median: Math.round(median(bare)) },
      bareDistinctTotalMs: bareDistinctMs,
      bareAllCandidatesMs: Math.round(mean(bare) * total),
      validationMs,
      validationPerDistinctMs: Math.round(mean(perCandidate)),
      perRunOverheadMs: Math.round(mean(perCandidate) - mean(bare)),
      ratioToBareDistinct: Number((validationMs / bareDistinctMs).toFixed(3)),
      ratioToBareAll: Number((validationMs / (mean(bare) * total)).toFixed(3)),
      allCandidatesPass: failures.every((f) => f === 0),
    };
    console.log(JSON.stringify(report, null, 2));
    if (values.out) writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
  } finally {
    await testbed.close();
    await store.close();
  }
} finally {
  await runtime.sweepContainers(runId).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
}
