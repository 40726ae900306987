/**
 * The experiment engine: a whole SWE-bench experiment — file → function → line localization, repair, validation,
 * selection, evaluation — then the analysis and reports. Every stage's output per instance is an atomic file
 * under runs/<id>/, so an interrupted run (Ctrl-C, a crash, `kill -9`) resumes by running it again.
 * `locfix run` (app/commands/run.ts), the benchmarks and the tests call `runExperiment`.
 */
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import path from 'node:path';
import { artifactSettings, artifactSettingsOfConfig, type RunConfig } from '../../src/config.ts';
import { settingsChanges } from '../../src/util/settings-diff.ts';
import { loadSelection, runSelectionFlags } from './selection.ts';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { Services } from '../services.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { closeInvocation, openManifest, readManifest } from '../../src/run/manifest.ts';
import { runPipeline, type InstancePipelineResult } from './pipeline.ts';
import { groupByRepo, releaseAfterLastInstance } from '../../src/run/repo-release.ts';
import { createProgress } from '../../src/run/progress.ts';
import { resolveRun, type ResolvedRun } from './resolved-run.ts';
import { assembleStages, runPlan } from './stages.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { SpendLedger, type SpendCaps } from '../../src/run/spend-ledger.ts';
import { STAGE } from '../../src/run/stage.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { diskFullMessage, isDiskFull } from '../../src/util/disk-full.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { claimSignal, terminate } from '../../src/util/termination.ts';
import { writeRunAnalysis, writeRunInstances } from '../../results/run-analysis.ts';
import { writeReports } from '../../results/report-files.ts';
import { writePredictions } from './predictions.ts';
import { runOnCluster } from './cluster-run.ts';
import type { ExperimentResult, ShardRunResult } from '../../src/run/run-result.ts';
import { makeRunSummary, writeRunMetadata } from '../../validation/run-summary.ts';
import { accountLine } from '../../results/instance-account.ts';

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
  retryErrors?: RetryErrors;
  log?: (line: string) => void;
  /** why stages are left out, when the caller knows (the demo: no Docker daemon); recorded in the manifest's plan */
  leftOut?: Record<string, string>;
}

export async function runExperiment(config: RunConfig, options: ExperimentOptions = {}): Promise<ExperimentResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  // a misspelled localizer, option or stage option fails here, naming the key, before any folder, instance or service
  const run = await resolveRun(config);
  const { localizer } = run;
  config.localizer.options = localizer.options;
  const cacheDir = path.resolve(config.cacheDir ?? defaultCacheDir());
  if (config.shard || config.cluster.scheduler !== 'none') {
    if (localizer.shardCaveat) log(`warning: ${localizer.shardCaveat}. Run it unsharded for the rule's own results.`);
  }
  if (config.cluster.scheduler !== 'none' && !config.shard) return runOnCluster(config, cacheDir, { retryErrors: options.retryErrors, log });
  const layout = new RunLayout(path.resolve(config.runsDir, config.runId));
  // one process per run folder: a second one refuses, naming the holder, instead of interleaving artifacts
  const lock = acquireRunLock(layout.root);
  try {
    return await runExperimentLocked(config, run, layout, cacheDir, options, log);
  } finally {
    lock.release();
  }
}

async function runExperimentLocked(
  config: RunConfig,
  run: ResolvedRun,
  layout: RunLayout,
  cacheDir: string,
  options: ExperimentOptions,
  log: (line: string) => void,
): Promise<ExperimentResult> {
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
  // however the run ends, the services' servers and child processes end with it: left open, they kept a
  // process whose run had failed (a full disk) alive forever
  try {
    return await runWithServices(config, run, layout, services, instances, options, log);
  } catch (err) {
    await services.close();
    throw err;
  }
}

