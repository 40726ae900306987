/**
 * Options shared by the commands that work on a dataset selection with repositories, indexes and models,
 * so every command spells them the same way and builds its providers through one Services object.
 */
import type { LlmConfigInput } from '../../src/llm/config.ts';
import type { Command } from 'commander';
import path from 'node:path';
import { defaultCacheDir } from '../../src/dataset/load.ts';
import { Services } from '../services.ts';
import { useFlags } from './flag-table.ts';

export interface ServiceFlags {
  cacheDir: string;
  mirrors?: string;
  /** owner/name → path, each parsed by the flag's table */
  mirror?: Array<[string, string]>;
  embedder: string;
  chromaUrl?: string;
  llm?: string;
  /** ms (the flag's parser turns --llm-timeout's seconds into the config's milliseconds) */
  llmTimeout?: number;
  llmRetries?: number;
}

export function addSelectionOptions(command: Command): Command {
  return useFlags(command, ['dataset', 'instances', 'pattern', 'repo', 'limit', 'shard'], {
    dataset: { required: true },
    shard: { description: 'only part i of n of the selection (contiguous, near-equal parts); `locfix merge` joins the parts' },
  });
}

/** `llm: false` for commands that never call a model (an `--llm` they ignored would mislead). */
export function addServiceOptions(command: Command, options: { llm?: boolean } = {}): Command {
  const stores = ['cacheDir', 'mirrors', 'mirror', 'embedder', 'chromaUrl'];
  const models = options.llm === false ? [] : ['llm', 'llmTimeout', 'llmRetries'];
  return useFlags(command, [...stores, ...models], {
    cacheDir: { default: defaultCacheDir() },
    embedder: { default: 'lexical' },
    chromaUrl: { description: 'a running Chroma server (default: start a local one)' },
  });
}

export function servicesFrom(flags: ServiceFlags): Services {
  return new Services({
    cacheDir: path.resolve(flags.cacheDir),
    mirrors: Object.fromEntries(flags.mirror ?? []),
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
  return {
    model: flags.llm,
    ...(flags.llmTimeout !== undefined ? { timeoutMs: flags.llmTimeout } : {}),
    ...(flags.llmRetries !== undefined ? { maxRetries: flags.llmRetries } : {}),
  };
}
