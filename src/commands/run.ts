/**
 * `locfix run`: a whole SWE-bench experiment — file → function → line localization, repair, validation,
 * selection, evaluation — then the analysis and reports. Every stage's output per instance is an atomic file
 * under runs/<id>/, so an interrupted run (Ctrl-C, a crash, `kill -9`) resumes by running the same command.
 *
 *   locfix run --config experiment.json [--run-id ID] [--llm SPEC] [--localizer NAME] [--limit N] …
 */
import type { Command } from 'commander';
import path from 'node:path';
import { artifactSettings, loadRunConfig, parseRunConfig, type RunConfig, type RunConfigInput } from '../config.ts';
import { settingsChanges } from '../util/settings-diff.ts';
import { loadSelection, positiveInt, runSelectionFlags } from './common.ts';
import { defaultCacheDir } from '../dataset/load.ts';
import { Services } from '../services.ts';
import { RunLayout } from '../run/run-layout.ts';
import { closeInvocation, openManifest, readManifest } from '../run/manifest.ts';
import { runPipeline, type InstancePipelineResult } from '../orchestrator/pipeline.ts';
import { groupByRepo, releaseAfterLastInstance } from '../run/repo-release.ts';
import { createProgress } from '../run/progress.ts';
import { assembleStages, runPlan } from '../orchestrator/stages.ts';
import { acquireRunLock } from '../run/run-lock.ts';
import { SpendLedger, type SpendCaps } from '../run/spend-ledger.ts';
import { STAGE } from '../run/stage.ts';
import { writeJsonAtomic } from '../util/fsx.ts';
import { writeRunAnalysis, writeRunInstances } from '../../results/run-analysis.ts';
import { localizerNames, localizerNeedsModel, validateLocalizer } from '../../localizer/registry.ts';
import { writeReports } from './report.ts';
import { writePredictions } from './predictions.ts';
import { runOnCluster } from './run-cluster.ts';
import type { ExperimentResult, ShardRunResult } from '../run/run-result.ts';
import { makeRunSummary } from '../../validation/evaluate.ts';

/** A `locfix run` flag and the config key it sets: flags and config are declared in this one table. */
interface RunFlag {
  flag: string;
  description: string;
  /** the config key (and, for an object-valued key, the field) the flag sets */
  key: keyof RunConfigInput;
  field?: string;
  parse?: (text: string, flag: string) => unknown;
  /** repeatable: each use adds one value to a list */
  repeat?: boolean;
}

/** Typed entry: `field` must be a field of that config key's object. */
function flag<K extends keyof RunConfigInput>(
  key: K,
  spec: Omit<RunFlag, 'key' | 'field'> & { field?: keyof Extract<Exclude<RunConfigInput[K], undefined>, object> & string },
): RunFlag {
  return { key, ...spec };
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const nonNegativeInt = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} expects a non-negative integer, got "${text}"`);
  return n;
};
const positiveNumber = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} expects a positive number, got "${text}"`);
  return n;
};
const integer = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`${name} expects an integer, got "${text}"`);
  return n;
};

