/**
 * Infrastructure never counts against a method (Issue 41): on the mini-benchmark's demo instances, a healthy run
 * (the demo's configuration, replaying the bundled recording), a run whose model server is down, and a run whose
 * replay holds no answer for some requests (the same recording asked by another localizer). Each is analysed, and
 * the healthy run is compared with the sick ones.
 *
 *   npm run bench:causes -- [--out DIR]
 *
 * It prints each run's account line and categories, what `compare` counts as judged by every run, whether the
 * healthy run's rates are the same alone and beside the sick runs, and which recorded errors `--retry-errors` reruns. No Docker: the runs stop after selection.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareRuns } from '../results/compare.ts';
import { accountLine } from '../results/instance-account.ts';
import { buildReport } from '../results/report-files.ts';
import { analyzeRun } from '../results/run-analysis.ts';
import { buildMiniBenchmark } from '../src/minibench/build.ts';
import { retriedByDefault } from '../src/run/failure-cause.ts';
import { DEMO_RECORDING_DIR, demoRunConfig, type DemoRecordingFile } from '../src/minibench/demo-run.ts';

const { values } = parseArgs({ options: { out: { type: 'string', default: path.join('.locfix', 'bench-causes') } } });
const out = path.resolve(values.out!);
mkdirSync(out, { recursive: true });
const BIN = path.resolve(import.meta.dirname, '..', 'bin', 'locfix.js');

const bench = await buildMiniBenchmark(path.join(out, 'minibench'));
const recording = JSON.parse(readFileSync(path.join(DEMO_RECORDING_DIR, 'recording.json'), 'utf8')) as DemoRecordingFile;
const base = (runId: string, llm: string) =>
  demoRunConfig({
    runId,
    runsDir: path.join(out, 'runs'),
    datasetPath: bench.datasetPath,
    mirrorsDir: bench.mirrorsDir,
    cacheDir: path.join(out, 'cache', runId),
    llm,
    instances: recording.instances,
    docker: false,
  });
const replay = `replay:${DEMO_RECORDING_DIR}`;
const configs = {
  healthy: base('healthy', replay),
  // nothing listens on the discard port of loopback: every call fails to connect
  'server-down': { ...base('server-down', 'openai:scripted@http://127.0.0.1:9/v1'), llm: { model: 'openai:scripted@http://127.0.0.1:9/v1', maxRetries: 0 } },
  // the recording answered the cascade; Agentless alone asks what it never recorded for the instances retrieval answered
  'replay-miss': { ...base('replay-miss', replay), localizer: { name: 'agentless', options: {} } },
};
for (const [name, config] of Object.entries(configs)) {
  const file = path.join(out, `${name}.json`);
  writeFileSync(file, JSON.stringify(config, null, 2));
  const started = Date.now();
  rmSync(path.join(out, 'runs', name), { recursive: true, force: true });
  const run = spawnSync(process.execPath, [BIN, 'run', '--config', file], { encoding: 'utf8' });
  const closing = (run.stderr + run.stdout).split('\n').find((l) => l.startsWith('analysis: ')) ?? '(no analysis line)';
  console.log(`${name}: exit ${run.status}, ${((Date.now() - started) / 1000).toFixed(1)} s; ${closing}`);
}

const [healthy, down, miss] = await Promise.all(Object.keys(configs).map((name) => analyzeRun(path.join(out, 'runs', name))));
for (const a of [healthy!, down!, miss!]) {
  const s = a.report.failures;
  console.log(`\n${a.runId}: ${accountLine(s)}`);
  for (const [why, n] of Object.entries(s.notJudgedReasons)) console.log(`  ${n} × ${why.slice(0, 160)}`);
}
// the healthy run's own account in a report of it alone, and in a report beside the sick runs
const ownAlone = buildReport([healthy!]).runs[0]!.failures;
const ownBeside = buildReport([healthy!, down!, miss!]).runs[0]!.failures;
const beside = compareRuns([healthy!.outcome, down!.outcome, miss!.outcome], { resamples: 1000 });
const summary = (f: typeof ownAlone) => ({
  judged: f.judged,
  categories: Object.fromEntries(
    Object.entries(f.categories)
      .filter(([, c]) => (c as { count: number }).count > 0)
      .map(([k, c]) => [k, (c as { count: number }).count]),
  ),
});
console.log(`\nhealthy alone:           ${JSON.stringify(summary(ownAlone))}`);
console.log(`healthy beside the sick: ${JSON.stringify(summary(ownBeside))}; identical: ${JSON.stringify(ownAlone) === JSON.stringify(ownBeside)}`);
console.log(
  `compare healthy, server-down, replay-miss: judged by every run ${beside.judgedInstances}, resolution rows ${beside.resolution.length}, unique fixes ${beside.uniqueFixes.length}, localized by every run ${beside.localizedInstances}`,
);

// what `--retry-errors` would run again in each run: the errors that were not the method's own
for (const name of Object.keys(configs)) {
  let errors = 0;
  let retried = 0;
  const root = path.join(out, 'runs', name);
  for (const stage of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const file of readdirSync(path.join(root, stage.name)).filter((f) => f.endsWith('.json'))) {
      const artifact = JSON.parse(readFileSync(path.join(root, stage.name, file), 'utf8')) as { status?: string; error?: { kind?: string } };
      if (artifact.status !== 'error') continue;
      errors++;
      if (retriedByDefault(artifact.error, stage.name)) retried++;
    }
  }
  console.log(`${name}: ${errors} stage errors recorded; --retry-errors reruns ${retried}, --retry-errors all ${errors}`);
}
