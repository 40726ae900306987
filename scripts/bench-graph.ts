/**
 * Code graph benchmark: for each repository of a dataset, the graph of the first instance's base commit —
 * cold build time (reading blobs, parsing facts, building), heap growth, node and edge counts, and how many
 * import, call and base-class references resolved to a node of the repository — then the graphs of the
 * next instances' commits built incrementally (facts reused by blob), with the share of files that changed.
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
import type { FileFacts } from '../src/index/graph/file-facts.ts';
import { buildRepoGraph } from '../src/index/graph/repo-graph.ts';
import { RepoStore } from '../src/repo/store.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { benchDatasets, benchInput } from './bench-inputs.ts';

/** warm builds per repository: the base commits of its next instances */
const WARM_COMMITS = 2;
const pct = (a: number, b: number) => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string', multiple: true },
      mirrors: { type: 'string' },
      out: { type: 'string', default: 'bench-results/graph.json' },
    },
  });
  const store = new RepoStore({
    cacheDir: await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-')),
    mirrorsDir: benchInput(values, 'mirrors'),
    allowClone: false,
  });
  // per repository: its first instance's commit (cold) and the commits of its next instances (warm)
  const commitsByRepo = new Map<string, string[]>();
  for (const file of benchDatasets(values.dataset)) {
    const dataset = await loadDataset(file);
    for (const inst of dataset.instances) {
      const list = commitsByRepo.get(inst.repo) ?? [];
      if (!list.includes(inst.base_commit) && list.length < 1 + WARM_COMMITS) list.push(inst.base_commit);
      commitsByRepo.set(inst.repo, list);
    }
  }
  const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-cache-'));
  const rows: Record<string, unknown>[] = [];
  console.log('repo                        files   nodes   edges  imports res.  calls res.  bases res.  cold s  heap MB  warm s (changed files)');
  for (const [repo, commits] of commitsByRepo) {
    try {
      const memo = new Map<string, FileFacts>();
      global.gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      const cold = await buildRepoGraph(await store.snapshot(repo, commits[0]!), { cacheDir, memo });
      const heapMb = (process.memoryUsage().heapUsed - heap0) / 1024 / 1024;
      const warm: Array<{ commit: string; ms: number; changed: number; files: number }> = [];
      for (const commit of commits.slice(1)) {
        const g = await buildRepoGraph(await store.snapshot(repo, commit), { cacheDir, memo });
        warm.push({ commit, ms: Math.round(g.timings.totalMs), changed: g.timings.filesParsed, files: g.timings.files });
      }
      const { graph, resolution, timings } = cold;
      const counts = graph.counts();
      const nodes = Object.values(counts.nodes).reduce((x, y) => x + y, 0);
      const edges = Object.values(counts.edges).reduce((x, y) => x + y, 0);
      rows.push({ repo, commit: commits[0], counts, resolution, timings, heapMb: Math.round(heapMb), warm });
      const warmText = warm.map((w) => `${(w.ms / 1000).toFixed(2)} (${pct(w.changed, w.files)})`).join(', ');
      console.log(
        `${repo.padEnd(27)} ${String(timings.files).padStart(5)} ${String(nodes).padStart(7)} ${String(edges).padStart(7)}  ${pct(resolution.import.resolved, resolution.import.total).padStart(12)}  ${pct(resolution.call.resolved, resolution.call.total).padStart(10)}  ${pct(resolution.inherits.resolved, resolution.inherits.total).padStart(10)}  ${(timings.totalMs / 1000).toFixed(1).padStart(6)}  ${Math.round(heapMb).toString().padStart(7)}  ${warmText}`,
      );
    } catch (err) {
      rows.push({ repo, error: (err as Error).message });
      console.log(`${repo}: FAILED ${(err as Error).message}`);
    }
  }
  await store.close();
  await writeJsonAtomic(path.resolve(values.out!), { command: `npm run bench:graph -- ${process.argv.slice(2).join(' ')}`.trim(), rows });
}

await main();