export const RUN_FLAGS: readonly RunFlag[] = [
  flag('runId', { flag: '--run-id <id>', description: 'names runs/<id>' }),
  flag('dataset', { flag: '--dataset <source>', description: 'SWE-bench instances: file or Hub name' }),
  flag('instances', { flag: '--instances <ids>', description: 'comma-separated instance ids', parse: list }),
  flag('pattern', { flag: '--pattern <pattern>', description: 'instance ids matching this glob or /regex/' }),
  flag('repos', { flag: '--repo <owner/name>', description: 'instances of this repository (repeatable)', repeat: true }),
  flag('limit', { flag: '--limit <n>', description: 'at most this many instances', parse: (t, f) => positiveInt(f, t) }),
  flag('shard', { flag: '--shard <i/n>', description: 'only part i of n of the selection; `locfix merge` joins the parts' }),
  flag('llm', { flag: '--llm <spec>', description: 'chat model, e.g. ollama:gpt-oss:120b or openai:gpt-4o@http://localhost:8000/v1' }),
  flag('llm', {
    field: 'timeoutMs',
    flag: '--llm-timeout <seconds>',
    description: 'per model request (default 300)',
    parse: (t, f) => positiveInt(f, t)! * 1000,
  }),
  flag('llm', { field: 'maxRetries', flag: '--llm-retries <n>', description: 'retries of a failed model request (default 4)', parse: nonNegativeInt }),
  flag('localizer', { field: 'name', flag: '--localizer <name>', description: `file localizer: ${localizerNames().join(' | ')}` }),
  flag('handoff', {
    flag: '--handoff <contract>',
    description: 'top (default: the first topFiles) | soft (those, and later stages may look beyond) | hard (only the predicted set)',
  }),
  flag('embedder', { flag: '--embedder <spec>', description: 'lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url]' }),
  flag('mirrorsDir', { flag: '--mirrors <dir>', description: 'folder with bare mirrors laid out as owner+name/repo' }),
  flag('cacheDir', { flag: '--cache-dir <dir>', description: 'mirrors, embeddings, LLM responses, local Chroma' }),
  flag('chromaUrl', { flag: '--chroma-url <url>', description: 'a running Chroma server' }),
  flag('runsDir', { flag: '--runs-dir <dir>', description: 'where run directories go (default runs)' }),
  flag('docker', {
    field: 'backend',
    flag: '--backend <name>',
    description: 'local (default) | docker-pool: where validation and evaluation run; slurm: whole instances as a job array (cluster.*)',
  }),
  flag('docker', {
    field: 'engines',
    flag: '--engine <url[=n]>',
    description: 'an engine of the docker-pool backend, e.g. unix:///run/docker2.sock=2 (repeatable)',
    repeat: true,
  }),
  flag('cluster', { field: 'shards', flag: '--shards <n>', description: 'slurm: parts the run is split into (default 4)', parse: (t, f) => positiveInt(f, t) }),
  flag('cluster', { field: 'partition', flag: '--partition <name>', description: 'slurm: partition of the tasks' }),
  flag('cluster', { field: 'timeLimit', flag: '--time-limit <time>', description: 'slurm: wall-clock limit per task, e.g. 02:00:00' }),
  flag('cluster', { field: 'cpusPerTask', flag: '--cpus-per-task <n>', description: 'slurm: CPUs per task (default 2)', parse: (t, f) => positiveInt(f, t) }),
  flag('cluster', { field: 'memory', flag: '--mem <size>', description: 'slurm: memory per task, e.g. 8G (default)' }),
  flag('cluster', {
    field: 'maxAttempts',
    flag: '--max-attempts <n>',
    description: 'slurm: submissions of a failing shard before it is given up (default 3)',
    parse: (t, f) => positiveInt(f, t),
  }),
  flag('stopAfter', { flag: '--stop-after <stage>', description: 'stop after this stage, e.g. localize-files' }),
  flag('seed', { flag: '--seed <n>', description: 'seed recorded in the manifest and used for sampling', parse: integer }),
  flag('budget', {
    field: 'instanceTokens',
    flag: '--max-instance-tokens <n>',
    description: 'spend cap per instance: tokens',
    parse: (t, f) => positiveInt(f, t),
  }),
  flag('budget', { field: 'instanceDollars', flag: '--max-instance-dollars <usd>', description: 'spend cap per instance: dollars', parse: positiveNumber }),
  flag('budget', { field: 'runTokens', flag: '--max-run-tokens <n>', description: 'spend cap of the run: tokens', parse: (t, f) => positiveInt(f, t) }),
  flag('budget', { field: 'runDollars', flag: '--max-run-dollars <usd>', description: 'spend cap of the run: dollars', parse: positiveNumber }),
  flag('concurrency', {
    field: 'instances',
    flag: '--concurrency <n>',
    description: 'instances in flight through the pipeline',
    parse: (t, f) => positiveInt(f, t),
  }),
];

