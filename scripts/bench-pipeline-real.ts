/**
 * bench:pipeline-real — `locfix run`, the whole pipeline, on real SWE-bench Lite rows (Django and sympy) in
 * the offline environment images of scripts/build-env-image.sh, with the scripted pipeline model of the
 * end-to-end test (test/e2e/pipeline-policy.ts) generalised to real rows (scripts/pipeline-real-scripts.ts).
 *
 * Each row gets a planned outcome: the gold answer at every level (`resolved`), or a failure at file,
 * function, patch-generation or empty-patch level. Plans are dealt in a fixed cycle over the rows in order;
 * a row whose no-op edit at the gold line would not parse is never given `patch-generation` (repair's syntax
 * check would turn it into an empty patch). Regression-test selection (the unpatched test modules of the
 * test patch) and reproduction scripts run in the real environment images.
 *
 * It reports, per instance: planned vs analysed category, whether the selected patch resolved, the time of
 * each stage and the containers each stage started (from `docker events`), and exits 1 when a category or a
 * gold verdict differs from the plan.
 *
 * SWE-bench Multilingual rows run the same way in their offline image: name it, and any setup the harness'
 * install needs offline, as `locfix run` takes them (docs/offline-env-images.md), e.g. for jq:
 *
 *   npm run bench:pipeline-real -- --dataset swe-bench-multilingual-dev.jsonl --instances jqlang__jq-2235,… \
 *     --env-image jqlang/jq=locfix/env.jq:1 \
 *     --instance-setup 'jqlang/jq=mkdir -p modules/oniguruma && cp -a /opt/oniguruma/. modules/oniguruma/'
 *
 * A non-Python row has no reproduction script (recorded as not available) and its regression tests are its
 * spec's build and test commands.
 *
 *   npm run bench:pipeline-real -- [--instances id,id,...] [--out DIR] [--mirrors DIR] [--dataset FILE]
 *     [--env-image REPO[@VERSION]=IMAGE]... [--instance-setup REPO[@VERSION]=COMMAND]...
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runExperiment } from '../app/engine/experiment.ts';
import { parseRunConfig } from '../src/config.ts';
import { loadDataset } from '../src/dataset/load.ts';
import { RepoStore } from '../src/repo/store.ts';
import { PIPELINE_STAGES } from '../src/run/stage.ts';
import type { StageArtifact } from '../src/run/stage-runner.ts';
import { RUN_LABEL } from '../sandbox/docker/sandbox.ts';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { PipelinePolicy } from '../test/e2e/pipeline-policy.ts';
import { offlineEnvImages } from './fidelity-execute.ts';
import { dealPlans, PythonAnalyzer, realInstanceScript, type RealScript } from './pipeline-real-scripts.ts';
import { benchInput } from './bench-inputs.ts';

/** Rows whose gold evaluation takes under 15 s in the offline images (bench:fidelity), 6 Django + 6 sympy. */
const DEFAULT_ROWS = [
  'django__django-11564',
  'django__django-12856',
  'django__django-13447',
  'django__django-14787',
  'django__django-15738',
  'django__django-16408',
  'sympy__sympy-11400',
  'sympy__sympy-15011',
  'sympy__sympy-15308',
  'sympy__sympy-19254',
  'sympy__sympy-23117',
  'sympy__sympy-24909',
];

interface ContainerEvent {
  name: string;
  time: number;
}

/** Containers created with the run's label while the run lasts (`docker events`). */
function watchContainers(runId: string): { stop: () => Promise<ContainerEvent[]> } {
  const events: ContainerEvent[] = [];
  const child = spawn(
    'docker',
    ['events', '--filter', 'type=container', '--filter', 'event=create', '--filter', `label=${RUN_LABEL}=${runId}`, '--format', '{{json .}}'],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        const e = JSON.parse(line) as { Actor?: { Attributes?: { name?: string } }; time?: number };
        if (e.Actor?.Attributes?.name) events.push({ name: e.Actor.Attributes.name, time: e.time ?? 0 });
      } catch {
        // a partial or foreign line: not a container event
      }
    }
  });
  return {
    stop: async () => {
      await new Promise((r) => setTimeout(r, 1500)); // the last events arrive after the run returns
      child.kill();
      return events;
    },
  };
}

