/**
 * `locfix eval-loc RUN [--stage retrieve] [--json]`: file-level Top-k (Hit@k), Acc@k (every gold file in the
 * first k) and MRR of a run.
 *
 * The denominator is every instance the run's manifest selected; an instance whose artifact is missing
 * (never finished) or recorded an error counts as a miss.
 */
import type { Command } from 'commander';
import { readJsonIfExists } from '../util/fsx.ts';
import { rankedPathsOf } from '../artifacts/localization.ts';
import { RunLayout, type StageSelection } from '../run/run-layout.ts';
import { defaultCacheDir, loadDataset } from '../dataset/load.ts';
import type { SweInstance } from '../dataset/schema.ts';
import { RepoStore } from '../repo/store.ts';
import type { RepoSnapshot } from '../repo/types.ts';
import { modifiedExistingFiles } from '../patch.ts';
import { extractDefinitions } from '../parsing/definitions.ts';
import { goldElements } from '../../results/failure-analysis.ts';
import { functionOutcome, predictedElementsOf } from '../../results/function-metrics.ts';
import { computeLocMetrics, formatLocMetricsTable, metricsSummary, type LocMetricsDetail } from '../../results/loc-metrics.ts';
import { computeRunnerMetrics, formatRunnerMetrics, runnerRow, type RunnerMetrics, type RunnerRow } from '../../results/runner-metrics.ts';

export async function evaluateRun(runDir: string, stage = 'retrieve'): Promise<LocMetricsDetail & { missingGold: string[]; runner: RunnerMetrics }> {
  const where = new RunLayout(runDir).selectionPath(stage);
  const manifest = await readJsonIfExists<StageSelection>(where);
  if (!manifest) throw new Error(`${where} not found: is ${runDir} a run with a "${stage}" stage?`);
  if (!Array.isArray(manifest.instances)) throw new Error(`${where}: "instances" must be a list`);
  const layout = new RunLayout(runDir);
  const missingGold = manifest.instances.filter((id) => !manifest.gold?.[id]?.length);
  const outcomes = [];
  const rows: RunnerRow[] = [];
  for (const id of manifest.instances) {
    let artifact: unknown;
    try {
      artifact = await readJsonIfExists(layout.artifactPath(stage, id));
    } catch (err) {
      throw new Error(`${layout.artifactPath(stage, id)}: unreadable artifact (${(err as Error).message})`);
    }
    rows.push(runnerRow(id, manifest.gold?.[id] ?? [], artifact));
    if (!manifest.gold?.[id]?.length) continue; // nothing to score against
    outcomes.push({ instanceId: id, gold: manifest.gold[id], ranking: rankedPathsOf(artifact) });
  }
  const handoff = (manifest.settings as { topFiles?: unknown } | undefined)?.topFiles;
  return { ...computeLocMetrics(outcomes), missingGold, runner: computeRunnerMetrics(rows, typeof handoff === 'number' ? handoff : 3) };
}

/**
 * Function-level Top-k/MRR of a run's stage (`functions` of BLAgent's function-level variant, or
 * `codeElements` of localize-functions). Gold elements need the base files, read through `snapshotOf`.
 */
export async function evaluateRunFunctions(
  runDir: string,
  stage: string,
  instances: readonly SweInstance[],
  snapshotOf: (instance: SweInstance) => Promise<RepoSnapshot>,
): Promise<LocMetricsDetail & { missingGold: string[] }> {
  const layout = new RunLayout(runDir);
  const manifest = await readJsonIfExists<StageSelection>(layout.selectionPath(stage));
  const selected = manifest ? new Set(manifest.instances) : undefined;
  const outcomes = [];
  const missingGold: string[] = [];
  for (const instance of instances) {
    if (selected && !selected.has(instance.instance_id)) continue;
    const files = modifiedExistingFiles(instance.patch);
    const sources = files.length ? await (await snapshotOf(instance)).readFiles(files) : new Map<string, string>();
    const gold = goldElements(instance.patch, (p) => (sources.has(p) ? extractDefinitions(p, sources.get(p)!) : []));
    const artifact = await readJsonIfExists<{ status?: string; output?: unknown }>(layout.artifactPath(stage, instance.instance_id));
    const outcome = functionOutcome(instance.instance_id, artifact?.status === 'ok' ? predictedElementsOf(artifact.output) : undefined, gold);
    if (outcome) outcomes.push(outcome);
    else missingGold.push(instance.instance_id);
  }
  return { ...computeLocMetrics(outcomes), missingGold };
}

export function register(program: Command): void {
  program
    .command('eval-loc')
    .description('file- or function-level localization metrics (Top-1/3/5/10/15, MRR) of a run')
    .argument('<run>', 'run directory, e.g. runs/my-run')
    .option('--stage <name>', 'stage whose artifacts to score', 'retrieve')
    .option('--json', 'print one JSON object {"n","top1".."top15","mrr","acc1".."acc15"} (top = some gold file in the first k, acc = every gold file)')
    .option('--level <level>', 'file | function (function level reads the base files: pass --dataset and --mirrors)', 'file')
    .option('--dataset <source>', "the run's dataset (function level: gold patches)")
    .option('--mirrors <dir>', 'bare mirrors laid out as owner+name/repo (function level)')
    .option('--cache-dir <dir>', 'repository and dataset cache', defaultCacheDir())
    .action(async (run: string, opts: { stage: string; json?: boolean; level: string; dataset?: string; mirrors?: string; cacheDir: string }) => {
      let m: LocMetricsDetail & { missingGold: string[]; runner?: RunnerMetrics };
      if (opts.level === 'function') {
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
        process.stdout.write(JSON.stringify({ ...metricsSummary(m), ...('runner' in m ? { runner: m.runner } : {}) }) + '\n');
        return;
      }
      process.stdout.write(formatLocMetricsTable([{ label: `${run} (${opts.stage})`, metrics: m }]) + '\n');
      const notes = [`${m.failed} of ${m.n} instances without a ranking (failed or unfinished) count as misses`];
      if (m.missingGold.length)
        notes.push(
          `${m.missingGold.length} selected instances have no ${opts.level === 'function' ? 'function-level gold edit' : 'gold patch'} and are left out`,
        );
      process.stdout.write(notes.join('\n') + '\n');
      if (m.runner) process.stdout.write(`\n${formatRunnerMetrics(`${run} (${opts.stage})`, m.runner)}\n`);
    });
}
