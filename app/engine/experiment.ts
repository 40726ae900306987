/**
 * The experiment engine: a whole SWE-bench experiment — file → function → line localization, repair, validation,
 * selection, evaluation — then the analysis and reports. Every stage's output per instance is an atomic file
 * under runs/<id>/, so an interrupted run (Ctrl-C, a crash, `kill -9`) resumes by running it again.
 * `locfix run` (app/commands/run.ts), the benchmarks and the tests call `runExperiment`.
 */
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import path from 'node:path';
import { artifactSettings, type RunConfig } from '../../src/config.ts';
import { loadSelection, selectionOfConfig } from './selection.ts';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { Services } from '../services.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { openManifest } from '../../src/run/manifest.ts';
import { resolveRun, type ResolvedRun } from './resolved-run.ts';
import { assembleStages, runPlan } from './stages.ts';
import { finishInterrupted, finishRun, refuseChangedSettings, runStages, stopOnFullDisk, stopOnLostLock, sweepLeftovers } from './run-steps.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { SpendLedger, type SpendCaps } from '../../src/run/spend-ledger.ts';
import { STAGE } from '../../src/run/stage.ts';
import { diskFullMessage, isDiskFull } from '../../src/util/disk-full.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { writeRunInstances } from '../../results/run-analysis.ts';
import { runOnCluster } from './cluster-run.ts';
import { checkImagesAtStart } from './image-check.ts';
import type { ExperimentResult } from '../../src/run/run-result.ts';

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
  const instances = await loadSelection(selectionOfConfig(config, cacheDir), 'run');
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
  services.checkModel();
  const modelName = services.llm?.id ?? 'locfix';
  const settings = artifactSettings(config);
  await refuseChangedSettings(layout, config.runId, settings);
  const { stages, docker, files } = assembleStages(config, services, layout, run);
  // what would fail every instance alike stops the run here, before anything is recorded
  const modelStages = stages
    .filter((s) => s.usesModel !== false && (s.name === STAGE.functions || s.name === STAGE.lines || s.name === STAGE.repair))
    .map((s) => s.name);
  const check = (async () => {
    await services.checkConfiguration({
      repos: instances.map((i) => i.repo),
      needsModel: modelStages.length ? `${modelStages.join(', ')} (stop earlier with --stop-after localize-files)` : undefined,
    });
    files.assertReady();
    if (stages.some((s) => s.name === STAGE.validate || s.name === STAGE.evaluate)) {
      const unavailable = await checkImagesAtStart(docker, instances);
      if (unavailable.size)
        log(
          `warning: no image can be had here for ${unavailable.size} of ${instances.length} instances; they will not be reached (${[...new Set(unavailable.values())][0]})`,
        );
    }
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
    // an oracle rung is labelled by what it is, whatever localizer the configuration names
    localizer: config.oracleFrom ? `oracle-${config.oracleFrom}` : config.localizer.name,
    instances: instances.map((i) => i.instance_id),
    settings,
    kind: 'pipeline',
    plan: runPlan(config, stages, options.leftOut),
  });
  const spend = await openSpendLedger(layout, config, services);
  if (stages.some((s) => s.name === STAGE.validate || s.name === STAGE.evaluate) || files.workspaces) await sweepLeftovers(docker, layout, log);
  log(
    `run ${config.runId}: ${instances.length} instances, localizer ${config.oracleFrom ? `oracle down to ${config.oracleFrom} level (an upper bound)` : config.localizer.name}, model ${modelName}, stages ${stages.map((s) => s.name).join(' → ')}`,
  );
  const ran = await runStages({ config, layout, services, instances, stages, spend, retryErrors: options.retryErrors, log });
  // what was spent is recorded however the pipeline ended; a full disk, met by a stage or by this write, stops
  // the run cleanly, with nothing recorded for what was not done
  const flushed = await spend.flush().then(
    () => undefined,
    (err: unknown) => err,
  );
  if (ran.failure) throw ran.failure;
  if (flushed && !isDiskFull(flushed)) throw flushed;
  const stoppedBy = ran.results.find((r) => r.stoppedBy)?.stoppedBy;
  if (stoppedBy?.reason === 'lock-lost') return stopOnLostLock(layout, services, stoppedBy.message, log);
  const diskFull = stoppedBy?.message ?? (flushed ? diskFullMessage(flushed) : undefined);
  if (diskFull) return stopOnFullDisk(layout, services, ran.results, instances.length, diskFull, log);
  const finishing = { config, layout, services, instances, ran, log };
  if (ran.interrupted || ran.results.some((r) => r.interrupted)) return finishInterrupted(finishing, spend);
  return finishRun(finishing, stages, modelName);
}
