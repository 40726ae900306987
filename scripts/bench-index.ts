/**
 * Index build benchmark on the real SWE-bench Lite repositories: cold and warm build times per repository,
 * total wall time, peak memory, and dense-query latency of the two commit-filter strategies.
 *
 *   npx tsx scripts/bench-index.ts [--dataset FILE] [--mirrors DIR] [--repos a/b,c/d] [--limit N]
 *        [--cache DIR] [--embedder lexical] [--queries N]
 *
 * Instances are grouped by repository (commit order as in the dataset); the first commit of a repository
 * is its cold build, the others warm. With a fresh --cache everything is cold on disk too; run again with
 * the same --cache for a "new process, warm disk" measurement.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RepoStore } from '../src/repo/store.ts';
import { createEmbedder } from '../src/embedding/factory.ts';
import { openChromaStore } from '../src/vectorstore/supervised.ts';
import { buildRepoIndex } from '../src/index/repo-index.ts';
import { IndexMemo } from '../src/index/index-memo.ts';
import type { DenseFilterStrategy, IndexTimings } from '../src/index/types.ts';
import { benchInput } from './bench-inputs.ts';

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    mirrors: { type: 'string' },
    repos: { type: 'string' },
    limit: { type: 'string' },
    cache: { type: 'string' },
    embedder: { type: 'string', default: 'lexical' },
    queries: { type: 'string', default: '3' },
  },
});

interface Row {
  instance_id: string;
  repo: string;
  base_commit: string;
  problem_statement: string;
}

/** SWE-bench's mirrors of some repositories are named swe-bench/<owner>__<name> */
async function mirrorPath(mirrorsDir: string, repo: string): Promise<string> {
  const [owner, name] = repo.split('/');
  for (const folder of [`${owner}+${name}`, `swe-bench+${owner}__${name}`]) {
    const p = path.join(mirrorsDir, folder, 'repo');
    try {
      await readFile(path.join(p, 'HEAD'));
      return p;
    } catch {
      // try the next layout
    }
  }
  throw new Error(`no mirror of ${repo} under ${mirrorsDir}`);
}

const rows = (await readFile(benchInput(values, 'dataset'), 'utf8'))
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Row)
  .filter((r) => !values.repos || values.repos.split(',').includes(r.repo))
  .slice(0, values.limit ? Number(values.limit) : undefined);
const byRepo = new Map<string, Row[]>();
for (const r of rows) byRepo.set(r.repo, [...(byRepo.get(r.repo) ?? []), r]);

const cacheDir = values.cache ?? (await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-index-')));
const mirrors: Record<string, string> = {};
for (const repo of byRepo.keys()) mirrors[repo] = await mirrorPath(benchInput(values, 'mirrors'), repo);
const repoStore = new RepoStore({ cacheDir: path.join(cacheDir, 'repos'), mirrors, allowClone: false });
const { store, server, close } = await openChromaStore({ cacheDir });
/** CPU seconds used so far by the Chroma server process (it runs beside this one) */
async function serverCpuMs(): Promise<number> {
  try {
    const state = JSON.parse(await readFile(path.join(cacheDir, 'chroma-server.json'), 'utf8')) as { pid: number };
    const fields = (await readFile(`/proc/${state.pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
void server;
const embedder = createEmbedder(values.embedder!);
const memo = new IndexMemo();
const nQueries = Number(values.queries);

let peakRss = 0;
const sampleRss = (): void => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const sampler = setInterval(sampleRss, 200);

const fmt = (ms: number): string => (ms / 1000).toFixed(2);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const lines: string[] = [];
const latency: Record<DenseFilterStrategy, number[]> = { ids: [], overfetch: [] };
let totalChunks = 0;
for (const [repo, instances] of byRepo) {
  const repoStart = performance.now();
  const builds: IndexTimings[] = [];
  const cpuMs: number[] = [];
  const serverMs: number[] = [];
  for (const inst of instances) {
    const snapshot = await repoStore.snapshot(repo, inst.base_commit);
    const c0 = process.cpuUsage();
    const s0 = await serverCpuMs();
    const index = await buildRepoIndex(snapshot, { embedder, vectorStore: store, cacheDir, memo });
    const c = process.cpuUsage(c0);
    cpuMs.push((c.user + c.system) / 1000);
    serverMs.push((await serverCpuMs()) - s0);
    builds.push(index.timings);
    if (builds.length === 1)
      console.error(
        repo,
        'cold',
        JSON.stringify(index.timings, (_k, v) => (typeof v === 'number' ? Math.round(v) : v)),
      );
    totalChunks = Math.max(totalChunks, 0) + index.timings.chunksUpserted;
    if (builds.length <= nQueries) {
      for (const strategy of ['ids', 'overfetch'] as const) {
        const idx = strategy === 'ids' ? index : await buildRepoIndex(snapshot, { embedder, vectorStore: store, cacheDir, memo, denseFilter: strategy });
        const q0 = performance.now();
        await idx.searchDense(inst.problem_statement, 300);
        latency[strategy].push(performance.now() - q0);
      }
    }
  }
  memo.forgetRepo(repo);
  const [cold, ...warm] = builds;
  const warmTotals = warm.map((w) => w.totalMs);
  const warmCpu = cpuMs.slice(1).map((x, i) => x + (serverMs[i + 1] || 0));
  lines.push(
    `| ${repo} | ${instances.length} | ${cold.filesIndexed} | ${cold.chunks} | ${fmt(cold.totalMs)} | ${fmt(cpuMs[0])} + ${fmt(serverMs[0])} | ` +
      `${warm.length ? `${fmt(median(warmTotals))} / ${fmt(Math.max(...warmTotals))}` : '–'} | ${warm.length ? `${fmt(median(warmCpu))} / ${fmt(Math.max(...warmCpu))}` : '–'} | ` +
      `${builds.reduce((a, b) => a + b.chunksUpserted, 0)} | ${fmt(performance.now() - repoStart)} | ${fmt(cpuMs.reduce((a, b) => a + b, 0) + serverMs.reduce((a, b) => a + (b || 0), 0))} |`,
  );
  console.error(lines[lines.length - 1]);
}
clearInterval(sampler);
sampleRss();
const cpu = process.cpuUsage(cpu0);
console.log(`\nembedder ${embedder.id}; cache ${cacheDir}`);
console.log(
  '| repository | instances | files (first) | chunks (first) | cold wall s | cold CPU s (locfix + Chroma) | warm wall s (median / max) | warm CPU s (median / max) | vectors stored | repo wall s | repo CPU s |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const l of lines) console.log(l);
console.log(
  `\ntotal wall ${fmt(performance.now() - t0)} s; this process CPU ${fmt((cpu.user + cpu.system) / 1000)} s; peak RSS ${(peakRss / 1e6).toFixed(0)} MB; chunk vectors stored ${totalChunks}`,
);
for (const s of ['ids', 'overfetch'] as const) {
  if (latency[s].length)
    console.log(
      `dense query k=300, filter '${s}': median ${median(latency[s]).toFixed(0)} ms, max ${Math.max(...latency[s]).toFixed(0)} ms (n=${latency[s].length})`,
    );
}
await close();
await repoStore.close();
