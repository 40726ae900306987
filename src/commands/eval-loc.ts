/**
 * `locfix eval-loc RUN [--stage retrieve] [--json]`: file-level Top-k and MRR of a run.
 *
 * The denominator is every instance the run's manifest selected; an instance whose artifact is missing
 * (never finished) or recorded an error counts as a miss.
 */
import type { Command } from 'commander';
import { readJsonIfExists } from '../util/fsx.ts';
import { rankedPathsOf, selectionPath, type StageSelection } from '../../localizer/retrieval/artifacts.ts';
import { RunLayout } from '../orchestrator/run-layout.ts';
import { computeLocMetrics, formatLocMetricsTable, metricsSummary, type LocMetricsDetail } from '../../results/loc-metrics.ts';

export async function evaluateRun(runDir: string, stage = 'retrieve'): Promise<LocMetricsDetail & { missingGold: string[] }> {
  const where = selectionPath(runDir, stage);
  const manifest = await readJsonIfExists<StageSelection>(where);
  if (!manifest) throw new Error(`${where} not found: is ${runDir} a run with a "${stage}" stage?`);
  if (!Array.isArray(manifest.instances)) throw new Error(`${where}: "instances" must be a list`);
  const layout = new RunLayout(runDir);
  const missingGold = manifest.instances.filter((id) => !manifest.gold?.[id]?.length);
  const outcomes = [];
  for (const id of manifest.instances) {
    if (!manifest.gold?.[id]?.length) continue; // nothing to score against
    let artifact: unknown;
    try {
      artifact = await readJsonIfExists(layout.artifactPath(stage, id));
    } catch (err) {
      throw new Error(`${layout.artifactPath(stage, id)}: unreadable artifact (${(err as Error).message})`);
    }
    outcomes.push({ instanceId: id, gold: manifest.gold[id], ranking: rankedPathsOf(artifact) });
  }
  return { ...computeLocMetrics(outcomes), missingGold };
}

export function register(program: Command): void {
  program
    .command('eval-loc')
    .description('file-level localization metrics (Top-1/3/5/10/15, MRR) of a run')
    .argument('<run>', 'run directory, e.g. runs/my-run')
    .option('--stage <name>', 'stage whose artifacts to score', 'retrieve')
    .option('--json', 'print one JSON object {"n","top1","top3","top5","top10","top15","mrr"}')
    .action(async (run: string, opts: { stage: string; json?: boolean }) => {
      const m = await evaluateRun(run, opts.stage);
      if (opts.json) {
        process.stdout.write(JSON.stringify(metricsSummary(m)) + '\n');
        return;
      }
      process.stdout.write(formatLocMetricsTable([{ label: `${run} (${opts.stage})`, metrics: m }]) + '\n');
      const notes = [`${m.failed} of ${m.n} instances without a ranking (failed or unfinished) count as misses`];
      if (m.missingGold.length) notes.push(`${m.missingGold.length} selected instances have no gold patch and are left out`);
      process.stdout.write(notes.join('\n') + '\n');
    });
}
