/**
 * Options shared by the commands that work on a dataset selection with repositories, indexes and models,
 * so every command spells them the same way and builds its providers through one Services object.
 */
import type { RunConfig } from '../config.ts';
import type { LlmConfigInput } from '../llm/config.ts';
import type { Command } from 'commander';
import path from 'node:path';
import { defaultCacheDir, loadDataset } from '../dataset/load.ts';
import type { SweInstance } from '../dataset/schema.ts';
import { parseShard, selectInstances } from '../dataset/select.ts';
import { parseMirrorSpecs } from '../repo/mirrors.ts';
import { Services } from '../services.ts';

export interface SelectionFlags {
  dataset: string;
  instances?: string;
  pattern?: string;
  repo?: string[];
  limit?: string;
  /** "i/n": this process's part of the selection (src/dataset/select.ts shardOf) */
  shard?: string;
}

export interface ServiceFlags {
  cacheDir: string;
  mirrors?: string;
  mirror?: string[];
  embedder: string;
  chromaUrl?: string;
  llm?: string;
  llmTimeout?: string;
  llmRetries?: string;
}

const collect = (value: string, acc: string[]) => [...acc, value];

export function addSelectionOptions(command: Command): Command {
  return command
    .requiredOption('--dataset <source>', 'SWE-bench instances: .json/.jsonl/.parquet file or a Hub name such as SWE-bench/SWE-bench_Lite')
    .option('--instances <ids>', 'comma-separated instance ids')
    .option('--pattern <pattern>', 'instance ids matching this glob or /regex/')
    .option('--repo <owner/name>', 'instances of this repository (repeatable)', collect, [] as string[])
    .option('--limit <n>', 'at most this many instances')
    .option('--shard <i/n>', 'only part i of n of the selection (contiguous, near-equal parts); `locfix merge` joins the parts');
}

/** `llm: false` for commands that never call a model (an `--llm` they ignored would mislead). */
export function addServiceOptions(command: Command, options: { llm?: boolean } = {}): Command {
  const withStores = command
    .option('--cache-dir <dir>', 'mirrors, embeddings, LLM responses and the local Chroma database', defaultCacheDir())
    .option('--mirrors <dir>', 'folder with bare mirrors laid out as owner+name/repo')
    .option('--mirror <owner/name=path>', 'a local mirror for one repository (repeatable)', collect, [] as string[])
    .option('--embedder <spec>', 'lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url]', 'lexical')
    .option('--chroma-url <url>', 'a running Chroma server (default: start a local one)');
  if (options.llm === false) return withStores;
  return withStores
    .option('--llm <spec>', 'chat model, e.g. ollama:gpt-oss:120b or openai:gpt-4o@http://localhost:8000/v1')
    .option('--llm-timeout <seconds>', 'per model request (default 300)')
    .option('--llm-retries <n>', 'retries of a failed model request (default 4)');
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

export function servicesFrom(flags: ServiceFlags): Services {
  return new Services({
    cacheDir: path.resolve(flags.cacheDir),
    mirrors: parseMirrorSpecs(flags.mirror ?? []),
    mirrorsDir: flags.mirrors,
    embedder: flags.embedder,
    chromaUrl: flags.chromaUrl,
    llm: llmFrom(flags),
  });
}

/** `--llm` with the limits `--llm-timeout` / `--llm-retries` put on it. */
export function llmFrom(flags: Pick<ServiceFlags, 'llm' | 'llmTimeout' | 'llmRetries'>): string | LlmConfigInput | undefined {
  if (!flags.llm) return undefined;
  if (flags.llmTimeout === undefined && flags.llmRetries === undefined) return flags.llm;
  const retries = flags.llmRetries === undefined ? undefined : Number(flags.llmRetries);
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0))
    throw new Error(`--llm-retries expects a non-negative integer, got "${flags.llmRetries}"`);
  const timeout = positiveInt('--llm-timeout', flags.llmTimeout);
  return { model: flags.llm, ...(timeout ? { timeoutMs: timeout * 1000 } : {}), ...(retries !== undefined ? { maxRetries: retries } : {}) };
}
