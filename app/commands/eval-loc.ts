/**
 * `locfix eval-loc RUN [--stage retrieve] [--json]`: file-level Top-k (Hit@k), Acc@k (every gold file in the
 * first k) and MRR of a run.
 *
 * The denominator is every instance the run selected with a gold file, as for the resolved rate: one whose artifact
 * is missing (never finished), recorded an error, or was stopped outside the method counts as a miss; the rates over
 * the instances that reached the stage stand beside, labelled.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import { defaultCacheDir, loadDataset } from '../../src/dataset/load.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { formatLocMetricsTable, metricsSummary, type LocMetrics } from '../../results/loc-metrics.ts';
import { formatRunnerMetrics, type RunnerMetrics } from '../../results/runner-metrics.ts';
import { evaluateRun, evaluateRunFunctions, type RunLocEvaluation } from '../../results/run-loc-evaluation.ts';

export function register(program: Command): void {
  const command = program
    .command('eval-loc')
    .description('file- or function-level localization metrics (Top-1/3/5/10/15, MRR) of a run')
    .argument('<run>', 'run directory, e.g. runs/my-run');
  useFlags(command, ['stage', 'json', 'level', 'dataset', 'mirrors', 'cacheDir'], {
    stage: {
      description:
        "stage whose artifacts to score (default: the run's file localization, localize-files or retrieve; localize-functions with --level function)",
    },
    json: { description: 'print one JSON object {"n","top1".."top15","mrr","acc1".."acc15"} (top = some gold file in the first k, acc = every gold file)' },
    level: { description: 'file | function (function level reads the base files: pass --dataset and --mirrors)', default: 'file' },
    dataset: { description: "the run's dataset (function level: gold patches)" },
    mirrors: { description: 'bare mirrors laid out as owner+name/repo (function level)' },
    cacheDir: { description: 'repository and dataset cache', default: defaultCacheDir() },
  }).action(async (run: string, opts: { stage?: string; json?: boolean; level: string; dataset?: string; mirrors?: string; cacheDir: string }) => {
    let m: Omit<RunLocEvaluation, 'stage' | 'runner'> & { runner?: RunnerMetrics; stage?: string };
    if (opts.level === 'function') {
      opts.stage ??= 'localize-functions';
      if (!opts.dataset) throw new Error('--level function needs --dataset (the gold patches) and usually --mirrors');
      const { instances } = await loadDataset(opts.dataset, { cacheDir: opts.cacheDir });
      const store = new RepoStore({ cacheDir: opts.cacheDir, mirrorsDir: opts.mirrors });
      try {
        m = await evaluateRunFunctions(run, opts.stage, instances, (i) => store.snapshot(i.repo, i.base_commit));
      } finally {
        await store.close();
      }
    } else if (opts.level === 'file') m = await evaluateRun(run, opts.stage);
    else throw new Error(`--level must be file or function, got "${opts.level}"`);
    if (opts.json) {
      // no rate over nothing: with n = 0 the rates are null, never 0
      const rates = (x: LocMetrics) =>
        x.n > 0 ? metricsSummary(x) : Object.fromEntries(Object.entries(metricsSummary(x)).map(([k, v]) => [k, k === 'n' ? v : null]));
      process.stdout.write(
        JSON.stringify({
          ...rates(m),
          notAttempted: m.notAttempted,
          notReached: m.notReached,
          reached: rates(m.reached),
          ...('runner' in m ? { runner: m.runner } : {}),
        }) + '\n',
      );
      return;
    }
    const stage = m.stage ?? opts.stage;
    process.stdout.write(
      formatLocMetricsTable([
        { label: `${run} (${stage})`, metrics: m },
        { label: '  over the instances that reached it', metrics: m.reached },
      ]) + '\n',
    );
    const methodFailed = m.failed - (m.n - m.reached.n);
    const notes = [
      `n = ${m.n}: every selected instance with a gold ${opts.level === 'function' ? 'function' : 'file'} (the resolved rate's denominator); ${methodFailed} failed by the method and ${m.n - m.reached.n} not reached count as misses`,
    ];
    if (m.notAttempted.length) notes.push(`${m.notAttempted.length} selected instances never reached this stage: misses until the run finishes them`);
    if (m.notReached.length) {
      const byCause = new Map<string, number>();
      for (const r of m.notReached) byCause.set(r.cause, (byCause.get(r.cause) ?? 0) + 1);
      notes.push(
        `${m.notReached.length} selected instances were stopped by a failure that is not the method's (${[...byCause].map(([c, n]) => `${c} ${n}`).join('; ')}): misses until rerun with --retry-errors`,
      );
    }
    if (m.missingGold.length)
      notes.push(
        `${m.missingGold.length} selected instances have no ${opts.level === 'function' ? 'function-level gold edit' : 'gold patch'} and are left out`,
      );
    process.stdout.write(notes.join('\n') + '\n');
    if (m.runner) process.stdout.write(`\n${formatRunnerMetrics(`${run} (${stage})`, m.runner)}\n`);
  });
}
