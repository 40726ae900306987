/**
 * The flags of `locfix run`, declared in one table with the config key each one sets, so that a flag and a config
 * key cannot drift apart. `RUN_FLAG_COVERAGE` names every top-level config key, the way vitest's CLI option table
 * does: `true` where flags set it, or the reason it is set in the config file only; the compiler refuses a
 * config key that is missing there, and test/core/run-config.test.ts checks the table against RUN_FLAGS.
 */
import type { RunConfigInput } from '../../src/config.ts';
import { localizerNames } from '../../localizer/registry.ts';
import { positiveInt } from '../engine/selection.ts';

/** A `locfix run` flag and the config key it sets: flags and config are declared in this one table. */
interface RunFlag {
  flag: string;
  description: string;
  /** the config key (and, for an object-valued key, the field) the flag sets */
  key: keyof RunConfigInput;
  field?: string;
  parse?: (text: string, flag: string) => unknown;
  /** repeatable: each use adds one value to a list */
  repeat?: boolean;
  /** a repeatable flag's parsed values as the config key takes them (default: the list) */
  collect?: (values: unknown[]) => unknown;
}

/** Typed entry: `field` must be a field of that config key's object. */
function flag<K extends keyof RunConfigInput>(
  key: K,
  spec: Omit<RunFlag, 'key' | 'field'> & { field?: keyof Extract<Exclude<RunConfigInput[K], undefined>, object> & string },
): RunFlag {
  return { key, ...spec };
}

const list = (text: string): string[] =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const nonNegativeInt = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} expects a non-negative integer, got "${text}"`);
  return n;
};
const positiveNumber = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} expects a positive number, got "${text}"`);
  return n;
};
const integer = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`${name} expects an integer, got "${text}"`);
  return n;
};

