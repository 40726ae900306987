/**
 * `locfix merge --out DIR RUN…`: one run folder from the shards of a split run (`--shard i/n`) or from runs of
 * disjoint instances. Artifacts are joined (src/run/merge-runs.ts); predictions, the harness summary, the
 * analysis and the reports are computed again over the merged folder, exactly as `locfix run` computes them.
 */
import type { Command } from 'commander';
import { useFlags } from './flag-table.ts';
import path from 'node:path';
import { mergeAndReport } from '../engine/merge.ts';

export async function mergeCommand(inputs: readonly string[], flags: { out: string }): Promise<void> {
  await mergeAndReport(path.resolve(flags.out), inputs, (line) => process.stderr.write(line + '\n'));
}

export function register(program: Command): void {
  const command = program
    .command('merge')
    .description('join run folders (the shards of a split run) into one, with its analysis and report')
    .argument('<runs...>', 'run folders to join');
  useFlags(command, ['out'], { out: { required: true, description: 'the merged run folder' } }).action(mergeCommand);
}
