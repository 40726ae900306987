/**
 * Options shared by the commands that work on a dataset selection with repositories, indexes and models,
 * so every command spells them the same way and builds its providers through one Services object.
 */
import type { LlmConfigInput } from '../../src/llm/config.ts';
import type { Command } from 'commander';
import path from 'node:path';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { positiveInt } from '../engine/selection.ts';
import { parseMirrorSpecs } from '../../src/repo/mirrors.ts';
import { Services } from '../services.ts';

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