async function runWithServices(
  config: RunConfig,
  run: ResolvedRun,
  layout: RunLayout,
  services: Services,
  instances: SweInstance[],
  options: ExperimentOptions,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const retryErrors = options.retryErrors;
  services.checkModel();
  const modelName = services.llm?.id ?? 'locfix';
  // a resume must not reuse artifacts made under other settings: refuse, saying what changed
  const previous = await readManifest(layout);
  const settings = artifactSettings(config);
  if (previous) {
    const recorded = previous.settings ?? artifactSettingsOfConfig(previous.config);
    const changes = recorded ? settingsChanges(recorded, settings) : [];
    if (changes.length) {
      throw new Error(
        `run ${config.runId} was made with other settings, so its artifacts do not fit these:\n  ${changes.join('\n  ')}\n` +
          `use a new --run-id for the new settings (or delete ${layout.root} to start over)`,
      );
    }
  }
  const { stages, docker, files } = assembleStages(config, services, layout, run);
  // what would fail every instance alike stops the run here, before anything is recorded
  const modelStages = stages.filter((s) => s.name === STAGE.functions || s.name === STAGE.lines || s.name === STAGE.repair).map((s) => s.name);
  const check = (async () => {
    await services.checkConfiguration({
      repos: instances.map((i) => i.repo),
      needsModel: modelStages.length ? `${modelStages.join(', ')} (stop earlier with --stop-after localize-files)` : undefined,
    });
    files.assertReady();
  })();
  await check.catch(async (err) => {
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
  if (stages.some((s) => s.name === STAGE.validate || s.name === STAGE.evaluate) || files.workspaces) {
    // An invocation killed with -9 leaves its sandboxes (`sleep infinity`) and workspace snapshots; they carry this run's id.
    try {
      const removed = await docker.sweep(layout.id);
      if (removed) log(`removed ${removed} sandbox container(s) and volume(s) left behind by an interrupted invocation of run ${layout.id}`);
      const orphans = await docker.sweepOrphans();
      if (orphans) log(`removed ${orphans} container(s) and volume(s) left behind by locfix processes that are gone`);
    } catch {
      // Docker not reachable now: the stages that need it record that themselves
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
    if (interrupted) return terminate('SIGINT'); // removes this process's containers, then ends it
    interrupted = true;
    log('\ninterrupted: finishing the stages in flight (press Ctrl-C again to quit now); rerun the same command to resume');
  };
  const releaseSigint = claimSignal('SIGINT', onSigint);
  let results: InstancePipelineResult[] = [];
  let failure: unknown;
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
  } catch (err) {
    failure = err;
  } finally {
    releaseSigint();
    progress.end();
  }
  // what was spent is recorded however the pipeline ended; a full disk, met by a stage or by this write, stops
  // the run cleanly, with nothing recorded for what was not done
  const flushed = await spend.flush().then(
    () => undefined,
    (err: unknown) => err,
  );
  if (failure) throw failure;
  if (flushed && !isDiskFull(flushed)) throw flushed;
  const diskFull = results.find((r) => r.stoppedBy)?.stoppedBy?.message ?? (flushed ? diskFullMessage(flushed) : undefined);
  if (diskFull) return stopOnFullDisk(layout, services, results, instances.length, diskFull, log);
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
    await writeRunMetadata(path.dirname(layout.root), layout.id, config.dataset, {
      harness: config.evaluation.harness,
      unforgeable: config.evaluation.unforgeable,
    });
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
  // last: a cluster task is done when this says so (app/cluster/shard-driver.ts)
  await writeResult({ interrupted: false, failed, total: instances.length });
  log(`analysis: ${accountLine(analysis.report.failures)}`);
  log(`report: ${layout.file('report', 'report.html')}`);
  return { runDir: layout.root, interrupted: false, failed, total: instances.length };
}

/** The run stops at a full disk: what can still be recorded is, and the message says how to resume. */
async function stopOnFullDisk(
  layout: RunLayout,
  services: Services,
  results: InstancePipelineResult[],
  total: number,
  message: string,
  log: (line: string) => void,
): Promise<ExperimentResult> {
  const failed = results.filter((r) => r.failedStage).length;
  const notDone = results.filter((r) => r.interrupted).length;
  // best effort: with no space these fail too, and the next invocation redoes them
  await writeJsonAtomic(layout.file('result.json'), {
    finishedAt: new Date().toISOString(),
    task: process.env.LOCFIX_TASK_ID,
    interrupted: true,
    failed,
    total,
  } satisfies ShardRunResult).catch(() => undefined);
  await closeInvocation(layout, {}).catch(() => undefined);
  await services.close();
  log(`run ${layout.id} stopped: ${message}; ${total - notDone} of ${total} instances done (${failed} with errors), ${notDone} not done`);
  return { runDir: layout.root, interrupted: true, diskFull: true, failed, total };
}
