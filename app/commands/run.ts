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
import type { ExperimentResult } from '../../src/run/run-result.ts';
import { overridesFrom, RUN_FLAGS } from './run-flags.ts';
import { useFlags } from './flag-table.ts';

/** A run that finished with work owed (not reached or not evaluated by a failure): told apart from success and crash. */
export const INCOMPLETE_EXIT = 4;

/** This invocation's own command line, with --retry-errors when the advice asks for it. */
function finishingCommand(advice: string): string {
  const args = process.argv.slice(2).map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`));
  if (advice.includes('--retry-errors') && !args.some((a) => a.startsWith('--retry-errors'))) args.push('--retry-errors');
  return `locfix ${args.join(' ')}`;
}

export function register(program: Command): void {
  const command = program.command('run').description('a whole experiment: localization → repair → validation → selection → evaluation → analysis (resumable)');
  useFlags(command, ['config', ...RUN_FLAGS.map((f) => optionName(f.flag)), 'retryErrors']).action(
    async (flags: Record<string, unknown> & { config?: string; retryErrors?: RetryErrors }) => {
      const config = await loadRunConfig(flags.config, overridesFrom(flags));
      const result = await runExperiment(config, { retryErrors: flags.retryErrors });
      process.exitCode = exitStatus(result);
    },
  );
}

/** The exit status of a run, by how it ended; what the caller must know is written beside it. */
function exitStatus(result: ExperimentResult): number {
  if (result.budgetExhausted) return 3;
  if (result.diskFull) return 75; // EX_TEMPFAIL: the same command succeeds once space is freed
  if (result.lockLost) return 73; // EX_CANTCREAT: another process holds the run folder now
  if (result.incomplete) return 1;
  if (result.interrupted) return 130;
  const finish = result.unfinished ? `run: ${result.unfinished.finish}: ${finishingCommand(result.unfinished.finish)}\n` : '';
  if (result.total > 0 && result.failed === result.total) {
    process.stderr.write(
      `run: every instance (${result.total}) failed at some stage; each error is recorded in its stage artifact under ${result.runDir}\n${finish}`,
    );
    return 1;
  }
  // finished, owing work: its numbers are not final, and a script must not take them as if they were
  process.stderr.write(finish);
  return finish ? INCOMPLETE_EXIT : 0;
}
