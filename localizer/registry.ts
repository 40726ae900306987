/**
 * Localizers by name. Adding one is one folder plus one entry here. Each entry loads its module lazily (a
 * model-free run never imports the LLM localizers) and exports a zod schema of its options, so a config
 * file or `--options` is checked before any instance runs.
 */
import type { z } from 'zod';
import { parseLocalizerOptions } from './options.ts';
import type { FileLocalizer } from './types.ts';
import type { LocagentOptions } from './locagent/options.ts';
import type { ExplorerOptions } from './explorer/options.ts';
import type { CascadeOptions } from './cascade/options.ts';

export interface LocalizerEntry {
  /** the schema of the options a config file or `--options` may give */
  options(): Promise<z.ZodType<Record<string, unknown>>>;
  /** localizers nested in these options (a cascade's tiers), validated with them before any instance runs */
  nested?(options: Record<string, unknown>): Array<{ name: string; options: Record<string, unknown>; set(parsed: Record<string, unknown>): void }>;
  /** true when the localizer cannot answer without a chat model (checked before any instance runs) */
  needsModel?(options: Record<string, unknown>): boolean;
  /** `options` already validated; `run.seed` is the run's seed (localizers that sample may use it) */
  create(options: Record<string, unknown>, run: { seed?: number }): Promise<FileLocalizer>;
}

export const LOCALIZERS: Record<string, LocalizerEntry> = {
  retrieval: {
    options: async () => (await import('./retrieval-localizer.ts')).RetrievalOptionsSchema,
    create: async (options) => new (await import('./retrieval-localizer.ts')).RetrievalLocalizer(options),
  },
  oracle: {
    options: async () => (await import('./oracle.ts')).OracleOptionsSchema,
    create: async () => new (await import('./oracle.ts')).OracleLocalizer(),
  },
  blagent: {
    options: async () => (await import('./blagent/options.ts')).BlagentOptionsSchema,
    needsModel: (options) => options.allowNoLlm !== true,
    // the options' own seed wins; otherwise the run's
    create: async (options, run) =>
      new (await import('./blagent/index.ts')).BlagentLocalizer({ ...(run.seed !== undefined ? { seed: run.seed } : {}), ...options }),
  },
  locagent: {
    options: async () => (await import('./locagent/options.ts')).LocagentOptionsSchema,
    needsModel: () => true,
    // the options' own seed wins; otherwise the run's
    create: async (options, run) =>
      new (await import('./locagent/index.ts')).LocagentLocalizer({ ...(run.seed !== undefined ? { seed: run.seed } : {}), ...options } as LocagentOptions),
  },
  explorer: {
    options: async () => (await import('./explorer/options.ts')).ExplorerOptionsSchema,
    needsModel: () => true,
    // the options' own seed wins; otherwise the run's
    create: async (options, run) =>
      new (await import('./explorer/index.ts')).ExplorerLocalizer({ ...(run.seed !== undefined ? { seed: run.seed } : {}), ...options } as ExplorerOptions),
  },
  cascade: {
    options: async () => (await import('./cascade/options.ts')).CascadeOptionsSchema,
    needsModel: (options) => (options as CascadeOptions).tiers.some((tier) => localizerNeedsModel(tier.localizer, tier.options)),
    nested: (options) =>
      (options as CascadeOptions).tiers.map((tier) => ({
        name: tier.localizer,
        options: tier.options,
        set: (parsed) => {
          tier.options = parsed;
        },
      })),
    // tiers are built through this registry, with the run's seed
    create: async (options, run) =>
      new (await import('./cascade/index.ts')).CascadeLocalizer(options as CascadeOptions, (name, tierOptions) => createLocalizer(name, tierOptions, run)),
  },
  agentless: {
    options: async () => (await import('./agentless/options.ts')).AgentlessOptionsSchema,
    needsModel: () => true,
    create: async (options) => new (await import('./agentless/index.ts')).AgentlessLocalizer(options),
  },
};

/** Whether a localizer with these (validated) options needs a chat model. */
export function localizerNeedsModel(name: string, options: Record<string, unknown> = {}): boolean {
  return entryOf(name, 'localizer.name').needsModel?.(options) ?? false;
}

export function localizerNames(): string[] {
  return Object.keys(LOCALIZERS).sort();
}

function entryOf(name: string, where: string): LocalizerEntry {
  const entry = Object.hasOwn(LOCALIZERS, name) ? LOCALIZERS[name] : undefined;
  if (!entry)
    throw Object.assign(new Error(`${where}: unknown localizer ${JSON.stringify(name)}; known: ${localizerNames().join(', ')}`), { kind: 'bad-config' });
  return entry;
}

/** Checks a localizer name and its options (config key `where` in messages); returns the options as parsed. */
export async function validateLocalizer(name: string, options: Record<string, unknown> = {}, where = 'localizer.name'): Promise<Record<string, unknown>> {
  const entry = entryOf(name, where);
  const parsed = parseLocalizerOptions(name, await entry.options(), options) as Record<string, unknown>;
  for (const [i, child] of (entry.nested?.(parsed) ?? []).entries()) child.set(await validateLocalizer(child.name, child.options, `${where} (tier ${i + 1})`));
  return parsed;
}

export async function createLocalizer(name: string, options: Record<string, unknown> = {}, run: { seed?: number } = {}): Promise<FileLocalizer> {
  const parsed = await validateLocalizer(name, options, '--localizer');
  return entryOf(name, '--localizer').create(parsed, run);
}
