/**
 * `locfix gate --dataset D --run-id ID [--instances …] [--repeats N]`: the gate, before numbers. Every selected row's
 * gold patch and empty patch run on this machine, with the evaluation's sandboxes and grading rules; rows where gold
 * does not resolve or the empty patch does are reported with their reason (validation/gate.ts), and the result is
 * stored with the run (`<runs>/<ID>/gate.json`), where `analyze` and the report read it to give the rates over the
 * rows that pass beside the rates over all rows. `locfix evaluate --gate` runs it before the predictions.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { gateRows } from '../engine/gate-run.ts';
import { runBackend } from '../engine/backends.ts';
import { EVALUATE_FLAGS } from './run-flags.ts';
import { evaluationConfig, INSTANCES_FLAG, selectedRows } from './evaluate.ts';
import { useFlags } from './flag-table.ts';
import { optionName } from './flag-values.ts';

export function register(program: Command): void {
  const command = program
    .command('gate')
    .description("each selected row's gold patch and empty patch on this machine: which rows can be resolved here, and why the others cannot");
  useFlags(command, ['dataset', 'taskDataset', 'runId', 'instances', 'repeats'], {
    dataset: { required: true, description: 'SWE-bench instances, as for evaluate' },
    runId: { required: true, description: 'the run the gate belongs to: <runs-dir>/<id>/gate.json' },
    instances: INSTANCES_FLAG,
  });
  useFlags(
    command,
    EVALUATE_FLAGS.filter((f) => !['--dataset', '--run-id', '--instances'].includes(f.flag.split(' ')[0]!)).map((f) => optionName(f.flag)),
  );
  command.action(async (opts: { dataset: string; taskDataset?: string; runId: string; instances?: string[]; repeats?: number } & Record<string, unknown>) => {
    const repeats = opts.repeats ?? 1;
    if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, got ${String(opts.repeats)}`);
    const config = evaluationConfig(opts as Parameters<typeof evaluationConfig>[0]);
    const { dataset } = await selectedRows(opts);
    const store = new RepoStore({ cacheDir: config.cacheDir ?? defaultCacheDir(), mirrorsDir: config.mirrorsDir, allowClone: false });
    const runDir = path.join(config.runsDir, config.runId);
    const lock = acquireRunLock(runDir);
    try {
      const gate = await gateRows({ config, dataset, backend: runBackend(config, store), runDir, repeats });
      // a row whose gold run could not run is not known: the gate is incomplete, said by the exit status
      if (gate.rows.some((r) => r.reasons.includes('environment') || r.reasons.includes('empty-environment'))) process.exitCode = 4;
    } finally {
      lock.release();
      await store.close();
    }
  });
}
