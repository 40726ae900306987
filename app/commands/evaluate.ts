/**
 * `locfix evaluate`: SWE-bench evaluation of predictions (or the gold patches) in Docker sandboxes.
 * Resumes by existing report.json files; writes runs/<id>/evaluation/summary.json.
 */
import type { Command } from 'commander';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { recordEvaluationRun } from '../engine/evaluation-folder.ts';
import path from 'node:path';
import { defaultCacheDir, loadDataset } from '../../src/dataset/load.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { parseRunConfig, type RunConfig } from '../../src/config.ts';
import { runBackend } from '../engine/backends.ts';
import { EVALUATE_FLAGS, overridesFrom } from './run-flags.ts';
import { useFlags } from './flag-table.ts';
import { optionName } from './flag-values.ts';
import { compareReleases, describeHarnessDiff, HARNESS_DIFF_FILE } from '../../validation/harness-diff.ts';
import { runEvaluation } from '../../validation/run-evaluation.ts';
import { gateRows } from '../engine/gate-run.ts';
import { writeRunMetadata } from '../../validation/run-summary.ts';
import { gradingRulesOf } from '../../validation/grading-rules.ts';
import { loadPredictions } from '../../validation/predictions.ts';

interface EvaluateFlags extends Record<string, unknown> {
  dataset: string;
  predictions: string;
  runId: string;
  runsDir?: string;
  instances?: string[];
  taskDataset?: string;
  gate?: boolean;
}

/**
 * The evaluation's settings from the flags it shares with `locfix run` (EVALUATE_FLAGS): the same names, parsing
 * and config keys, checked by the run's configuration schema. Evaluation runs one instance per sandbox at once
 * unless --max-workers says otherwise, as the harness' default.
 */
export function evaluationConfig(flags: EvaluateFlags): RunConfig {
  const overrides = overridesFrom(flags, EVALUATE_FLAGS) as { concurrency?: object };
  return parseRunConfig({ ...overrides, concurrency: { sandboxes: 1, ...overrides.concurrency } });
}

/** The dataset's rows the flags select (--dataset, --task-dataset, --instances), and how the dataset was named. */
export async function selectedRows(opts: Pick<EvaluateFlags, 'dataset' | 'taskDataset' | 'instances'>): Promise<{ dataset: SweInstance[]; source: string }> {
  const source = opts.taskDataset ? `${opts.dataset}#${opts.taskDataset}` : opts.dataset;
  const loaded = await loadDataset(source);
  for (const error of loaded.errors) console.error(`dataset: ${error.message}`);
  let dataset = loaded.instances;
  if (opts.instances?.length) {
    const wanted = new Set(opts.instances);
    const missing = opts.instances.filter((id) => !dataset.some((i) => i.instance_id === id));
    if (missing.length) throw new Error(`instances not in the dataset: ${missing.join(', ')}`);
    dataset = dataset.filter((i) => wanted.has(i.instance_id));
  }
  return { dataset, source };
}

/** --instances: ids comma-separated as for every other command (repeatable). */
export const INSTANCES_FLAG = {
  description: 'only these instance ids, comma-separated as for every other command (repeatable)',
  parse: (value: string, previous: unknown) => [
    ...((previous as string[] | undefined) ?? []),
    ...value
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  ],
};

