/**
 * Localizers by name. Adding one is one folder plus one entry here. Each entry loads its module lazily (a
 * model-free run never imports the LLM localizers) and exports a zod schema of its options, so a config
 * file or `--options` is checked before any instance runs.
 */
import { KindedError } from '../src/run/kinded-error.ts';
import { STAGE_ERROR_KIND } from '../src/run/stage-runner.ts';
import type { z } from 'zod';
import type { Capability, LocalizerNeeds } from './capabilities.ts';
import { parseLocalizerOptions } from './options.ts';
import type { FileLocalizer } from './types.ts';

/**
 * One localizer, typed from its schema to its constructor: `options` is the schema a config file or
 * `--localizer-options` is checked against, and `needs`, `nested` and `create` receive what it parsed.
 */
export interface LocalizerDefinition<Options> {
  options(): Promise<z.ZodType<Options>>;
  /** capabilities it cannot answer without, given its options (checked before any instance runs) */
  needs?(options: Options): Capability[];
  /** capabilities it uses when the run has them, given its options */
  uses?(options: Options): Capability[];
  /**
   * these options with every default the localizer applies written out: the canonical form that names an arm, so
   * options typed differently but meaning the same are one configuration (the schema's own defaults need nothing)
   */
  resolved?(options: Options): Promise<Options>;
  /** what changes when a run with these options is split into shards that each run it apart, if anything */
  shardCaveat?(options: Options): string | undefined;
  /** localizers nested in these options (a cascade's tiers), validated with them before any instance runs */
  nested?(options: Options): Array<{ name: string; options: Record<string, unknown>; set(parsed: Record<string, unknown>): void }>;
  /** `options` already validated; `run.seed` is the run's seed (localizers that sample may use it) */
  create(options: Options, run: { seed?: number }): Promise<FileLocalizer>;
}

/** A definition with its option type erased, as the registry keeps it. */
export type LocalizerEntry = LocalizerDefinition<Record<string, unknown>>;

/**
 * The registry keeps definitions of different option types in one table. Erasing the type is safe because the
 * registry calls `needs`, `nested` and `create` only with what that definition's own schema parsed.
 */
export function defineLocalizer<Options>(definition: LocalizerDefinition<Options>): LocalizerEntry {
  return definition as unknown as LocalizerEntry;
}

/** The options' own seed wins; otherwise the run's. */
const withRunSeed = <O extends { seed?: number }>(options: O, run: { seed?: number }): O => ({
  ...(run.seed !== undefined ? { seed: run.seed } : {}),
  ...options,
});

export const LOCALIZERS: Record<string, LocalizerEntry> = {
  retrieval: defineLocalizer({
    options: async () => (await import('./retrieval/localizer.ts')).RetrievalOptionsSchema,
    resolved: async (options) => ({
      queries: options.queries ?? (await import('./retrieval/query.ts')).DEFAULT_QUERY_PRESET,
      environmentReports: options.environmentReports ?? 'drop',
      retrieval: (await import('./retrieval/options.ts')).resolveRetrievalOptions(options.retrieval),
    }),
    create: async (options) => new (await import('./retrieval/localizer.ts')).RetrievalLocalizer(options),
  }),
  oracle: defineLocalizer({
    options: async () => (await import('./oracle/index.ts')).OracleOptionsSchema,
    create: async () => new (await import('./oracle/index.ts')).OracleLocalizer(),
  }),
  blagent: defineLocalizer({
    options: async () => (await import('./blagent/options.ts')).BlagentOptionsSchema,
    needs: (options) => (options.allowNoLlm === true ? [] : ['model']),
    uses: () => ['model'],
    resolved: async (options) => ({ ...options, retrieval: (await import('./retrieval/options.ts')).resolveRetrievalOptions(options.retrieval) }),
    create: async (options, run) => {
      const { deriveBlagentOptions } = await import('./blagent/options.ts');
      return new (await import('./blagent/index.ts')).BlagentLocalizer({ resolved: deriveBlagentOptions(withRunSeed(options, run) as never) });
    },
  }),
  locagent: defineLocalizer({
    options: async () => (await import('./locagent/options.ts')).LocagentOptionsSchema,
    needs: () => ['model', 'graph'],
    create: async (options, run) => new (await import('./locagent/index.ts')).LocagentLocalizer(withRunSeed(options, run)),
  }),
  explorer: defineLocalizer({
    options: async () => (await import('./explorer/options.ts')).ExplorerOptionsSchema,
    needs: () => ['model', 'workspace'],
    create: async (options, run) => new (await import('./explorer/index.ts')).ExplorerLocalizer(withRunSeed(options, run)),
  }),
  cascade: defineLocalizer({
    options: async () => (await import('./cascade/options.ts')).CascadeOptionsSchema,
    // a cascade needs what any tier needs (a tier may run for every instance), and keeps its tiers' answers in parts
    needs: (options) => [...new Set<Capability>(['parts', ...options.tiers.flatMap((tier) => localizerNeeds(tier.localizer, tier.options).needs)])],
    uses: (options) => options.tiers.flatMap((tier) => localizerNeeds(tier.localizer, tier.options).uses),
    nested: (options) =>
      options.tiers.map((tier) => ({
        name: tier.localizer,
        options: tier.options,
        set: (parsed) => {
          tier.options = parsed;
        },
      })),
    shardCaveat: (options) => {
      const shared = options.tiers.flatMap((tier, i) => (tier.escalate?.share !== undefined ? [`tier ${i + 1} escalates ${tier.escalate.share}`] : []));
      return shared.length
        ? `the cascade's share rule (${shared.join(', ')}) ranks the whole run; each shard ranks only its own instances, so a sharded run escalates other instances than one run would`
        : undefined;
    },
    // tiers are built through this registry, with the run's seed
    create: async (options, run) =>
      new (await import('./cascade/index.ts')).CascadeLocalizer(options, (name, tierOptions) => entryOf(name, 'cascade tier').create(tierOptions, run)),
  }),
  agentless: defineLocalizer({
    options: async () => (await import('./agentless/options.ts')).AgentlessInputSchema,
    needs: () => ['model'],
    resolved: async (options) => (await import('./agentless/options.ts')).AgentlessOptionsSchema.parse(options),
    create: async (options) => new (await import('./agentless/index.ts')).AgentlessLocalizer(options),
  }),
};