/** commander's option name for a flag ("--run-id <id>" -> "runId"). */
function optionName(spec: RunFlag): string {
  return spec.flag
    .split(' ')[0]
    .slice(2)
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** The config overrides the given flags make (unset flags make none). */
export function overridesFrom(flags: Record<string, unknown>): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const spec of RUN_FLAGS) {
    const raw = flags[optionName(spec)];
    if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) continue;
    const name = spec.flag.split(' ')[0];
    const value = spec.parse && typeof raw === 'string' ? spec.parse(raw, name) : raw;
    // a field of a key that also takes a plain string (`llm`: a model spec) keeps that string as the model
    const before = overrides[spec.key];
    if (spec.field) overrides[spec.key] = { ...(typeof before === 'string' ? { model: before } : (before as object | undefined)), [spec.field]: value };
    else overrides[spec.key] = value;
  }
  // `--backend slurm` runs whole instances on the cluster; validation and evaluation keep the configured engine(s)
  const docker = overrides.docker as { backend?: unknown } | undefined;
  if (docker?.backend === 'slurm') {
    const { backend: _slurm, ...rest } = docker;
    if (Object.keys(rest).length) overrides.docker = rest;
    else delete overrides.docker;
    overrides.cluster = { ...(overrides.cluster as object | undefined), scheduler: 'slurm' };
  }
  return overrides;
}

/** The artifact settings of a manifest written before they were recorded, when its config still parses. */
function recordedSettings(config: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return artifactSettings(parseRunConfig(config));
  } catch {
    return undefined; // a config of an older schema: nothing to compare against
  }
}

/** The run's spend ledger under the configured caps; a dollar cap needs the model's price. */
async function openSpendLedger(layout: RunLayout, config: RunConfig, services: Services): Promise<SpendLedger> {
  const { instanceTokens, instanceDollars, runTokens, runDollars } = config.budget;
  const caps: SpendCaps = { instance: { tokens: instanceTokens, dollars: instanceDollars }, run: { tokens: runTokens, dollars: runDollars } };
  const llm = services.llm;
  if ((instanceDollars !== undefined || runDollars !== undefined) && llm && !llm.price) {
    throw new Error(
      `a dollar spend cap needs the price of ${llm.id}, and it has none: add it to llm.prices in the config ` +
        `({"${llm.id.slice(llm.id.indexOf(':') + 1)}": {"input": USD per 1M, "output": USD per 1M}}) or cap tokens instead`,
    );
  }
  return SpendLedger.open(layout, caps);
}

export interface ExperimentOptions {
  retryErrors?: boolean;
  log?: (line: string) => void;
  /** why stages are left out, when the caller knows (the demo: no Docker daemon); recorded in the manifest's plan */
  leftOut?: Record<string, string>;
}

export async function runExperiment(config: RunConfig, options: ExperimentOptions = {}): Promise<ExperimentResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  // a misspelled localizer or option fails here, naming the key, before any instance or service starts
  config.localizer.options = await validateLocalizer(config.localizer.name, config.localizer.options);
  const cacheDir = path.resolve(config.cacheDir ?? defaultCacheDir());
  if (config.cluster.scheduler !== 'none' && !config.shard) return runOnCluster(config, cacheDir, { retryErrors: options.retryErrors, log });
  const layout = new RunLayout(path.resolve(config.runsDir, config.runId));
  // one process per run folder: a second one refuses, naming the holder, instead of interleaving artifacts
  const lock = acquireRunLock(layout.root);
  try {
    return await runExperimentLocked(config, layout, cacheDir, options, log);
  } finally {
    lock.release();
  }
}

