/**
 * Code graph benchmark: for each repository of a dataset, the graph of the first instance's base commit —
 * cold build time (reading blobs, parsing facts, building), heap growth, node and edge counts, and how many
 * import, call and base-class references resolved to a node of the repository.
 *
 *   npm run bench:graph -- [--dataset FILE]… [--mirrors DIR] [--out FILE]
 *
 * Files: the source files of the commit's main language family, vendored/build/generated ones left out
 * (src/index/file-filter.ts), tests kept (LocAgent's graph holds them: a traceback often starts in one).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import { buildCodeGraph } from '../src/graph/build.ts';
import { fileFacts } from '../src/graph/file-facts.ts';
import { createFileVerdict, resolveFileFilter } from '../src/index/file-filter.ts';
import { RepoStore } from '../src/repo/store.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';

const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', multiple: true, default: ['/work/shared/data/swe-bench-lite.jsonl', '/work/shared/data/swe-bench-multilingual-dev.jsonl'] },
      mirrors: { type: 'string', default: '/work/.mirror' },
      out: { type: 'string', default: 'bench-results/graph.json' },
    },
  });
  const store = new RepoStore({ cacheDir: await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-')), mirrorsDir: values.mirrors, allowClone: false });
  const firstByRepo = new Map<string, string>();
  for (const file of values.dataset!) {
    const dataset = await loadDataset(file);
    for (const inst of dataset.instances) if (!firstByRepo.has(inst.repo)) firstByRepo.set(inst.repo, inst.base_commit);
  }
  const rows: Record<string, unknown>[] = [];
  console.log('repo                        files   nodes   edges  imports res.  calls res.  bases res.  cold s  heap MB');
  for (const [repo, commit] of firstByRepo) {
    try {
      const snapshot = await store.snapshot(repo, commit);
      global.gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      const t0 = performance.now();
      const listed = await snapshot.listFiles();
      const verdict = createFileVerdict(
        resolveFileFilter(
          { excludeTests: false },
          listed.map((e) => e.path),
        ),
      );
      const entries = listed.filter((e) => verdict(e.path) === 'indexed');
      const tRead = performance.now();
      const contents = await Promise.all(entries.map(async (e) => (await snapshot.readBlob(e.blob)).toString('utf8')));
      const readMs = performance.now() - tRead;
      const tFacts = performance.now();
      const facts = entries.map((e, i) => fileFacts(e.path, contents[i]!));
      const factsMs = performance.now() - tFacts;
      const tBuild = performance.now();
      const { graph, resolution } = buildCodeGraph(facts);
      const buildMs = performance.now() - tBuild;
      const totalMs = performance.now() - t0;
      const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
      const counts = graph.counts();
      const nodes = Object.values(counts.nodes).reduce((a, b) => a + b, 0);
      const edges = Object.values(counts.edges).reduce((a, b) => a + b, 0);
      rows.push({
        repo,
        commit,
        files: entries.length,
        counts,
        resolution,
        readMs: Math.round(readMs),
        factsMs: Math.round(factsMs),
        buildMs: Math.round(buildMs),
        totalMs: Math.round(totalMs),
        heapMb: Math.round(heapMb),
      });
      console.log(
        `${repo.padEnd(27)} ${String(entries.length).padStart(5)} ${String(nodes).padStart(7)} ${String(edges).padStart(7)}  ${pct(resolution.import.resolved, resolution.import.total).padStart(12)}  ${pct(resolution.call.resolved, resolution.call.total).padStart(10)}  ${pct(resolution.inherits.resolved, resolution.inherits.total).padStart(10)}  ${(totalMs / 1000).toFixed(1).padStart(6)}  ${Math.round(heapMb).toString().padStart(7)}`,
      );
      void graph; // keep the graph alive until measured
    } catch (err) {
      rows.push({ repo, commit, error: (err as Error).message });
      console.log(`${repo}: FAILED ${(err as Error).message}`);
    }
  }
  await store.close();
  await writeJsonAtomic(path.resolve(values.out!), { command: `npm run bench:graph -- ${process.argv.slice(2).join(' ')}`.trim(), rows });
}

await main();
