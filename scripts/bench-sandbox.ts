/**
 * The sandbox kinds side by side: what one sandbox costs on Docker and on bubblewrap, and the mini-benchmark's
 * gold evaluation on each, with the verdicts compared instance by instance.
 *
 *   npm run bench:sandbox -- [--rounds 20] [--image-store DIR] [--out FILE.json]
 *
 * Per kind, over `rounds` rounds on the base image: a sandbox's life (create, `true`, dispose), one command
 * in a live sandbox (`true`, and `python3 -c pass`), and copying 1 MiB in. Then `locfix evaluate`'s path
 * (runEvaluation) over the mini-benchmark's gold patches, instance images built fresh (a new image store for
 * bwrap; Docker's instance images are removed first), with its wall time and every verdict. Medians; one run.
 * Needs Docker and the base image (scripts/setup-docker.sh) and bwrap; the bwrap store gets the base image
 * from Docker's when it lacks it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_BASE_IMAGE, InstanceImageRecipe } from '../sandbox/common/image-recipe.ts';
import { ImageProvider } from '../sandbox/docker/images.ts';
import { DockerRuntime } from '../sandbox/docker/sandbox.ts';
import { RootfsStore } from '../sandbox/bwrap/image-store.ts';
import { importArchive } from '../sandbox/bwrap/import.ts';
import { BwrapImageEngine } from '../sandbox/bwrap/images.ts';
import { BwrapRuntime } from '../sandbox/bwrap/runtime.ts';
import type { Readable } from 'node:stream';
import type { InstanceImages, Sandbox, SandboxOptions, SandboxRuntime } from '../src/sandbox/types.ts';
import { buildMiniBenchmark } from '../src/minibench/build.ts';
import { RepoStore } from '../src/repo/store.ts';
import { goldPredictions } from '../validation/predictions.ts';
import { runEvaluation } from '../validation/run-evaluation.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    'image-store': { type: 'string' },
    out: { type: 'string' },
  },
});
const rounds = Number(values.rounds);

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

type Runtime = SandboxRuntime & { create(options: SandboxOptions): Promise<Sandbox> };

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function perSandbox(runtime: Runtime): Promise<Record<string, number>> {
  const life: number[] = [];
  const trueMs: number[] = [];
  const pythonMs: number[] = [];
  const copyMs: number[] = [];
  const body = Buffer.alloc(1024 * 1024, 7);
  for (let i = 0; i < rounds; i++) {
    life.push(await timed(() => runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: 'bench-sandbox' }, (s) => s.exec('true'))));
  }
  await runtime.withSandbox({ image: DEFAULT_BASE_IMAGE, runId: 'bench-sandbox' }, async (s) => {
    for (let i = 0; i < rounds; i++) {
      trueMs.push(await timed(() => s.exec(['true'])));
      pythonMs.push(await timed(() => s.exec(['python3', '-c', 'pass'])));
      copyMs.push(await timed(() => s.copyFiles([{ path: `/tmp/blob-${i}`, content: body }])));
    }
  });
  return { lifeMs: median(life), execTrueMs: median(trueMs), execPythonMs: median(pythonMs), copy1MiBMs: median(copyMs) };
}

async function goldEvaluation(name: string, runtime: Runtime, imagesOf: (mirrors: RepoStore) => InstanceImages, root: string) {
  const bench = await buildMiniBenchmark(path.join(root, `minibench-${name}`));
  const store = new RepoStore({ cacheDir: path.join(root, `cache-${name}`), mirrorsDir: bench.mirrorsDir, allowClone: false });
  try {
    const started = Date.now();
    const { summary, outcomes } = await runEvaluation({
      runId: `bench-${name}`,
      runsDir: path.join(root, 'runs'),
      dataset: bench.instances,
      predictions: goldPredictions(bench.instances),
      runtime,
      images: imagesOf(store),
      maxWorkers: 2,
      timeoutMs: 600_000,
    });
    const verdicts = Object.fromEntries(outcomes.map((o) => [o.instanceId, o.completed ? (o.resolved ? 'resolved' : 'unresolved') : `error: ${o.errorKind}`]));
    return { wallMs: Date.now() - started, resolved: summary.resolved_instances, total: bench.instances.length, verdicts };
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'locfix-bench-sandbox-'));
  try {
    const docker = new DockerRuntime({ concurrency: 2 });
    await docker.ping();
    const storeDir = values['image-store'] ?? path.join(root, 'bwrap-store');
    const bwrapStore = new RootfsStore(storeDir);
    if (!(await bwrapStore.exists(DEFAULT_BASE_IMAGE))) {
      const importMs = await timed(async () =>
        importArchive(bwrapStore, (await docker.docker.getImage(DEFAULT_BASE_IMAGE).get()) as unknown as Readable, DEFAULT_BASE_IMAGE),
      );
      console.log(`imported ${DEFAULT_BASE_IMAGE} into ${storeDir} in ${(importMs / 1000).toFixed(1)} s`);
    }
    const bwrap = new BwrapRuntime({ store: bwrapStore, concurrency: 2 });
    await bwrap.ping();
    console.log('bwrap limits here:', JSON.stringify(await bwrap.limitsInEffect()));

    const result: Record<string, unknown> = { rounds };
    for (const [name, runtime] of [
      ['docker', docker],
      ['bwrap', bwrap],
    ] as const) {
      result[name] = await perSandbox(runtime);
      console.log(name, JSON.stringify(result[name]));
    }
    // instance images built fresh on both: Docker's earlier ones removed first; the cache level 'env' removes each after use
    for (const image of await docker.docker.listImages({ filters: { reference: ['locfix/sweb.inst.minibench*'] } })) {
      for (const tag of image.RepoTags ?? [])
        await docker.docker
          .getImage(tag)
          .remove({ force: true })
          .catch(() => undefined);
    }
    const dockerGold = await goldEvaluation('docker', docker, (mirrors) => new ImageProvider(docker, mirrors, { useOfficialImages: false }), root);
    result.dockerGold = dockerGold;
    result.bwrapGold = await goldEvaluation(
      'bwrap',
      bwrap,
      (mirrors) => new InstanceImageRecipe(new BwrapImageEngine(bwrap), mirrors, { useOfficialImages: false }),
      root,
    );
    const a = dockerGold.verdicts;
    const b = (result.bwrapGold as typeof dockerGold).verdicts;
    result.verdictsAgree = Object.keys(a).filter((id) => a[id] === b[id]).length;
    result.verdictsCompared = Object.keys(a).length;
    console.log(
      JSON.stringify({
        dockerGold: { ...dockerGold, verdicts: undefined },
        bwrapGold: { ...(result.bwrapGold as object), verdicts: undefined },
        agree: result.verdictsAgree,
        of: result.verdictsCompared,
      }),
    );
    if (values.out) writeFileSync(values.out, `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
