/**
 * The dataset selection a command or a run works on, typed once where the flags or the config are read
 * (`DatasetSelection`): load the dataset, pick instances by id, pattern, repository, limit and shard, and say on
 * stderr what did not match (bad rows and unknown ids are reported, not fatal).
 */
import path from 'node:path';
import type { RunConfig } from '../../src/config.ts';
import { loadDataset } from '../../src/dataset/load.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { type InstanceSelection, parseShard, selectInstances } from '../../src/dataset/select.ts';

/** The selection flags as every command takes them from the flag table, values parsed (flag-values.ts). */
export interface SelectionFlags {
  dataset: string;
  instances?: string[];
  pattern?: string;
  repo?: string[];
  limit?: number;
  /** "i/n": this process's part of the selection (src/dataset/select.ts shardOf) */
  shard?: string;
}

/** What a command or a run selects, typed once at the edge: the dataset, where its download is cached, and which rows. */
export interface DatasetSelection {
  dataset: string;
  cacheDir: string;
  rows: InstanceSelection;
}

/** The selection a command's flags name. */
export function selectionOfFlags(flags: SelectionFlags & { cacheDir: string }): DatasetSelection {
  return selectionOf({ ...flags, ids: flags.instances, repos: flags.repo }, flags.cacheDir);
}

/** The selection a run config names. */
export function selectionOfConfig(
  config: Pick<RunConfig, 'dataset' | 'instances' | 'pattern' | 'repos' | 'limit' | 'shard'>,
  cacheDir: string,
): DatasetSelection {
  return selectionOf({ ...config, ids: config.instances }, cacheDir);
}

function selectionOf(
  o: { dataset: string; ids?: readonly string[]; pattern?: string; repos?: readonly string[]; limit?: number; shard?: string },
  cacheDir: string,
): DatasetSelection {
  return {
    dataset: o.dataset,
    cacheDir,
    rows: {
      ...(o.ids?.length ? { ids: o.ids } : {}),
      ...(o.pattern ? { pattern: o.pattern } : {}),
      ...(o.repos?.length ? { repos: o.repos } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      ...(o.shard ? { shard: parseShard(o.shard) } : {}),
    },
  };
}

/** Loads and selects instances; bad rows and unknown ids are reported on stderr, not fatal. */
export async function loadSelection(selection: DatasetSelection, commandName: string): Promise<SweInstance[]> {
  return (await loadSelectionWithDataset(selection, commandName)).selection;
}

/** The same, also returning the whole dataset (for formats that point into its order). */
export async function loadSelectionWithDataset(
  selection: DatasetSelection,
  commandName: string,
): Promise<{ dataset: SweInstance[]; selection: SweInstance[] }> {
  const dataset = await loadDataset(selection.dataset, { cacheDir: path.resolve(selection.cacheDir) });
  for (const e of dataset.errors) process.stderr.write(`${commandName}: skipping ${e.message}\n`);
  const { instances, unknownIds, unknownRepos } = selectInstances(dataset.instances, selection.rows);
  if (unknownIds.length) process.stderr.write(`${commandName}: not in ${selection.dataset}: ${unknownIds.join(', ')}\n`);
  if (unknownRepos.length) process.stderr.write(`${commandName}: no instance of ${unknownRepos.join(', ')} in ${selection.dataset}\n`);
  if (instances.length === 0) throw new Error(`no instance of ${selection.dataset} matches the selection`);
  return { dataset: dataset.instances, selection: instances };
}
