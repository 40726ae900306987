/**
 * The steps of one `locfix run` invocation after its services are up (app/engine/experiment.ts runs them in
 * order): refuse a resume under other settings, sweep what killed invocations left, run the stages with Ctrl-C
 * finishing the work in flight, and record how it ended — finished (predictions, evaluation summary, analysis,
 * reports), interrupted or out of budget, or stopped by a full disk.
 */
import path from 'node:path';
import { artifactSettingsOfConfig, type RunConfig } from '../../src/config.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { closeInvocation, readManifest } from '../../src/run/manifest.ts';
import { createProgress } from '../../src/run/progress.ts';
import { groupByRepo, releaseAfterLastInstance } from '../../src/run/repo-release.ts';
import type { RunLayout } from '../../src/run/run-layout.ts';
import type { ExperimentResult, ShardRunResult } from '../../src/run/run-result.ts';
import type { SpendLedger } from '../../src/run/spend-ledger.ts';
import { type PipelineStage, STAGE } from '../../src/run/stage.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { settingsChanges } from '../../src/util/settings-diff.ts';
import { claimSignal, terminate } from '../../src/util/termination.ts';
import { accountLine, finishingAdvice } from '../../results/instance-account.ts';
import { writeReports } from '../../results/report-files.ts';
import { writeRunAnalysis } from '../../results/run-analysis.ts';
import { makeRunSummary, writeRunMetadata } from '../../validation/run-summary.ts';
import { gradingRulesOf } from '../../validation/grading-rules.ts';
import { type InstancePipelineResult, runPipeline } from './pipeline.ts';
import { writePredictions } from './predictions.ts';
import type { Services } from '../services.ts';

/** A resume must not reuse artifacts made under other settings: refuses, saying what changed. */
export async function refuseChangedSettings(layout: RunLayout, runId: string, settings: Record<string, unknown>): Promise<void> {
  const previous = await readManifest(layout);
  if (!previous) return;
  const recorded = previous.settings ?? artifactSettingsOfConfig(previous.config);
  const changes = recorded ? settingsChanges(recorded, settings) : [];
  if (changes.length) {
    throw new Error(
      `run ${runId} was made with other settings, so its artifacts do not fit these:\n  ${changes.join('\n  ')}\n` +
        `use a new --run-id for the new settings (or delete ${layout.root} to start over)`,
    );
  }
}

/** An invocation killed with -9 leaves its sandboxes (`sleep infinity`) and workspace snapshots; they carry this run's id. */
export async function sweepLeftovers(docker: ExecutionBackend, layout: RunLayout, log: (line: string) => void): Promise<void> {
  try {
    const removed = await docker.sweep(layout.id);
    if (removed) log(`removed ${removed} sandbox container(s) and volume(s) left behind by an interrupted invocation of run ${layout.id}`);
    const orphans = await docker.sweepOrphans();
    if (orphans) log(`removed ${orphans} container(s) and volume(s) left behind by locfix processes that are gone`);
  } catch {
    // Docker not reachable now: the stages that need it record that themselves
  }
}

export interface StagesRan {
  results: InstancePipelineResult[];
  failure?: unknown;
  /** Ctrl-C was pressed */
  interrupted: boolean;
  /** ok / failed / reused per stage, for the invocation's record */
  stageCounts(): Record<string, { ok: number; failed: number; reused: number }>;
}

/** The pipeline over the instances, repository by repository; Ctrl-C stops taking new work, and a second Ctrl-C quits. */
export async function runStages(run: {
  config: RunConfig;
  layout: RunLayout;
  services: Services;
  instances: SweInstance[];
  stages: PipelineStage[];
  spend: SpendLedger;
  retryErrors?: RetryErrors;
  log: (line: string) => void;
}): Promise<StagesRan> {
  const { config, services, instances, stages, spend, log } = run;
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
      layout: run.layout,
      instances: ordered,
      onInstanceDone: releaseAfterLastInstance(ordered, (repo) => services.releaseRepo(repo)),
      stages,
      // the run's spend cap: no instance stage starts once it is reached (the one that reached it is kept)
      shouldStop: () => interrupted || spend.run.exhausted,
      spend,
      concurrency: config.concurrency.instances,
      retryErrors: run.retryErrors,
      onEvent: (e) => progress.event(e),
    });
  } catch (err) {
    failure = err;
  } finally {
    releaseSigint();
    progress.end();
  }
  const stageCounts = () =>
    Object.fromEntries(Object.entries(progress.counts()).map(([stage, c]) => [stage, { ok: c.done - c.failed, failed: c.failed, reused: c.skipped }]));
  return { results, ...(failure !== undefined ? { failure } : {}), interrupted, stageCounts };
}

