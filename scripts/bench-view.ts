/**
 * Does the run browser stay responsive on a full-size run? Builds a run folder of N instances (2,294 by default,
 * SWE-bench's full test split) from a real run's artifacts: instance i takes the artifacts of the source run's
 * instance i mod k under a new id, and the repository of SWE-bench Lite row i mod 300 (so the repository filter
 * has Lite's 12 values). Then it opens the browser over it and times, over HTTP on loopback, each kind of page
 * the user asks for: the runs page, the first and a middle page of the instance table, a sorted and a filtered
 * one, and instance pages. Prints medians of `--repeat` requests.
 *
 *   npm run bench:view -- --source runs/demo --lite ../shared/data/swe-bench-lite.jsonl [--instances 2294] [--repeat 20]
 */
import { assertConfined } from '../src/run/confinement.ts';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Catalogue } from '../app/view/catalogue.ts';
import { serveView } from '../app/view/server.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { INSTANCES_FILE } from '../src/run/manifest.ts';
import { RunLayout } from '../src/run/run-layout.ts';
import { PIPELINE_STAGES } from '../src/run/stage.ts';

const { values } = parseArgs({
  options: { source: { type: 'string' }, lite: { type: 'string' }, instances: { type: 'string', default: '2294' }, repeat: { type: 'string', default: '20' } },
});
if (!values.source || !values.lite) throw new Error('usage: npm run bench:view -- --source RUN --lite swe-bench-lite.jsonl [--instances N] [--repeat K]');

const readRows = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as SweInstance);

async function buildRun(dir: string, source: string, liteFile: string, n: number): Promise<void> {
  const sourceRows = await readRows(path.join(source, INSTANCES_FILE));
  const lite = await readRows(liteFile);
  const from = new RunLayout(source);
  const to = new RunLayout(dir);
  const manifest = JSON.parse(await readFile(from.manifestPath, 'utf8')) as { runId: string; config: { runId: string; instances: string[] } };
  const rows: SweInstance[] = [];
  const stages = PIPELINE_STAGES.filter((s) => sourceRows.some((r) => existsArtifact(from, s, r.instance_id)));
  for (const stage of stages) await mkdir(to.stageDir(stage), { recursive: true });
  for (let i = 0; i < n; i++) {
    const base = sourceRows[i % sourceRows.length]!;
    const liteRow = lite[i % lite.length]!;
    const id = `${liteRow.instance_id}.${Math.floor(i / lite.length)}`;
    rows.push({ ...base, instance_id: id, repo: liteRow.repo });
    for (const stage of stages) {
      const text = await readFile(from.artifactPath(stage, base.instance_id), 'utf8').catch(() => undefined);
      if (text) await writeFile(to.artifactPath(stage, id), text.split(JSON.stringify(base.instance_id)).join(JSON.stringify(id)));
    }
    const evaluation = path.join(source, 'evaluation', base.instance_id);
    if (existsSync(evaluation)) await cp(evaluation, path.join(dir, 'evaluation', id), { recursive: true });
  }
  await writeFile(to.file(INSTANCES_FILE), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  manifest.runId = path.basename(dir);
  manifest.config.runId = manifest.runId;
  manifest.config.instances = rows.map((r) => r.instance_id);
  await writeFile(to.manifestPath, JSON.stringify(manifest, null, 2));
}

const existsArtifact = (layout: RunLayout, stage: string, id: string) => existsSync(layout.artifactPath(stage, id));

async function time(url: string, repeat: number): Promise<{ median: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    const response = await fetch(url);
    const body = await response.text();
    times.push(performance.now() - t0);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    bytes = body.length;
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, bytes };
}

const n = Number(values.instances);
const repeat = Number(values.repeat);
const work = await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-view-'));
try {
  const run = path.join(work, `view-${n}`);
  let t0 = performance.now();
  await buildRun(run, path.resolve(values.source), path.resolve(values.lite), n);
  console.log(`built a run of ${n} instances from ${values.source} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t0 = performance.now();
  // the part of the start that checks no link leads out of the folder (src/run/confinement.ts), timed alone
  await assertConfined(run);
  const walk = performance.now() - t0;
  t0 = performance.now();
  const catalogue = await Catalogue.open([run]);
  console.log(
    `locfix view start (open and analyse the run): ${((performance.now() - t0) / 1000).toFixed(1)} s; the confinement walk, which each reader that opens the folder makes once: ${(walk / 1000).toFixed(2)} s`,
  );
  const server = await serveView(catalogue);
  const key = catalogue.runs[0]!.key;
  const middle = Math.ceil(n / 100 / 2);
  const someRepo = encodeURIComponent(catalogue.choices().repos[0]!);
  const ids = catalogue.rows.map((r) => r.id);
  const pages: Array<[string, string]> = [
    ['runs page', '/'],
    ['instance table, page 1', '/instances'],
    [`instance table, page ${middle}`, `/instances?page=${middle}`],
    ['sorted by cost, descending', '/instances?sort=cost&desc=1'],
    ['filtered by repository', `/instances?repo=${someRepo}`],
    ['filtered by category and id text', '/instances?category=file&text=django'],
    ['an instance page (first)', `/runs/${key}/instances/${encodeURIComponent(ids[0]!)}`],
    ['an instance page (last)', `/runs/${key}/instances/${encodeURIComponent(ids.at(-1)!)}`],
  ];
  console.log(`\n| page | median (ms) | size (KB) |\n|---|--:|--:|`);
  for (const [label, route] of pages) {
    const { median, bytes } = await time(`${server.url}${route}`, repeat);
    console.log(`| ${label} | ${median.toFixed(1)} | ${(bytes / 1024).toFixed(0)} |`);
  }
  await server.close();
} finally {
  await rm(work, { recursive: true, force: true });
}
