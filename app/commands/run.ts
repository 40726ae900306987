/**
 * `locfix run`: a whole SWE-bench experiment — file → function → line localization, repair, validation,
 * selection, evaluation — then the analysis and reports. Every stage's output per instance is an atomic file
 * under runs/<id>/, so an interrupted run (Ctrl-C, a crash, `kill -9`) resumes by running the same command.
 *
 *   locfix run --config experiment.json [--run-id ID] [--llm SPEC] [--localizer NAME] [--limit N] …
 */
import { optionName } from './flag-values.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import type { Command } from 'commander';
import { loadRunConfig } from '../../src/config.ts';
import { runExperiment } from '../engine/experiment.ts';
import { overridesFrom, RUN_FLAGS } from './run-flags.ts';
import { useFlags } from './flag-table.ts';

export function register(program: Command): void {
  const command = program.command('run').description('a whole experiment: localization → repair → validation → selection → evaluation → analysis (resumable)');
  useFlags(command, ['config', ...RUN_FLAGS.map((f) => optionName(f.flag)), 'retryErrors']).action(
    async (flags: Record<string, unknown> & { config?: string; retryErrors?: RetryErrors }) => {
      const config = await loadRunConfig(flags.config, overridesFrom(flags));
      const result = await runExperiment(config, { retryErrors: flags.retryErrors });
      if (result.budgetExhausted) process.exitCode = 3;
      else if (result.diskFull)
        process.exitCode = 75; // EX_TEMPFAIL: the same command succeeds once space is freed
      else if (result.lockLost)
        process.exitCode = 73; // EX_CANTCREAT: another process holds the run folder now
      else if (result.incomplete) process.exitCode = 1;
      else if (result.interrupted) process.exitCode = 130;
      else if (result.total > 0 && result.failed === result.total) {
        process.stderr.write(
          `run: every instance (${result.total}) failed at some stage; each error is recorded in its stage artifact under ${result.runDir}\n`,
        );
        process.exitCode = 1;
      }
    },
  );
}