/** `owner/name=path` of --mirror. */
function mirrorSpec(text: string, name: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || !text.slice(0, at).includes('/')) throw new Error(`${name} expects owner/name=PATH, got "${text}"`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** A JSON object given on the command line. */
function jsonObject(text: string, name: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} expects a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${name} expects a JSON object, got ${text}`);
  return value as Record<string, unknown>;
}

export const RUN_FLAGS: readonly RunFlag[] = [
  flag('runId', { flag: '--run-id <id>', description: 'names runs/<id>' }),
  flag('dataset', { flag: '--dataset <source>', description: 'SWE-bench instances: file or Hub name' }),
  flag('instances', { flag: '--instances <ids>', description: 'comma-separated instance ids', parse: list }),
  flag('pattern', { flag: '--pattern <pattern>', description: 'instance ids matching this glob or /regex/' }),
  flag('repos', { flag: '--repo <owner/name>', description: 'instances of this repository (repeatable)', repeat: true }),
  flag('limit', { flag: '--limit <n>', description: 'at most this many instances', parse: (t, f) => positiveInt(f, t) }),
  flag('shard', { flag: '--shard <i/n>', description: 'only part i of n of the selection; `locfix merge` joins the parts' }),
  flag('llm', { flag: '--llm <spec>', description: 'chat model, e.g. ollama:gpt-oss:120b or openai:gpt-4o@http://localhost:8000/v1' }),
  flag('llm', {
    field: 'timeoutMs',
    flag: '--llm-timeout <seconds>',
    description: 'per model request (default 300)',
    parse: (t, f) => positiveInt(f, t)! * 1000,
  }),
  flag('llm', { field: 'maxRetries', flag: '--llm-retries <n>', description: 'retries of a failed model request (default 4)', parse: nonNegativeInt }),
  flag('localizer', { field: 'name', flag: '--localizer <name>', description: `file localizer: ${localizerNames().join(' | ')}` }),
  flag('localizer', {
    field: 'options',
    flag: '--localizer-options <json>',
    description: 'the localizer\'s options as JSON, e.g. {"retrieval":{"weights":{"history":0}}}',
    parse: jsonObject,
  }),
  flag('handoff', {
    flag: '--handoff <contract>',
    description: 'top (default: the first topFiles) | soft (those, and later stages may look beyond) | hard (only the predicted set)',
  }),
  flag('embedder', { flag: '--embedder <spec>', description: 'lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url]' }),
  flag('mirrorsDir', { flag: '--mirrors <dir>', description: 'folder with bare mirrors laid out as owner+name/repo' }),
  flag('mirrors', {
    flag: '--mirror <owner/name=path>',
    description: 'the mirror of one repository (repeatable)',
    repeat: true,
    parse: (text, name) => mirrorSpec(text, name),
    collect: (pairs) => Object.fromEntries(pairs as Array<[string, string]>),
  }),
  flag('topFiles', {
    flag: '--top-files <n>',
    description: 'files handed to function-level localization and repair (default 3)',
    parse: (t, f) => positiveInt(f, t),
  }),
  flag('cacheDir', { flag: '--cache-dir <dir>', description: 'mirrors, embeddings, LLM responses, local Chroma' }),
  flag('chromaUrl', { flag: '--chroma-url <url>', description: 'a running Chroma server' }),
  flag('runsDir', { flag: '--runs-dir <dir>', description: 'where run directories go (default runs)' }),
  flag('docker', {
    field: 'backend',
    flag: '--backend <name>',
    description: 'local (default) | docker-pool: where validation and evaluation run; slurm: whole instances as a job array (cluster.*)',
  }),
  flag('docker', {
    field: 'engines',
    flag: '--engine <url[=n]>',
    description: 'an engine of the docker-pool backend, e.g. unix:///run/docker2.sock=2 (repeatable)',
    repeat: true,
  }),
  flag('cluster', { field: 'shards', flag: '--shards <n>', description: 'slurm: parts the run is split into (default 4)', parse: (t, f) => positiveInt(f, t) }),
  flag('cluster', { field: 'partition', flag: '--partition <name>', description: 'slurm: partition of the tasks' }),
  flag('cluster', { field: 'timeLimit', flag: '--time-limit <time>', description: 'slurm: wall-clock limit per task, e.g. 02:00:00' }),
  flag('cluster', { field: 'cpusPerTask', flag: '--cpus-per-task <n>', description: 'slurm: CPUs per task (default 2)', parse: (t, f) => positiveInt(f, t) }),
  flag('cluster', { field: 'memory', flag: '--mem <size>', description: 'slurm: memory per task, e.g. 8G (default)' }),
  flag('cluster', {
    field: 'maxAttempts',
    flag: '--max-attempts <n>',
    description: 'slurm: submissions of a failing shard before it is given up (default 3)',
    parse: (t, f) => positiveInt(f, t),
  }),
  flag('stopAfter', { flag: '--stop-after <stage>', description: 'stop after this stage, e.g. localize-files' }),
  flag('seed', { flag: '--seed <n>', description: 'seed recorded in the manifest and used for sampling', parse: integer }),
  flag('budget', {
    field: 'instanceTokens',
    flag: '--max-instance-tokens <n>',
    description: 'spend cap per instance: tokens',
    parse: (t, f) => positiveInt(f, t),
  }),
  flag('budget', { field: 'instanceDollars', flag: '--max-instance-dollars <usd>', description: 'spend cap per instance: dollars', parse: positiveNumber }),
  flag('budget', { field: 'runTokens', flag: '--max-run-tokens <n>', description: 'spend cap of the run: tokens', parse: (t, f) => positiveInt(f, t) }),
  flag('budget', { field: 'runDollars', flag: '--max-run-dollars <usd>', description: 'spend cap of the run: dollars', parse: positiveNumber }),
  flag('concurrency', {
    field: 'instances',
    flag: '--concurrency <n>',
    description: 'instances in flight through the pipeline',
    parse: (t, f) => positiveInt(f, t),
  }),
];

/** commander's option name for a flag ("--run-id <id>" -> "runId"). */
function optionName(spec: RunFlag): string {
  return spec.flag
    .split(' ')[0]
    .slice(2)
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** The config overrides the given flags make (unset flags make none). */
export function overridesFrom(flags: Record<string, unknown>): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const spec of RUN_FLAGS) {
    const raw = flags[optionName(spec)];
    if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) continue;
    const name = spec.flag.split(' ')[0];
    const parse = spec.parse;
    const value =
      parse && typeof raw === 'string'
        ? parse(raw, name)
        : Array.isArray(raw)
          ? (spec.collect ?? ((v) => v))(parse ? raw.map((r: string) => parse(r, name)) : raw)
          : raw;
    // a field of a key that also takes a plain string (`llm`: a model spec) keeps that string as the model
    const before = overrides[spec.key];
    if (spec.field) overrides[spec.key] = { ...(typeof before === 'string' ? { model: before } : (before as object | undefined)), [spec.field]: value };
    else overrides[spec.key] = value;
  }
  // `--backend slurm` runs whole instances on the cluster; validation and evaluation keep the configured engine(s)
  const docker = overrides.docker as { backend?: unknown } | undefined;
  if (docker?.backend === 'slurm') {
    const { backend: _slurm, ...rest } = docker;
    if (Object.keys(rest).length) overrides.docker = rest;
    else delete overrides.docker;
    overrides.cluster = { ...(overrides.cluster as object | undefined), scheduler: 'slurm' };
  }
  return overrides;
}

/** Every top-level config key: `true` when RUN_FLAGS sets it, else why it is a config-file key only. */
export const RUN_FLAG_COVERAGE: { readonly [K in keyof Required<RunConfigInput>]: true | string } = {
  runId: true,
  runsDir: true,
  dataset: true,
  instances: true,
  pattern: true,
  repos: true,
  limit: true,
  shard: true,
  cacheDir: true,
  mirrors: true,
  mirrorsDir: true,
  embedder: true,
  chromaUrl: true,
  llm: true,
  seed: true,
  localizer: true,
  topFiles: true,
  handoff: true,
  stopAfter: true,
  docker: true,
  cluster: true,
  budget: true,
  concurrency: true,
  functionLevel: 'a JSON object of the function-level stage options (README "Agentless localization")',
  lineLevel: 'a JSON object of the line-level stage options',
  repair: 'the repair sampling settings (samples, temperatures, token limits) belong to an experiment file',
  validation: 'regression / reproduction switches and sample counts belong to an experiment file',
  evaluation: 'evaluation switches and limits belong to an experiment file (locfix evaluate has its own flags)',
};
