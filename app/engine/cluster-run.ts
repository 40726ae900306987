/**
 * `locfix run --scheduler slurm`: the experiment as shards on the cluster (app/cluster/shard-driver.ts), each
 * task running this same configuration with `--shard i/n` on its node, then one merged run folder with its
 * analysis and report, as `locfix run` makes in one piece.
 */
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import path from 'node:path';
import type { RunConfig } from '../../src/config.ts';
import { runShards, shardRunId, type ShardDriverResult } from '../cluster/shard-driver.ts';
import type { ExperimentResult, ShardRunResult } from '../../src/run/run-result.ts';
import { SlurmScheduler } from '../cluster/slurm.ts';
import type { ShardScheduler } from '../cluster/types.ts';
import { pathExists, readJsonIfExists } from '../../src/util/fsx.ts';
import { claimSignal } from '../../src/util/termination.ts';
import { loadSelection, selectionOfConfig } from './selection.ts';
import { mergeAndReport } from './merge.ts';

const LOCFIX_BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');

function schedulerFor(name: RunConfig['cluster']['scheduler']): ShardScheduler {
  if (name === 'slurm') return new SlurmScheduler();
  throw new Error(`no cluster scheduler "${name}"`);
}

/**
 * What every task runs: this configuration with the cluster off and absolute paths (tasks start in the same
 * folder, but a path is clearer in the task's log). A run spend cap is split evenly over the shards, since
 * shards do not see each other's spending; an instance cap stays as it is.
 */
export async function taskConfig(config: RunConfig, cacheDir: string, n: number): Promise<Record<string, unknown>> {
  const dataset = (await pathExists(config.dataset)) ? path.resolve(config.dataset) : config.dataset;
  const { runTokens, runDollars } = config.budget;
  return {
    ...config,
    dataset,
    cacheDir,
    ...(config.mirrorsDir ? { mirrorsDir: path.resolve(config.mirrorsDir) } : {}),
    runsDir: path.resolve(config.runsDir),
    shard: undefined,
    cluster: { ...config.cluster, scheduler: 'none', shards: n },
    budget: {
      ...config.budget,
      ...(runTokens !== undefined ? { runTokens: Math.max(1, Math.floor(runTokens / n)) } : {}),
      ...(runDollars !== undefined ? { runDollars: runDollars / n } : {}),
    },
  };
}

export async function runOnCluster(
  config: RunConfig,
  cacheDir: string,
  options: { retryErrors?: RetryErrors; log: (line: string) => void },
): Promise<ExperimentResult & { cluster: ShardDriverResult }> {
  const { log } = options;
  const cluster = config.cluster;
  // the selection is loaded here once, so an empty one fails before anything is submitted, and no shard is
  // empty (a task with no instance would fail as "no instance matches" on every attempt)
  const selected = await loadSelection(selectionOfConfig(config, cacheDir), 'run');
  const shards = Math.min(cluster.shards, selected.length);
  if (shards < cluster.shards) log(`${selected.length} instances: ${shards} shards instead of ${cluster.shards}, so that none is empty`);
  let onSigint: (() => void) | undefined;
  const stopSignal = new Promise<void>((resolve) => {
    onSigint = () => {
      log('\ninterrupted: cancelling the submitted jobs; rerun the same command to resume');
      resolve();
    };
  });
  const releaseSigint = claimSignal('SIGINT', onSigint!);
  let result: ShardDriverResult;
  try {
    result = await runShards({
      scheduler: schedulerFor(cluster.scheduler),
      runsDir: config.runsDir,
      runId: config.runId,
      shards,
      resources: {
        partition: cluster.partition,
        timeLimit: cluster.timeLimit,
        cpusPerTask: cluster.cpusPerTask,
        memory: cluster.memory,
        maxRunning: cluster.maxRunning,
        extraArgs: cluster.sbatchArgs,
      },
      maxAttempts: cluster.maxAttempts,
      pollMs: cluster.pollSeconds * 1000,
      taskConfig: await taskConfig(config, cacheDir, shards),
      locfixCommand: [process.execPath, LOCFIX_BIN],
      cwd: process.cwd(),
      retryErrors: options.retryErrors,
      merge: (out, shardDirs) => mergeAndReport(out, shardDirs, log),
      log,
      stopSignal,
    });
  } finally {
    releaseSigint();
  }
  const bad = result.shards.filter((s) => s.status !== 'done');
  for (const s of bad) log(`shard ${s.shard}/${shards}: ${s.status} after ${s.attempts} submission(s)${s.detail ? `: ${s.detail}` : ''}`);
  if (bad.length) log(`${bad.length} of ${shards} shards not done, so nothing was merged; rerun the same command to resume them`);
  else log(`report: ${path.join(result.runDir, 'report', 'report.html')}`);
  const { failed, total } = await shardTotals(result);
  return {
    runDir: result.runDir,
    interrupted: result.interrupted,
    budgetExhausted: bad.some((s) => s.status === 'budget'),
    // shards given up after their attempts: the run is not complete, and rerunning resumes them
    incomplete: !result.merged && !result.interrupted,
    failed,
    total,
    cluster: result,
  };
}

async function shardTotals(result: ShardDriverResult): Promise<{ failed: number; total: number }> {
  let failed = 0;
  let total = 0;
  for (const s of result.shards) {
    const file = path.join(result.stateDir, 'shards', shardRunId(path.basename(result.runDir), s.shard, result.shards.length), 'result.json');
    const r = await readJsonIfExists<ShardRunResult>(file).catch(() => undefined);
    failed += r?.failed ?? 0;
    total += r?.total ?? 0;
  }
  return { failed, total };
}