/** Which stage started a container, from the name prefixes of validation/testbed.ts and validation/evaluate.ts. */
function containerStage(name: string, id: string): 'validate' | 'evaluate' | undefined {
  if (name.startsWith(`locfix-testbed-${id}-`)) return 'validate';
  if (name.startsWith(`locfix-eval-${id}-`)) return 'evaluate';
  return undefined;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string' },
      out: { type: 'string', default: path.join(os.tmpdir(), 'locfix-pipeline-real') },
      mirrors: { type: 'string' },
      dataset: { type: 'string' },
      'run-id': { type: 'string', default: 'pipeline-real' },
      concurrency: { type: 'string', default: '2' },
      'env-image': { type: 'string', multiple: true, default: [] },
      'instance-setup': { type: 'string', multiple: true, default: [] },
    },
  });
  const keyed = (flag: string, text: string): [string, string] => {
    const at = text.indexOf('=');
    if (at <= 0) throw new Error(`--${flag} ${text}: expected REPO[@VERSION]=VALUE`);
    return [text.slice(0, at), text.slice(at + 1)];
  };
  const envImages = { ...offlineEnvImages(), ...Object.fromEntries(values['env-image']!.map((t) => keyed('env-image', t))) };
  const instanceSetup: Record<string, string[]> = {};
  for (const [key, command] of values['instance-setup']!.map((t) => keyed('instance-setup', t))) (instanceSetup[key] ??= []).push(command);
  const ids = values.instances ? values.instances.split(',').map((s) => s.trim()) : DEFAULT_ROWS;
  const out = path.resolve(values.out!);
  await mkdir(out, { recursive: true });
  const dataset = await loadDataset(benchInput(values, 'dataset'));
  const rows = ids.map((id) => dataset.instances.find((i) => i.instance_id === id) ?? id);
  const missing = rows.filter((r) => typeof r === 'string');
  if (missing.length) throw new Error(`not in ${benchInput(values, 'dataset')}: ${missing.join(', ')}`);

  const store = new RepoStore({ cacheDir: path.join(out, 'repo-cache'), mirrorsDir: benchInput(values, 'mirrors'), allowClone: false });
  const analyzer = await PythonAnalyzer.create();
  const scripts: RealScript[] = [];
  const skipped: Array<{ id: string; reason: string }> = [];
  for (const row of rows as Exclude<(typeof rows)[number], string>[]) {
    const s = await realInstanceScript(row, store, analyzer);
    if ('reason' in s) skipped.push({ id: row.instance_id, reason: s.reason });
    else scripts.push(s);
  }
  await store.close();
  for (const s of skipped) console.log(`skipped ${s.id}: ${s.reason}`);
  const plan = dealPlans(scripts);

  const policy = new PipelinePolicy(scripts);
  policy.setPlan(plan);
  const server = new ScriptedModelServer({ name: 'pipeline-real', policy: policy.respond });
  await server.start();
  const runId = values['run-id']!;
  const runDir = path.join(out, 'runs', runId);
  const watcher = watchContainers(runId);
  const started = Date.now();
  const log: string[] = [];
  let exitCode = 0;
  try {
    await runExperiment(
      parseRunConfig({
        runId,
        runsDir: path.join(out, 'runs'),
        dataset: benchInput(values, 'dataset'),
        instances: scripts.map((s) => s.instance.instance_id),
        mirrorsDir: benchInput(values, 'mirrors'),
        cacheDir: path.join(out, 'cache'),
        embedder: 'lexical',
        llm: `openai:scripted@${server.openaiURL}`,
        seed: 1,
        localizer: { name: 'agentless', options: {} },
        repair: { samplesPerSet: 1, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 },
        validation: { regression: true, reproduction: true, reproductionSamples: 1, timeoutSeconds: 900 },
        evaluation: { enabled: true, timeoutSeconds: 1800 },
        sandbox: { envImages, instanceSetup, useOfficialImages: false },
        concurrency: { instances: Number(values.concurrency), sandboxes: Number(values.concurrency), index: 1 },
      }),
      { log: (l) => (log.push(l), console.log(l)) },
    );
  } finally {
    await server.stop();
  }
  const wallMs = Date.now() - started;
  const containers = await watcher.stop();

  const analysis = JSON.parse(await readFile(path.join(runDir, 'analysis.json'), 'utf8')) as { instances: Array<{ instanceId: string; category: string }> };
  const rowsOut = [];
  for (const s of scripts) {
    const id = s.instance.instance_id;
    const stages: Record<string, { ms: number; status: string; containers?: number }> = {};
    for (const stage of PIPELINE_STAGES) {
      const file = path.join(runDir, stage, `${id}.json`);
      if (!existsSync(file)) continue;
      const a = JSON.parse(await readFile(file, 'utf8')) as StageArtifact<{ resolved?: boolean }>;
      stages[stage] = { ms: a.durationMs, status: a.status };
    }
    for (const c of containers) {
      const stage = containerStage(c.name, id);
      if (stage && stages[stage]) stages[stage].containers = (stages[stage].containers ?? 0) + 1;
    }
    const evaluate = JSON.parse(await readFile(path.join(runDir, 'evaluate', `${id}.json`), 'utf8').catch(() => '{}')) as StageArtifact<{
      resolved?: boolean;
      error?: string;
    }>;
    const validate = JSON.parse(await readFile(path.join(runDir, 'validate', `${id}.json`), 'utf8').catch(() => '{}')) as StageArtifact<{
      regression?: { passing: number };
      validation?: Record<string, { regressionFailures?: number; reproductionPassed?: boolean }>;
    }>;
    const analysed = analysis.instances.find((a) => a.instanceId === id)?.category ?? 'missing';
    rowsOut.push({
      id,
      planned: plan[id],
      analysed,
      resolved: evaluate.output?.resolved ?? false,
      evaluationError: evaluate.output?.error,
      // the unpatched test modules' passing tests, and how the (single) candidate did against them
      regressionTests: validate.output?.regression?.passing,
      candidates: Object.values(validate.output?.validation ?? {}),
      goldFile: s.goldFile,
      goldFunction: s.goldFunction,
      stages,
    });
  }
  const wrong = rowsOut.filter((r) => r.analysed !== r.planned || r.resolved !== (r.planned === 'resolved'));
  if (policy.unplaced.length) console.log(`requests the policy could not place:\n  ${policy.unplaced.join('\n  ')}`);
  if (wrong.length || policy.unplaced.length) exitCode = 1;
  const result = { runId, wallMs, skipped, unplaced: policy.unplaced.length, rows: rowsOut, containersTotal: containers.length };
  await writeFile(path.join(out, 'pipeline-real.json'), JSON.stringify(result, null, 2));

  const short = (s: string) => s.replace(/^localize-/, '');
  console.log(`\n| instance | planned | analysed | resolved | regression tests (failing) | reproduction | ${PIPELINE_STAGES.map(short).join(' | ')} |`);
  console.log(`|---|---|---|---|--:|---|${PIPELINE_STAGES.map(() => '--:').join('|')}|`);
  for (const r of rowsOut) {
    const cells = PIPELINE_STAGES.map((st) => {
      const x = r.stages[st];
      if (!x) return '–';
      return `${(x.ms / 1000).toFixed(1)} s${x.containers ? ` (${x.containers} c)` : ''}${x.status === 'error' ? ' err' : ''}`;
    });
    const c = r.candidates[0];
    const regression = r.regressionTests === undefined ? '–' : `${r.regressionTests} (${c?.regressionFailures ?? '–'})`;
    const reproduction = c?.reproductionPassed === undefined ? '–' : c.reproductionPassed ? 'passes' : 'fails';
    console.log(
      `| ${r.id} | ${r.planned} | ${r.analysed}${r.analysed === r.planned ? '' : ' ✗'} | ${r.resolved ? 'yes' : 'no'} | ${regression} | ${reproduction} | ${cells.join(' | ')} |`,
    );
  }
  console.log(
    `\n${rowsOut.length - wrong.length} / ${rowsOut.length} rows as planned; wall ${(wallMs / 60000).toFixed(1)} min; ${containers.length} containers; results in ${out}/pipeline-real.json`,
  );
  process.exitCode = exitCode;
}

await main();