async function runExperimentLocked(
  config: RunConfig,
  layout: RunLayout,
  cacheDir: string,
  options: ExperimentOptions,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const retryErrors = options.retryErrors;
  const instances = await loadSelection(runSelectionFlags(config, cacheDir), 'run');
  const services = new Services({
    cacheDir,
    mirrors: config.mirrors,
    mirrorsDir: config.mirrorsDir,
    embedder: config.embedder,
    chromaUrl: config.chromaUrl,
    llm: config.llm,
    runId: layout.id,
  });
  const modelName = services.llm?.id ?? 'locfix';
  // a resume must not reuse artifacts made under other settings: refuse, saying what changed
  const previous = await readManifest(layout);
  const settings = artifactSettings(config);
  if (previous) {
    const recorded = previous.settings ?? recordedSettings(previous.config);
    const changes = recorded ? settingsChanges(recorded, settings) : [];
    if (changes.length) {
      throw new Error(
        `run ${config.runId} was made with other settings, so its artifacts do not fit these:\n  ${changes.join('\n  ')}\n` +
          `use a new --run-id for the new settings (or delete ${layout.root} to start over)`,
      );
    }
  }
  const { stages, docker } = assembleStages(config, services, layout);
  // what would fail every instance alike stops the run here, before anything is recorded
  const modelStages = stages.filter((s) => s.name === STAGE.functions || s.name === STAGE.lines || s.name === STAGE.repair).map((s) => s.name);
  const needsModel = localizerNeedsModel(config.localizer.name, config.localizer.options)
    ? `the ${config.localizer.name} localizer`
    : modelStages.length
      ? `${modelStages.join(', ')} (stop earlier with --stop-after localize-files)`
      : undefined;
  await services.checkConfiguration({ repos: instances.map((i) => i.repo), needsModel }).catch(async (err) => {
    await services.close();
    throw err;
  });
  await writeRunInstances(layout, instances);
  await openManifest(layout, {
    runId: config.runId,
    config: config as unknown as Record<string, unknown>,
    models: { llm: services.llm?.id, embedder: services.embedder.id },
    seed: config.seed,
    localizer: config.localizer.name,
    instances: instances.map((i) => i.instance_id),
    settings,
    kind: 'pipeline',
    plan: runPlan(config, stages, options.leftOut),
  });
  const spend = await openSpendLedger(layout, config, services);
  if (stages.some((s) => s.name === STAGE.validate || s.name === STAGE.evaluate)) {
    // An invocation killed with -9 leaves its sandboxes (`sleep infinity`) running; they carry this run's id.
    try {
      const removed = await docker.sweep(layout.id);
      if (removed) log(`removed ${removed} container(s) left behind by an interrupted invocation of run ${layout.id}`);
    } catch {
      // Docker not reachable now: the Docker stages record that themselves
    }
  }
  if (config.localizer.name === 'explorer') {
    // the explorer's read-only workspaces (a container and a snapshot volume each) of a killed invocation
    try {
      const { sweepWorkspaceVolumes } = await import('../../docker/read-only-workspace.ts');
      const removed = (await docker.sweep(layout.id)) + (await sweepWorkspaceVolumes(layout.id));
      if (removed) log(`removed ${removed} sandbox container(s) and volume(s) left behind by an interrupted invocation of run ${layout.id}`);
    } catch {
      // Docker not reachable now: each instance records that itself
    }
  }
  log(
    `run ${config.runId}: ${instances.length} instances, localizer ${config.localizer.name}, model ${modelName}, stages ${stages.map((s) => s.name).join(' → ')}`,
  );
  const progress = createProgress({ concurrency: config.concurrency.instances });
  for (const stage of stages) progress.begin(stage.name, instances.length);
  // Ctrl-C: stop taking new work; stages in flight finish and are kept, nothing is recorded for the rest.
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    log('\ninterrupted: finishing the stages in flight (press Ctrl-C again to quit now); rerun the same command to resume');
  };
  process.on('SIGINT', onSigint);
  let results: InstancePipelineResult[] = [];
  try {
    // repository by repository (index caches are reused), each repository's memory released after its last instance
    const ordered = groupByRepo(instances);
    results = await runPipeline({
      layout,
      instances: ordered,
      onInstanceDone: releaseAfterLastInstance(ordered, (repo) => services.releaseRepo(repo)),
      stages,
      // the run's spend cap: no instance stage starts once it is reached (the one that reached it is kept)
      shouldStop: () => interrupted || spend.run.exhausted,
      spend,
      concurrency: config.concurrency.instances,
      retryErrors,
      onEvent: (e) => progress.event(e),
    });
  } finally {
    process.off('SIGINT', onSigint);
    progress.end();
    await spend.flush();
  }
  const failed = results.filter((r) => r.failedStage).length;
  const stageCounts = () =>
    Object.fromEntries(Object.entries(progress.counts()).map(([stage, c]) => [stage, { ok: c.done - c.failed, failed: c.failed, reused: c.skipped }]));
  const notDone = results.filter((r) => r.interrupted).length;
  const writeResult = (r: Omit<ShardRunResult, 'finishedAt' | 'task'>) =>
    writeJsonAtomic(layout.file('result.json'), { finishedAt: new Date().toISOString(), task: process.env.LOCFIX_TASK_ID, ...r } satisfies ShardRunResult);
  if (interrupted || notDone > 0) {
    await writeResult({ interrupted: true, budgetExhausted: !interrupted, failed, total: instances.length });
    await closeInvocation(layout, stageCounts());
    await services.close();
    const done = `${instances.length - notDone} of ${instances.length} instances done (${failed} with errors), ${notDone} not done`;
    if (!interrupted) {
      log(`run budget exhausted: ${spend.describeRun()}; ${done}. Raise --max-run-tokens / --max-run-dollars and rerun to resume`);
      return { runDir: layout.root, interrupted: true, budgetExhausted: true, failed, total: instances.length };
    }
    log(`interrupted: ${done}; rerun the same command to resume`);
    return { runDir: layout.root, interrupted: true, failed, total: instances.length };
  }
  const predictions = await writePredictions(layout, instances, modelName);
  if (stages.some((s) => s.name === STAGE.evaluate)) {
    const summary = await makeRunSummary(path.dirname(layout.root), layout.id, instances, predictions);
    await writeJsonAtomic(layout.file(`${modelName.replace(/[^\w.-]+/g, '_')}.${layout.id}.json`), summary);
    log(
      `evaluation: ${summary.resolved_instances} resolved, ${summary.unresolved_instances} unresolved, ${summary.empty_patch_instances} empty, ${summary.error_instances} errors of ${summary.total_instances}`,
    );
  }
  await writeJsonAtomic(layout.file('usage.json'), services.meter.toJSON());
  const analysis = await writeRunAnalysis(layout.root, { topFiles: config.topFiles, snapshot: (i) => services.snapshot(i.repo, i.base_commit) });
  await writeReports([analysis], layout.file('report'));
  await closeInvocation(layout, stageCounts());
  await services.close();
  // last: a cluster task is done when this says so (src/cluster/shard-driver.ts)
  await writeResult({ interrupted: false, failed, total: instances.length });
  const cats = analysis.report.failures.categories;
  log(
    `analysis: resolved ${cats.resolved.count}, empty ${cats['empty-patch'].count}, file ${cats.file.count}, function ${cats.function.count}, line ${cats.line.count}, patch generation ${cats['patch-generation'].count}, evaluation errors ${cats['evaluation-error'].count}`,
  );
  log(`report: ${layout.file('report', 'report.html')}`);
  return { runDir: layout.root, interrupted: false, failed, total: instances.length };
}

export function register(program: Command): void {
  const command = program
    .command('run')
    .description('a whole experiment: localization → repair → validation → selection → evaluation → analysis (resumable)')
    .option('--config <file>', 'JSON run configuration (see README); flags override it');
  for (const spec of RUN_FLAGS) {
    if (spec.repeat) command.option(spec.flag, spec.description, (v: string, acc: string[]) => [...acc, v], [] as string[]);
    else command.option(spec.flag, spec.description);
  }
  command
    .option('--retry-errors', 'rerun instance stages that recorded an error')
    .action(async (flags: Record<string, unknown> & { config?: string; retryErrors?: boolean }) => {
      const config = await loadRunConfig(flags.config, overridesFrom(flags));
      const result = await runExperiment(config, { retryErrors: flags.retryErrors });
      if (result.budgetExhausted) process.exitCode = 3;
      else if (result.incomplete) process.exitCode = 1;
      else if (result.interrupted) process.exitCode = 130;
      else if (result.total > 0 && result.failed === result.total) {
        process.stderr.write(
          `run: every instance (${result.total}) failed at some stage; each error is recorded in its stage artifact under ${result.runDir}\n`,
        );
        process.exitCode = 1;
      }
    });
}
