/**
 * `locfix ladder [run flags] --seeds N`: which stage caused each failure. The configuration the run flags describe is
 * run as it is and with perfect localization from the gold patch down to file, function and line level
 * (app/engine/ladder.ts), N times each; the rungs' resolution is compared pairwise (exact McNemar, paired
 * bootstrap, Holm) and each instance unresolved as run is attributed to the first level whose oracle resolves it
 * (results/ladder.ts). Writes <runs>/<id>/ladder.json and ladder.md, and the causes beside the first as-run run's
 * analysis, where `analyze`, the report and `locfix view` show them. Rerunning resumes every rung.
 */
import type { Command } from 'commander';
import { loadRunConfig } from '../../src/config.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import { renderLadder } from '../../results/ladder-report.ts';
import { runLadder } from '../engine/ladder.ts';
import { INCOMPLETE_EXIT } from './run.ts';
import { useFlags } from './flag-table.ts';
import { optionName } from './flag-values.ts';
import { overridesFrom, RUN_FLAGS } from './run-flags.ts';

export function register(program: Command): void {
  const command = program
    .command('ladder')
    .description('the counterfactual ladder: the run as it is and with perfect localization at each level; which stage caused each failure');
  const runFlags = RUN_FLAGS.map((f) => optionName(f.flag)).filter((name) => name !== 'oracleFrom');
  useFlags(command, ['config', ...runFlags, 'seeds', 'retryErrors']).action(
    async (flags: Record<string, unknown> & { config?: string; seeds?: number; retryErrors?: RetryErrors }) => {
      const config = await loadRunConfig(flags.config, overridesFrom(flags));
      const outcome = await runLadder(config, { seeds: flags.seeds ?? 1, retryErrors: flags.retryErrors });
      if (outcome.result) {
        process.stdout.write(renderLadder(outcome.result));
        process.stderr.write(`ladder: ${outcome.dir}/ladder.md, ladder.json\n`);
        // a rung that owes work leaves its instances not judged there: the ladder is not final, as a run is not
        for (const u of outcome.unfinished) process.stderr.write(`ladder: ${u.run} is incomplete: ${u.finish}; rerun the ladder to finish it\n`);
        if (outcome.unfinished.length) process.exitCode = INCOMPLETE_EXIT;
        return;
      }
      const stop = outcome.stoppedAt!;
      process.stderr.write(`ladder: stopped at ${stop.rung} (seed ${stop.seed}): ${stop.how}; rerun the same command to go on\n`);
      process.exitCode = stop.experiment.budgetExhausted
        ? 3
        : stop.experiment.diskFull
          ? 75
          : stop.experiment.lockLost
            ? 73
            : stop.experiment.interrupted
              ? 130
              : 1;
    },
  );
}
