/**
 * Concurrent locfix processes on shared state, on real SWE-bench Lite repositories (Issue 15, item 5).
 *
 *   npm run bench:concurrency -- [--dataset FILE] [--mirrors DIR] [--repo owner/name]… [--out DIR]
 *
 * Runs `locfix retrieve` over the selected instances four ways and compares what each wrote:
 *   solo     one process, its own fresh cache (the reference);
 *   solo-2   the same again with another fresh cache: how much two independent runs differ anyway (Chroma's
 *            HNSW graph is built by parallel inserts, so far-down ranks of near-tied files can swap);
 *   pair-1/2 two processes at once on one fresh shared cache (one Chroma server, embedding and parsed-file
 *            caches written by both), each with its own run folder;
 *   warm     a third process afterwards on that shared cache (reads what the pair wrote);
 *   same     two processes at once on one run folder: the second must refuse, naming the first.
 * Reported: per run MRR / Top-1 / Top-10 (eval-loc), how many instances rank their files exactly as the solo
 * run does, and wall times. Before the cache locks, the probe behind Issue 15 measured MRR .670 → .467 for
 * two processes sharing state.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { benchInput } from './bench-inputs.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/locfix.js');

const { values } = parseArgs({
  options: {
    dataset: { type: 'string' },
    mirrors: { type: 'string' },
    repo: { type: 'string', multiple: true },
    out: { type: 'string', default: path.join(ROOT, 'bench-results/concurrency') },
  },
});
const repos = values.repo?.length ? values.repo : ['pytest-dev/pytest', 'psf/requests', 'pallets/flask'];
const out = path.resolve(values.out!);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

interface Done {
  code: number | null;
  stderr: string;
  ms: number;
}

function locfix(args: string[]): Promise<Done> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=8192', BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    child.once('exit', (code) => resolve({ code, stderr, ms: Date.now() - started }));
  });
}

const retrieve = (run: string, cache: string) => [
  'retrieve',
  '--dataset',
  benchInput(values, 'dataset'),
  ...repos.flatMap((r) => ['--repo', r]),
  '--mirrors',
  benchInput(values, 'mirrors'),
  '--cache-dir',
  path.join(out, cache),
  '--out',
  path.join(out, run),
];

/** instance id → ranked file paths */
function rankings(run: string): Map<string, string[]> {
  const folder = path.join(out, run, 'retrieve');
  const map = new Map<string, string[]>();
  for (const name of readdirSync(folder)) {
    if (!name.endsWith('.json')) continue;
    const a = JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as { instanceId: string; status: string; output?: { files: Array<{ path: string }> } };
    map.set(a.instanceId, a.status === 'ok' ? (a.output?.files.map((f) => f.path) ?? []) : []);
  }
  return map;
}

async function metrics(run: string): Promise<Record<string, number>> {
  const child = spawn(process.execPath, [BIN, 'eval-loc', path.join(out, run), '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  await new Promise((r) => child.once('exit', r));
  return JSON.parse(stdout) as Record<string, number>;
}

function check(label: string, done: Done): void {
  if (done.code !== 0) throw new Error(`${label} exited with ${done.code}:\n${done.stderr.slice(-2000)}`);
}

const solo = await locfix(retrieve('solo', 'cache-solo'));
check('solo', solo);
const solo2 = await locfix(retrieve('solo-2', 'cache-solo-2'));
check('solo-2', solo2);
const [pair1, pair2] = await Promise.all([locfix(retrieve('pair-1', 'cache-shared')), locfix(retrieve('pair-2', 'cache-shared'))]);
check('pair-1', pair1);
check('pair-2', pair2);
const warm = await locfix(retrieve('warm', 'cache-shared'));
check('warm', warm);
const [same1, same2] = await Promise.all([locfix(retrieve('same', 'cache-same')), locfix(retrieve('same', 'cache-same'))]);
const refusal = [same1, same2].find((d) => d.code !== 0);

const reference = rankings('solo');
const rows = [];
for (const [run, done] of [
  ['solo', solo],
  ['solo-2', solo2],
  ['pair-1', pair1],
  ['pair-2', pair2],
  ['warm', warm],
] as const) {
  const m = await metrics(run);
  const ranked = rankings(run);
  const same = (k: number) => [...reference].filter(([id, files]) => JSON.stringify(ranked.get(id)?.slice(0, k)) === JSON.stringify(files.slice(0, k))).length;
  rows.push({
    run,
    n: m.n,
    top1: m.top1,
    top10: m.top10,
    mrr: m.mrr,
    top10IdenticalToSolo: same(10),
    identicalToSolo: same(Number.MAX_SAFE_INTEGER),
    seconds: Math.round(done.ms / 1000),
  });
}
const result = {
  repos,
  instances: reference.size,
  rows,
  sameRunFolder: {
    exitCodes: [same1.code, same2.code],
    refusal: refusal?.stderr.split('\n').find((l) => /in use by process/.test(l)) ?? null,
  },
};
writeFileSync(path.join(out, 'concurrency.json'), JSON.stringify(result, null, 2) + '\n');
console.log(`repos: ${repos.join(', ')} (${reference.size} instances)`);
console.log('run     n   Top-1  Top-10  MRR    top 10 = solo  whole ranking = solo  wall');
for (const r of rows) {
  console.log(
    `${r.run.padEnd(7)} ${String(r.n).padStart(3)}  ${r.top1.toFixed(3)}  ${r.top10.toFixed(3)}   ${r.mrr.toFixed(3)}  ${String(r.top10IdenticalToSolo).padStart(3)}/${reference.size}         ${String(r.identicalToSolo).padStart(3)}/${reference.size}              ${r.seconds} s`,
  );
}
console.log(`one run folder, two processes: exit codes ${same1.code}, ${same2.code}; ${result.sameRunFolder.refusal ?? 'no refusal'}`);