/** What a localizer with these (validated) options needs of the run, and what else it uses when there. */
export function localizerNeeds(name: string, options: Record<string, unknown> = {}): LocalizerNeeds {
  const entry = entryOf(name, 'localizer.name');
  const needs = entry.needs?.(options) ?? [];
  return { needs, uses: [...new Set([...needs, ...(entry.uses?.(options) ?? [])])] };
}

/**
 * Whether a localizer of this name may call a model, by what it declares. A name the registry does not know (a
 * run imported from elsewhere) or options it cannot read are assumed to: costs are not left out by guessing.
 */
export function localizerMayUseModel(name: string): boolean {
  if (!Object.hasOwn(LOCALIZERS, name)) return true;
  try {
    return localizerNeeds(name).uses.includes('model');
  } catch {
    return true;
  }
}

export function localizerNames(): string[] {
  return Object.keys(LOCALIZERS).sort();
}

function entryOf(name: string, where: string): LocalizerEntry {
  const entry = Object.hasOwn(LOCALIZERS, name) ? LOCALIZERS[name] : undefined;
  if (!entry) throw new KindedError(STAGE_ERROR_KIND.badConfig, `${where}: unknown localizer ${JSON.stringify(name)}; known: ${localizerNames().join(', ')}`);
  return entry;
}

/** Checks a localizer name and its options (config key `where` in messages); returns the options as parsed. */
export async function validateLocalizer(name: string, options: Record<string, unknown> = {}, where = 'localizer.name'): Promise<Record<string, unknown>> {
  const entry = entryOf(name, where);
  const parsed = parseLocalizerOptions(name, await entry.options(), options) as Record<string, unknown>;
  for (const [i, child] of (entry.nested?.(parsed) ?? []).entries()) child.set(await validateLocalizer(child.name, child.options, `${where} (tier ${i + 1})`));
  return parsed;
}

/**
 * The options of a localizer in the one form that names its configuration: validated, every default written out,
 * nested tiers in their own canonical form. Two runs whose canonical options are equal ran the same localizer,
 * whatever was typed. A name the registry does not know (a run imported from elsewhere) keeps its options as given.
 */
export async function canonicalLocalizerOptions(name: string, options: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  if (!Object.hasOwn(LOCALIZERS, name)) return options;
  const entry = LOCALIZERS[name];
  const parsed = parseLocalizerOptions(name, await entry.options(), options) as Record<string, unknown>;
  for (const child of entry.nested?.(parsed) ?? []) child.set(await canonicalLocalizerOptions(child.name, child.options));
  return (await entry.resolved?.(parsed)) ?? parsed;
}

/** What a split into shards changes for this localizer (undefined: nothing); options that do not validate say nothing. */
export async function localizerShardCaveat(name: string, options: Record<string, unknown> = {}): Promise<string | undefined> {
  if (!Object.hasOwn(LOCALIZERS, name) || !LOCALIZERS[name].shardCaveat) return undefined;
  try {
    return LOCALIZERS[name].shardCaveat!(await validateLocalizer(name, options));
  } catch {
    return undefined;
  }
}

/** A localizer resolved once, at the edge: its parsed options, what it needs of the run, and how to make it. */
export interface ResolvedLocalizer {
  readonly name: string;
  /** the options as its schema parsed them (nested tiers too): what the manifest records */
  readonly options: Record<string, unknown>;
  readonly needs: LocalizerNeeds;
  /** what a split into shards changes for it, if anything */
  readonly shardCaveat?: string;
  /** makes the localizer from the parsed options: no second validation */
  create(run: { seed?: number }): Promise<FileLocalizer>;
}

/** Looks the name up and parses the options once (config key `where` in messages); everything after uses the result. */
export async function resolveLocalizer(name: string, options: Record<string, unknown> = {}, where = 'localizer.name'): Promise<ResolvedLocalizer> {
  const entry = entryOf(name, where);
  const parsed = await validateLocalizer(name, options, where);
  const needs = entry.needs?.(parsed) ?? [];
  const caveat = entry.shardCaveat?.(parsed);
  return {
    name,
    options: parsed,
    needs: { needs, uses: [...new Set([...needs, ...(entry.uses?.(parsed) ?? [])])] },
    ...(caveat ? { shardCaveat: caveat } : {}),
    create: (run) => entry.create(parsed, run),
  };
}

/** Validates and makes a localizer in one call (tests, tools); a run resolves once and calls `create` on the result. */
export async function createLocalizer(name: string, options: Record<string, unknown> = {}, run: { seed?: number } = {}): Promise<FileLocalizer> {
  const parsed = await validateLocalizer(name, options, '--localizer');
  return entryOf(name, '--localizer').create(parsed, run);
}
