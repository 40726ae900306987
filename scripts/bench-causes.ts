/**
 * One account and one denominator (issue 52): the demo's 5 mini-benchmark instances run five ways, side by side, with
 * Docker (validation and evaluation run, so "resolved" is real):
 *
 * - honest: the scripted model server of the end-to-end tests, steering each instance to its planned category (as
 *   scripts/record-demo.ts), its answers recorded in its cache;
 * - hard-503: the same server, answering HTTP 503 to every request about the instances the honest run did not
 *   resolve (the "hard" ones);
 * - recording-gap: a replay of the honest run's recording with the hard instances' answers removed;
 * - dead-embedder: an embedding server nothing listens on;
 * - missing-images: a base image that does not exist.
 *
 * It prints each run's exit status and closing account, then whether the honest run's headline is the same alone
 * and beside the others (report and compare), and the warnings compare gives before its statistics.
 *
 *   npm run bench:causes -- [--out DIR]
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareRuns } from '../results/compare.ts';
import { headline } from '../results/instance-account.ts';
import { buildReport } from '../results/report-files.ts';
import { analyzeRun } from '../results/run-analysis.ts';
import { buildMiniBenchmark } from '../src/minibench/build.ts';
import { demoRunConfig } from '../src/minibench/demo-run.ts';
import type { ScriptedReply } from '../test/support/scripted-model-server.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { PipelinePolicy } from '../test/e2e/pipeline-policy.ts';
import { DEMO_PLAN, instanceScripts } from '../test/e2e/minibench-scripts.ts';

const { values } = parseArgs({ options: { out: { type: 'string', default: path.join('.locfix', 'bench-causes') } } });
const out = path.resolve(values.out!);
rmSync(path.join(out, 'runs'), { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'locfix.js');

const PLAN = DEMO_PLAN;
const ids = Object.keys(PLAN);
const bench = await buildMiniBenchmark(path.join(out, 'minibench'));
const rows = new Map(bench.instances.map((i) => [i.instance_id, i]));
const hard = ids.filter((id) => PLAN[id] !== 'resolved');
/** A request is about an instance when it quotes the start of its issue. */
const about = (text: string, id: string) => text.includes(rows.get(id)!.problem_statement.trim().split('\n')[0]!.slice(0, 60));
const requestText = (request: unknown) => JSON.stringify(request);

const policy = new PipelinePolicy(instanceScripts(bench, ids));
policy.setPlan(PLAN);
const honestServer = new ScriptedModelServer({ policy: (request) => policy.respond(request) });
const hardServer = new ScriptedModelServer({
  policy: (request) => (hard.some((id) => about(requestText(request), id)) ? ({ status: 503 } as ScriptedReply) : policy.respond(request)),
});
await honestServer.start();
await hardServer.start();

const base = (runId: string, llm: string) => ({
  ...demoRunConfig({
    runId,
    runsDir: path.join(out, 'runs'),
    datasetPath: bench.datasetPath,
    mirrorsDir: bench.mirrorsDir,
    cacheDir: path.join(out, 'cache', runId),
    llm,
    instances: ids,
    docker: true,
  }),
  llm: { model: llm, maxRetries: 0 },
});

/** One `locfix run` in a child process; asynchronous, since the scripted servers answer from this process. */
async function run(name: string, config: object): Promise<{ name: string; exit: number | null; seconds: number; lines: string[] }> {
  const file = path.join(out, `${name}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  const started = Date.now();
  const child = spawn(process.execPath, [BIN, 'run', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  writeFileSync(path.join(out, `${name}.log`), output);
  const lines = output.split('\n').filter((l) => /^(analysis|run|evaluation): |^Error|^locfix: |^warning: /.test(l));
  return { name, exit, seconds: (Date.now() - started) / 1000, lines };
}

/** The honest run's recording with every answer to a hard instance's request removed. */
function recordingWithGap(from: string, to: string): number {
  rmSync(to, { recursive: true, force: true });
  cpSync(from, to, { recursive: true });
  let removed = 0;
  for (const shard of readdirSync(path.join(to, 'llm'))) {
    for (const key of readdirSync(path.join(to, 'llm', shard))) {
      const dir = path.join(to, 'llm', shard, key);
      const request = readFileSync(path.join(dir, 'request.json'), 'utf8');
      if (!hard.some((id) => about(request, id))) continue;
      rmSync(dir, { recursive: true });
      removed++;
    }
  }
  return removed;
}

const results = [];
try {
  results.push(await run('honest', base('honest', `openai:scripted@${honestServer.openaiURL}`)));
  results.push(await run('hard-503', base('hard-503', `openai:scripted@${hardServer.openaiURL}`)));
  const removed = recordingWithGap(path.join(out, 'cache', 'honest'), path.join(out, 'recording-gap-source'));
  console.log(`recording-gap: ${removed} recorded answers about the ${hard.length} hard instances removed from the honest run's recording`);
  results.push(await run('recording-gap', base('recording-gap', `replay:${path.join(out, 'recording-gap-source')}`)));
  results.push(
    await run('dead-embedder', { ...base('dead-embedder', `openai:scripted@${honestServer.openaiURL}`), embedder: 'openai:e@http://127.0.0.1:9/v1' }),
  );
  const missing = base('missing-images', `openai:scripted@${honestServer.openaiURL}`);
  results.push(await run('missing-images', { ...missing, sandbox: { baseImage: 'locfix/absent:none' } }));
} finally {
  await honestServer.stop();
  await hardServer.stop();
}

console.log('\n| run | exit | time | closing lines |\n|---|--:|--:|---|');
for (const r of results) console.log(`| ${r.name} | ${r.exit} | ${r.seconds.toFixed(0)} s | ${r.lines.join('<br>').replace(/\|/g, '\\|')} |`);

const analysed = [];
for (const r of results) {
  const a = await analyzeRun(path.join(out, 'runs', r.name)).catch(() => undefined);
  if (a) analysed.push(a);
}
console.log('\n| run | headline (every selected instance) | not reached by cause |\n|---|---|---|');
for (const a of analysed) {
  const s = a.report.failures;
  console.log(
    `| ${a.runId} | ${headline(s)} | ${
      Object.entries(s.notReachedByCause)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '—'
    } |`,
  );
}
const honest = analysed.find((a) => a.runId === 'honest')!;
const alone = headline(buildReport([honest]).runs[0]!.failures);
const beside = headline(buildReport(analysed).runs.find((r) => r.runId === 'honest')!.failures);
console.log(`\nhonest headline alone: ${alone}; beside the others: ${beside}; identical: ${alone === beside}`);
const sick = analysed.filter((a) => a.runId !== 'honest');
for (const other of sick) {
  const c = compareRuns([honest.outcome, other.outcome], { resamples: 1000 });
  const rate = (runId: string) => c.runs.find((r) => r.runId === runId)!.resolvedRate;
  console.log(
    `compare honest vs ${other.runId}: n ${c.resolutionInstances}, resolved rate ${rate('honest')} vs ${rate(other.runId)}; first warning: ${c.warnings[0] ?? '(none)'}`,
  );
}