export function register(program: Command): void {
  const command = program
    .command('evaluate')
    .description('evaluate predictions the way the SWE-bench harness does, in network-less sandboxes (Docker, or bubblewrap with --backend bwrap)');
  useFlags(command, ['dataset', 'taskDataset', 'predictions', 'runId', 'instances'], {
    dataset: {
      required: true,
      description: 'SWE-bench instances: JSONL, JSON or parquet, a Hub name or alias (full, verified, multilingual, multimodal), or a task repository folder',
    },
    predictions: { required: true },
    runId: { required: true, description: 'run id: logs go to <runs-dir>/<id>/evaluation/' },
    instances: INSTANCES_FLAG,
  });
  useFlags(command, ['gate']);
  // the rest are `locfix run`'s own flags for the same config keys (app/commands/run-flags.ts)
  useFlags(
    command,
    EVALUATE_FLAGS.filter((f) => !['--dataset', '--run-id', '--instances'].includes(f.flag.split(' ')[0]!)).map((f) => optionName(f.flag)),
  );
  command.action(async (opts: EvaluateFlags) => {
    const config = evaluationConfig(opts);
    const { dataset, source } = await selectedRows(opts);
    let predictions = await loadPredictions(opts.predictions, dataset);
    if (opts.instances?.length) predictions = predictions.filter((p) => dataset.some((i) => i.instance_id === p.instance_id));
    const store = new RepoStore({
      cacheDir: config.cacheDir ?? defaultCacheDir(),
      mirrorsDir: config.mirrorsDir,
      allowClone: false,
    });
    // one engine (the harness' way), or a pool of engines placed by free capacity: the run's backends
    const backend = runBackend(config, store);
    const runsDir = config.runsDir;
    // one process per run folder: a second evaluation of this run refuses instead of racing the first
    const lock = acquireRunLock(path.join(runsDir, config.runId));
    try {
      if (opts.gate) await gateRows({ config, dataset, backend, runDir: path.join(runsDir, config.runId) });
      let done = 0;
      const total = predictions.filter((p) => p.model_patch).length;
      const { summary, summaryPath, outcomes } = await runEvaluation({
        runId: config.runId,
        runsDir,
        dataset,
        predictions,
        backend,
        timeoutMs: config.evaluation.timeoutSeconds * 1000,
        maxWorkers: config.concurrency.sandboxes,
        network: config.evaluation.network,
        grading: gradingRulesOf(config.evaluation),
        onSweep: (count) => console.log(`removed ${count} container(s) left behind by an interrupted evaluation of run ${config.runId}`),
        onSweepOrphans: (count) => console.log(`removed ${count} container(s) and volume(s) left behind by locfix processes that are gone`),
        onProgress: (o) => {
          done += 1;
          const state = o.completed
            ? o.resolved
              ? o.flagged
                ? 'resolved (flagged: see runner_audit in its report.json)'
                : 'resolved'
              : o.resolvedAsSubmitted
                ? 'unresolved (resolved only with its test machinery changes: see as_submitted in its report.json)'
                : 'unresolved'
            : `error: ${o.error}`;
          console.log(`[${done}/${total}] ${o.instanceId}: ${state}${o.reused ? ' (existing report)' : ''} ${(o.durationMs / 1000).toFixed(1)}s`);
        },
      });
      const grading = gradingRulesOf(config.evaluation);
      const flagged = outcomes.filter((o) => o.flagged).length;
      const byMachinery = outcomes.filter((o) => o.resolvedAsSubmitted !== undefined);
      await writeRunMetadata(runsDir, config.runId, source, grading);
      // the run-folder contract, so analyze / compare / report read this evaluation like any run
      await recordEvaluationRun(path.join(runsDir, config.runId), {
        dataset,
        datasetName: opts.dataset,
        predictions,
        outcomes,
        source: opts.predictions,
        network: config.evaluation.network,
        grading,
        repositories: { mirrorsDir: config.mirrorsDir, cacheDir: config.cacheDir ?? defaultCacheDir() },
      });
      console.log(
        `Total instances: ${summary.total_instances}\nInstances submitted: ${summary.submitted_instances}\n` +
          `Instances completed: ${summary.completed_instances}\nInstances incomplete: ${summary.incomplete_ids.length}\n` +
          `Instances resolved: ${summary.resolved_instances}\n` +
          (flagged ? `Instances resolved (flagged by the runner audit, kept apart): ${flagged}\n` : '') +
          (byMachinery.length
            ? `Instances whose verdict differs with their test machinery as submitted: ${byMachinery.length} (${byMachinery.map((o) => `${o.instanceId}: ${o.resolvedAsSubmitted ? 'resolved' : 'unresolved'} as submitted`).join(', ')})\n`
            : '') +
          `Instances unresolved: ${summary.unresolved_instances}\n` +
          `Instances with empty patches: ${summary.empty_patch_instances}\nInstances with errors: ${summary.error_instances}\n` +
          `Report written to ${summaryPath}`,
      );
      const compare = config.evaluation.compareHarness.filter((release) => release !== config.evaluation.harness);
      if (compare.length) {
        const diff = await compareReleases({
          runsDir,
          runId: config.runId,
          dataset: dataset.filter((instance) => predictions.some((p) => p.instance_id === instance.instance_id)),
          releases: [config.evaluation.harness, ...compare],
          unforgeable: config.evaluation.unforgeable,
        });
        console.log([...describeHarnessDiff(diff), `  written to ${path.join(path.dirname(summaryPath), HARNESS_DIFF_FILE)}`].join('\n'));
      }
    } finally {
      lock.release();
      await store.close();
    }
  });
}
