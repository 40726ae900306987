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
import { openRunFolder, type RunFolder } from '../../results/run-folder.ts';
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

export interface RunLocEvaluation extends LocMetricsDetail {
  /** the stage scored */
  stage: string;
  missingGold: string[];
  /** selected instances with no artifact in the stage (never attempted): out of every denominator, counted here */
  notAttempted: string[];
  runner: RunnerMetrics;
}

/** The stage to score: the one asked for, which the run must have, else the run's file localization. */
function stageToScore(folder: RunFolder, stage: string | undefined): string {
  if (stage) {
    if (!folder.stages.includes(stage)) throw new Error(`${folder.dir} has no "${stage}" stage; it has ${folder.stages.join(', ') || 'no stage'}`);
    return stage;
  }
  if (!folder.fileStage)
    throw new Error(`${folder.dir} has no file localization (localize-files or retrieve); it has ${folder.stages.join(', ') || 'no stage'}`);
  return folder.fileStage;
}

/**
 * File-level metrics of any run folder. Instances that reached the stage (an artifact, ok or error) are scored,
 * an error as a miss; instances never attempted are left out of every denominator and listed.
 */
export async function evaluateRun(runDir: string, stage?: string): Promise<RunLocEvaluation> {
  const folder = await openRunFolder(runDir);
  const scored = stageToScore(folder, stage);
  const selection = await readJsonIfExists<StageSelection>(folder.layout.selectionPath(scored));
  const wanted = selection ? new Set(selection.instances) : undefined;
  const instances = folder.instances.filter((i) => !wanted || wanted.has(i.id));
  const missingGold = instances.filter((i) => !i.goldFiles.length).map((i) => i.id);
  const outcomes = [];
  const rows: RunnerRow[] = [];
  const notAttempted: string[] = [];
  for (const { id, goldFiles } of instances) {
    let artifact: unknown;
    try {
      artifact = await readJsonIfExists(folder.layout.artifactPath(scored, id));
    } catch (err) {
      throw new Error(`${folder.layout.artifactPath(scored, id)}: unreadable artifact (${(err as Error).message})`);
    }
    rows.push(runnerRow(id, goldFiles, artifact));
    if (artifact === undefined) {
      notAttempted.push(id);
      continue;
    }
    if (!goldFiles.length) continue; // nothing to score against
    outcomes.push({ instanceId: id, gold: goldFiles, ranking: rankedPathsOf(artifact) });
  }
  return { ...computeLocMetrics(outcomes), stage: scored, missingGold, notAttempted, runner: computeRunnerMetrics(rows, folder.topFiles) };
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
  let withFunctions = 0;
  for (const instance of instances) {
    if (selected && !selected.has(instance.instance_id)) continue;
    const files = modifiedExistingFiles(instance.patch);
    const sources = files.length ? await (await snapshotOf(instance)).readFiles(files) : new Map<string, string>();
    const gold = goldElements(instance.patch, (p) => (sources.has(p) ? extractDefinitions(p, sources.get(p)!) : []));
    const artifact = await readJsonIfExists<{ status?: string; output?: unknown }>(layout.artifactPath(stage, instance.instance_id));
    const predicted = artifact?.status === 'ok' ? predictedElementsOf(artifact.output) : undefined;
    if (predicted !== undefined) withFunctions++;
    const outcome = functionOutcome(instance.instance_id, predicted, gold);
    if (outcome) outcomes.push(outcome);
    else missingGold.push(instance.instance_id);
  }
  if (withFunctions === 0) {
    throw new Error(
      `${runDir}: stage "${stage}" holds no function-level predictions (no artifact names functions); score localize-functions, or a localizer that names functions (BLAgent's function-level variant, LocAgent)`,
    );
  }
  return { ...computeLocMetrics(outcomes), missingGold };
}

export function register(program: Command): void {
  program
    .command('eval-loc')
    .description('file- or function-level localization metrics (Top-1/3/5/10/15, MRR) of a run')
    .argument('<run>', 'run directory, e.g. runs/my-run')
    .option(
      '--stage <name>',
      "stage whose artifacts to score (default: the run's file localization, localize-files or retrieve; localize-functions with --level function)",
    )
    .option('--json', 'print one JSON object {"n","top1".."top15","mrr","acc1".."acc15"} (top = some gold file in the first k, acc = every gold file)')
    .option('--level <level>', 'file | function (function level reads the base files: pass --dataset and --mirrors)', 'file')
    .option('--dataset <source>', "the run's dataset (function level: gold patches)")
    .option('--mirrors <dir>', 'bare mirrors laid out as owner+name/repo (function level)')
    .option('--cache-dir <dir>', 'repository and dataset cache', defaultCacheDir())
    .action(async (run: string, opts: { stage?: string; json?: boolean; level: string; dataset?: string; mirrors?: string; cacheDir: string }) => {
      let m: LocMetricsDetail & { missingGold: string[]; runner?: RunnerMetrics; notAttempted?: string[]; stage?: string };
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
        process.stdout.write(JSON.stringify({ ...metricsSummary(m), ...('runner' in m ? { runner: m.runner } : {}) }) + '\n');
        return;
      }
      const stage = m.stage ?? opts.stage;
      process.stdout.write(formatLocMetricsTable([{ label: `${run} (${stage})`, metrics: m }]) + '\n');
      const notes = [`n = ${m.n} scored; ${m.failed} of them without a ranking (the stage failed) count as misses`];
      if (m.notAttempted?.length) notes.push(`${m.notAttempted.length} selected instances never reached this stage and are in no denominator`);
      if (m.missingGold.length)
        notes.push(
          `${m.missingGold.length} selected instances have no ${opts.level === 'function' ? 'function-level gold edit' : 'gold patch'} and are left out`,
        );
      process.stdout.write(notes.join('\n') + '\n');
      if (m.runner) process.stdout.write(`\n${formatRunnerMetrics(`${run} (${stage})`, m.runner)}\n`);
    });
}
