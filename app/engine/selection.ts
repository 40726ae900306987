/**
 * The dataset selection a command or a run works on: load the dataset, pick instances by id, pattern, repository,
 * limit and shard, and say on stderr what did not match (bad rows and unknown ids are reported, not fatal).
 */
import path from 'node:path';
import type { RunConfig } from '../../src/config.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { parseShard, selectInstances } from '../../src/dataset/select.ts';

export interface SelectionFlags {
  dataset: string;
  instances?: string;
  pattern?: string;
  repo?: string[];
  limit?: string;
  /** "i/n": this process's part of the selection (src/dataset/select.ts shardOf) */
  shard?: string;
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive integer, got "${value}"`);
  return n;
}

/** The selection a run config names, as loadSelection's flags. */
export function runSelectionFlags(config: RunConfig, cacheDir: string): SelectionFlags & { cacheDir: string } {
  return {
    dataset: config.dataset,
    instances: config.instances?.join(','),
    pattern: config.pattern,
    repo: config.repos,
    limit: config.limit?.toString(),
    shard: config.shard,
    cacheDir,
  };
}

/** Loads and selects instances; bad rows and unknown ids are reported on stderr, not fatal. */
export async function loadSelection(flags: SelectionFlags & { cacheDir: string }, commandName: string): Promise<SweInstance[]> {
  return (await loadSelectionWithDataset(flags, commandName)).selection;
}

/** The same, also returning the whole dataset (for formats that point into its order). */
export async function loadSelectionWithDataset(
  flags: SelectionFlags & { cacheDir: string },
  commandName: string,
): Promise<{ dataset: SweInstance[]; selection: SweInstance[] }> {
  const dataset = await loadDataset(flags.dataset, { cacheDir: path.resolve(flags.cacheDir) });
  for (const e of dataset.errors) process.stderr.write(`${commandName}: skipping ${e.message}\n`);
  const { instances, unknownIds, unknownRepos } = selectInstances(dataset.instances, {
    ids: flags.instances
      ? flags.instances
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined,
    pattern: flags.pattern,
    repos: flags.repo?.length ? flags.repo : undefined,
    limit: positiveInt('--limit', flags.limit),
    ...(flags.shard ? { shard: parseShard(flags.shard) } : {}),
  });
  if (unknownIds.length) process.stderr.write(`${commandName}: not in ${flags.dataset}: ${unknownIds.join(', ')}\n`);
  if (unknownRepos.length) process.stderr.write(`${commandName}: no instance of ${unknownRepos.join(', ')} in ${flags.dataset}\n`);
  if (instances.length === 0) throw new Error(`no instance of ${flags.dataset} matches the selection`);
  return { dataset: dataset.instances, selection: instances };
}