interface Finishing {
  config: RunConfig;
  layout: RunLayout;
  services: Services;
  instances: SweInstance[];
  ran: StagesRan;
  log: (line: string) => void;
}

function writeResult(layout: RunLayout, r: Omit<ShardRunResult, 'finishedAt' | 'task'>): Promise<void> {
  return writeJsonAtomic(layout.file('result.json'), { finishedAt: new Date().toISOString(), task: process.env.LOCFIX_TASK_ID, ...r } satisfies ShardRunResult);
}

/** Stopped by Ctrl-C or the run's spend cap: what is done is kept, and rerunning resumes. */
export async function finishInterrupted({ layout, services, instances, ran, log }: Finishing, spend: SpendLedger): Promise<ExperimentResult> {
  const failed = ran.results.filter((r) => r.failedStage).length;
  const notDone = ran.results.filter((r) => r.interrupted).length;
  const total = instances.length;
  await writeResult(layout, { interrupted: true, budgetExhausted: !ran.interrupted, failed, total });
  await closeInvocation(layout, ran.stageCounts());
  await services.close();
  const done = `${total - notDone} of ${total} instances done (${failed} with errors), ${notDone} not done`;
  if (!ran.interrupted) {
    log(`run budget exhausted: ${spend.describeRun()}; ${done}. Raise --max-run-tokens / --max-run-dollars and rerun to resume`);
    return { runDir: layout.root, interrupted: true, budgetExhausted: true, failed, total };
  }
  log(`interrupted: ${done}; rerun the same command to resume`);
  return { runDir: layout.root, interrupted: true, failed, total };
}

/** Every instance done: predictions, the evaluation's run summary, usage, the analysis and reports, then result.json. */
export async function finishRun(
  { config, layout, services, instances, ran, log }: Finishing,
  stages: PipelineStage[],
  modelName: string,
): Promise<ExperimentResult> {
  const failed = ran.results.filter((r) => r.failedStage).length;
  const predictions = await writePredictions(layout, instances, modelName);
  if (stages.some((s) => s.name === STAGE.evaluate)) {
    const summary = await makeRunSummary(path.dirname(layout.root), layout.id, instances, predictions);
    await writeRunMetadata(path.dirname(layout.root), layout.id, config.dataset, gradingRulesOf(config.evaluation));
    await writeJsonAtomic(layout.file(`${modelName.replace(/[^\w.-]+/g, '_')}.${layout.id}.json`), summary);
    log(
      // every instance is in the line: those with no prediction (not selected yet, stopped) are said too
      `evaluation: ${summary.resolved_instances} resolved, ${summary.unresolved_instances} unresolved, ${summary.empty_patch_instances} empty, ${summary.error_instances} errors, ${summary.incomplete_ids.length} not evaluated (no patch selected) of ${summary.total_instances}`,
    );
  }
  await writeJsonAtomic(layout.file('usage.json'), services.meter.toJSON());
  const analysis = await writeRunAnalysis(layout.root, { topFiles: config.topFiles, snapshot: (i) => services.snapshot(i.repo, i.base_commit) });
  await writeReports([analysis], layout.file('report'));
  await closeInvocation(layout, ran.stageCounts());
  await services.close();
  // last: a cluster task is done when this says so (app/cluster/shard-driver.ts)
  await writeResult(layout, { interrupted: false, failed, total: instances.length });
  const failures = analysis.report.failures;
  log(`analysis: ${accountLine(failures)}`);
  log(`report: ${layout.file('report', 'report.html')}`);
  const finish = finishingAdvice(failures);
  return {
    runDir: layout.root,
    interrupted: false,
    failed,
    total: instances.length,
    ...(finish ? { unfinished: { instances: failures.unfinished.length, finish } } : {}),
  };
}

/** The run stops at a full disk: what can still be recorded is, and the message says how to resume. */
/** The run's lock was lost: another process may own the folder now, so nothing more is written there. */
export async function stopOnLostLock(layout: RunLayout, services: Services, message: string, log: (line: string) => void): Promise<ExperimentResult> {
  await services.close();
  log(`run ${layout.id} stopped: ${message}`);
  return { runDir: layout.root, interrupted: true, lockLost: true, failed: 0, total: 0 };
}

export async function stopOnFullDisk(
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
