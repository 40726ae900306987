/**
 * The flags of `locfix run`, declared in one table with the config key each one sets, so that a flag and a config
 * key cannot drift apart. `RUN_FLAG_COVERAGE` names every top-level config key, the way vitest's CLI option table
 * does: `true` where flags set it, or the reason it is set in the config file only; the compiler refuses a
 * config key that is missing there, and test/core/run-config.test.ts checks the table against RUN_FLAGS.
 */
import { DEFAULT_LOCALIZER, ORACLE_LEVELS, type RunConfigInput } from '../../src/config.ts';
import { HANDOFFS } from '../../src/artifacts/localization.ts';
import { IMAGE_ARCHS } from '../../src/harness/instance-spec.ts';
import { BACKEND_NAMES, CACHE_LEVELS, NETWORK_MODES } from '../../src/sandbox/types.ts';
import { TEST_MACHINERY_POLICIES } from '../../src/harness/constants.ts';
import { localizerNames } from '../../localizer/registry.ts';
import { parseHarnessVersion } from '../../validation/grading-rules.ts';
import { integer, jsonObject, keyed, list, mirrorSpec, nonNegativeInt, oneOf, optionName, positiveInt, positiveNumber } from './flag-values.ts';

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
  /** a `--no-…` flag: sets the key to false when given, and nothing otherwise */
  negate?: boolean;
}

/** Typed entry: `field` must be a field of that config key's object. */
function flag<K extends keyof RunConfigInput>(
  key: K,
  spec: Omit<RunFlag, 'key' | 'field'> & { field?: keyof Extract<Exclude<RunConfigInput[K], undefined>, object> & string },
): RunFlag {
  return { key, ...spec };
}

export const RUN_FLAGS: readonly RunFlag[] = [
  flag('runId', { flag: '--run-id <id>', description: 'names runs/<id>' }),
  flag('dataset', { flag: '--dataset <source>', description: 'SWE-bench instances: file or Hub name' }),
  flag('instances', { flag: '--instances <ids>', description: 'comma-separated instance ids', parse: list }),
  flag('pattern', { flag: '--pattern <pattern>', description: 'instance ids matching this glob or /regex/' }),
  flag('repos', { flag: '--repo <owner/name>', description: 'instances of this repository (repeatable)', repeat: true }),
  flag('limit', { flag: '--limit <n>', description: 'at most this many instances', parse: positiveInt }),
  flag('shard', { flag: '--shard <i/n>', description: 'only part i of n of the selection; `locfix merge` joins the parts' }),
  flag('llm', { flag: '--llm <spec>', description: 'chat model, e.g. ollama:gpt-oss:120b or openai:gpt-4o@http://localhost:8000/v1' }),
  flag('llm', {
    field: 'timeoutMs',
    flag: '--llm-timeout <seconds>',
    description: 'per model request (default 300)',
    parse: (t, f) => positiveInt(t, f) * 1000,
  }),
  flag('llm', { field: 'maxRetries', flag: '--llm-retries <n>', description: 'retries of a failed model request (default 4)', parse: nonNegativeInt }),
  flag('localizer', {
    field: 'name',
    flag: '--localizer <name>',
    description: `file localizer: ${localizerNames().join(' | ')} (default ${DEFAULT_LOCALIZER})`,
  }),
  flag('localizer', {
    field: 'options',
    flag: '--localizer-options <json>',
    description: 'the localizer\'s options as JSON, e.g. {"retrieval":{"weights":{"history":0}}}',
    parse: jsonObject,
  }),
  flag('handoff', {
    flag: '--handoff <contract>',
    description: 'top (default: the first topFiles) | soft (those, and later stages may look beyond) | hard (only the predicted set)',
    parse: oneOf(HANDOFFS),
  }),
  flag('oracleFrom', {
    flag: '--oracle-from <level>',
    description: 'an upper bound: localization from the gold patch down to file | function | line; every later stage real',
    parse: oneOf(ORACLE_LEVELS),
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
    parse: positiveInt,
  }),
  flag('cacheDir', { flag: '--cache-dir <dir>', description: 'mirrors, embeddings, LLM responses, local Chroma' }),
  flag('chromaUrl', { flag: '--chroma-url <url>', description: 'a running Chroma server' }),
  flag('runsDir', { flag: '--runs-dir <dir>', description: 'where run directories go (default runs)' }),
  flag('sandbox', {
    field: 'backend',
    flag: '--backend <name>',
    description: 'local (default) | docker-pool | bwrap (no daemon): where validation and evaluation run',
    parse: (t, f) => {
      if (t === 'slurm') throw new Error('--backend slurm is now --scheduler slurm: the scheduler runs whole instances, --backend says where each sandboxes');
      return oneOf(BACKEND_NAMES)(t, f);
    },
  }),
  flag('cluster', {
    field: 'scheduler',
    flag: '--scheduler <name>',
    description: 'none (default) | slurm: whole pipeline instances as a job array (cluster.*), each task sandboxing with --backend',
    parse: (t, f) => oneOf(['none', 'slurm'])(t, f),
  }),
  flag('sandbox', {
    field: 'imageStore',
    flag: '--image-store <dir>',
    description: "the bwrap backend's images, unpacked root filesystems (default <cache-dir>/sandbox-images; locfix images import)",
  }),
  flag('sandbox', {
    field: 'engines',
    flag: '--engine <url[=n]>',
    description: 'an engine of the docker-pool backend, e.g. unix:///run/docker2.sock=2 (repeatable)',
    repeat: true,
  }),
  flag('sandbox', {
    field: 'answerTimeoutSeconds',
    flag: '--engine-timeout <seconds>',
    description: 'an engine that does not answer a request within this long is not answering (default 60)',
    parse: positiveNumber,
  }),
  flag('cluster', { field: 'shards', flag: '--shards <n>', description: 'slurm: parts the run is split into (default 4)', parse: positiveInt }),
  flag('cluster', { field: 'partition', flag: '--partition <name>', description: 'slurm: partition of the tasks' }),
  flag('cluster', { field: 'timeLimit', flag: '--time-limit <time>', description: 'slurm: wall-clock limit per task, e.g. 02:00:00' }),
  flag('cluster', { field: 'cpusPerTask', flag: '--cpus-per-task <n>', description: 'slurm: CPUs per task (default 2)', parse: positiveInt }),
  flag('cluster', { field: 'memory', flag: '--mem <size>', description: 'slurm: memory per task, e.g. 8G (default)' }),
  flag('cluster', {
    field: 'maxAttempts',
    flag: '--max-attempts <n>',
    description: 'slurm: submissions of a failing shard before it is given up (default 3)',
    parse: positiveInt,
  }),
  flag('stopAfter', { flag: '--stop-after <stage>', description: 'stop after this stage, e.g. localize-files' }),
  flag('seed', { flag: '--seed <n>', description: 'seed recorded in the manifest and used for sampling', parse: integer }),
  flag('budget', {
    field: 'instanceTokens',
    flag: '--max-instance-tokens <n>',
    description: 'spend cap per instance: tokens',
    parse: positiveInt,
  }),
  flag('budget', { field: 'instanceDollars', flag: '--max-instance-dollars <usd>', description: 'spend cap per instance: dollars', parse: positiveNumber }),
  flag('budget', { field: 'runTokens', flag: '--max-run-tokens <n>', description: 'spend cap of the run: tokens', parse: positiveInt }),
  flag('budget', { field: 'runDollars', flag: '--max-run-dollars <usd>', description: 'spend cap of the run: dollars', parse: positiveNumber }),
  flag('concurrency', {
    field: 'instances',
    flag: '--concurrency <n>',
    description: 'instances in flight through the pipeline',
    parse: positiveInt,
  }),
  // the sandboxes of validation and evaluation; `locfix evaluate` takes the same flags (EVALUATE_FLAGS)
  flag('concurrency', { field: 'sandboxes', flag: '--max-workers <n>', description: 'sandboxes at once (2; evaluate: 1)', parse: positiveInt }),
  flag('sandbox', { field: 'memoryGiB', flag: '--memory <GiB>', description: 'memory limit per container (default 4)', parse: positiveNumber }),
  flag('sandbox', { field: 'cpus', flag: '--cpus <n>', description: 'CPU limit per container (default 1)', parse: positiveNumber }),
  flag('sandbox', { field: 'baseImage', flag: '--base-image <image>', description: 'base image for spec-built environments (default locfix/base:bookworm)' }),
  flag('sandbox', {
    field: 'envImages',
    flag: '--env-image <repo[@version]=image>',
    description: 'environment image to build instance images on (repeatable)',
    repeat: true,
    parse: keyed,
    collect: (pairs) => Object.fromEntries(pairs as Array<[string, string]>),
  }),
  flag('sandbox', {
    field: 'instanceSetup',
    flag: '--instance-setup <repo[@version]=command>',
    description: 'command run in /testbed on an --env-image instead of the spec install (repeatable; several for one key run in order)',
    repeat: true,
    parse: keyed,
    collect: (pairs) => {
      const setup: Record<string, string[]> = {};
      for (const [key, command] of pairs as Array<[string, string]>) (setup[key] ??= []).push(command);
      return setup;
    },
  }),
  flag('sandbox', {
    field: 'useOfficialImages',
    flag: '--no-official-images',
    description: 'do not use official swebench/sweb.eval.* images even when present',
    negate: true,
  }),
  flag('sandbox', { field: 'pullOfficialImages', flag: '--pull', description: 'try to pull absent official images (contacts a remote registry)' }),
  flag('sandbox', {
    field: 'arch',
    flag: '--arch <arch>',
    description: `official images' architecture: ${IMAGE_ARCHS.join(' | ')}`,
    parse: oneOf(IMAGE_ARCHS),
  }),
  flag('sandbox', {
    field: 'cacheLevel',
    flag: '--cache-level <level>',
    description: `images kept after evaluation, as the harness: ${CACHE_LEVELS.join(' | ')} (default env: instance images removed)`,
    parse: oneOf(CACHE_LEVELS),
  }),
  flag('evaluation', {
    field: 'timeoutSeconds',
    flag: '--timeout <seconds>',
    description: 'timeout of one evaluation script (default 1800)',
    parse: positiveInt,
  }),
  flag('evaluation', {
    field: 'network',
    flag: '--network <mode>',
    description: "evaluation sandbox network: none (default, offline), or the engine's bridge / host for parity with the harness",
    parse: oneOf(NETWORK_MODES),
  }),
  flag('evaluation', {
    field: 'harness',
    flag: '--harness <version>',
    description: 'grade as SWE-bench harness 5.0.2 (default) or 4.1 grades (a published run made before 5.0 regrades under 4.1)',
    parse: (t) => parseHarnessVersion(t),
  }),
  flag('evaluation', {
    field: 'unforgeable',
    flag: '--no-unforgeable',
    description: "grade exactly as the harness release does, without locfix's rule that no verdict rests on output the evaluated code can write",
    negate: true,
  }),
  flag('evaluation', {
    field: 'testMachinery',
    flag: '--test-machinery <policy>',
    description:
      "the model patch's test files and runner configuration: restore (default: kept at the base commit), keep (applied as written), refuse (the instance is not graded); with --no-unforgeable, keep",
    parse: oneOf(TEST_MACHINERY_POLICIES),
  }),
  flag('evaluation', {
    field: 'compareHarness',
    flag: '--compare-harness <versions>',
    description:
      'after evaluating, grade every log again under these releases (comma-separated, e.g. 4.1) and list where they disagree with --harness, and by which rule',
    parse: (t) => list(t)!.map((v) => parseHarnessVersion(v)),
  }),
];

/** The config keys `locfix evaluate` takes from the same table: where it reads and writes, and the sandboxes. */
const EVALUATE_KEYS = new Set([
  'runId',
  'runsDir',
  'dataset',
  'mirrorsDir',
  'cacheDir',
  'sandbox',
  'concurrency.sandboxes',
  'evaluation.timeoutSeconds',
  'evaluation.network',
  'evaluation.harness',
  'evaluation.unforgeable',
  'evaluation.testMachinery',
  'evaluation.compareHarness',
]);
export const EVALUATE_FLAGS: readonly RunFlag[] = RUN_FLAGS.filter((f) => EVALUATE_KEYS.has(f.key) || EVALUATE_KEYS.has(`${f.key}.${f.field}`));

/** The config overrides the given flags make (unset flags make none). */
export function overridesFrom(flags: Record<string, unknown>, table: readonly RunFlag[] = RUN_FLAGS): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  for (const spec of table) {
    const raw = flags[optionName(spec.flag)];
    if (raw === undefined || (Array.isArray(raw) && raw.length === 0)) continue;
    if (spec.negate && raw !== false) continue; // commander's default for a `--no-…` flag
    const name = spec.flag.split(' ')[0];
    const parse = spec.parse;
    // commander parsed the values already (flag-table.ts gives every command the flag's parser); a caller passing
    // the flags' text (a test, a script) gets them parsed here
    const parseText = (r: unknown) => (parse && typeof r === 'string' ? parse(r, name) : r);
    const value = Array.isArray(raw) && spec.repeat ? (spec.collect ?? ((v) => v))(raw.map(parseText)) : parseText(raw);
    // a field of a key that also takes a plain string (`llm`: a model spec) keeps that string as the model
    const before = overrides[spec.key];
    if (spec.field) overrides[spec.key] = { ...(typeof before === 'string' ? { model: before } : (before as object | undefined)), [spec.field]: value };
    else overrides[spec.key] = value;
  }
  return overrides;
}

/** Each field of an object-valued config key: `true` when RUN_FLAGS sets it, else why it is a config-file field only. */
type FieldCoverage<T> = { readonly [F in keyof Required<Exclude<T, undefined | string>>]: true | string };
/** The object-valued config keys whose fields are listed one by one. */
type ObjectKeys = 'llm' | 'localizer' | 'repair' | 'validation' | 'evaluation' | 'sandbox' | 'concurrency' | 'budget' | 'cluster';

/**
 * Every config key, and every field of the object-valued ones: `true` when RUN_FLAGS sets it, else why it is set
 * in the config file only. The compiler refuses a key or field missing here; test/core/run-config.test.ts checks
 * that what says `true` has a flag and that every flag is listed.
 */
export const RUN_FLAG_COVERAGE: { readonly [K in keyof Required<RunConfigInput>]: K extends ObjectKeys ? FieldCoverage<RunConfigInput[K]> : true | string } = {
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
  seed: true,
  topFiles: true,
  handoff: true,
  oracleFrom: true,
  stopAfter: true,
  llm: {
    model: true,
    timeoutMs: true,
    maxRetries: true,
    baseURL: 'part of the --llm spec (MODEL@URL)',
    apiKeyEnv: 'the name of the environment variable with the API key belongs to an experiment file',
    concurrency: 'requests at once per model server belong to an experiment file',
    maxPromptTokens: 'a property of the model (its context window)',
    maxReplyChars: 'the reply size cap belongs to an experiment file',
    retryBaseDelayMs: 'retry pacing belongs to an experiment file',
    retryMaxDelayMs: 'retry pacing belongs to an experiment file',
    circuitBreaker: 'circuit-breaker thresholds belong to an experiment file',
    prices: 'a table of model prices belongs to an experiment file',
    cacheDir: 'where model answers are cached; --cache-dir sets the cache of everything',
    supportsN: 'a property of the model server (openai provider)',
    maxTokensField: 'a property of the model server (openai provider)',
    numCtx: 'a property of the model (ollama provider)',
    think: 'a property of the model (ollama provider)',
    keepAlive: 'a property of the model server (ollama provider)',
    extra: 'provider request fields belong to an experiment file',
  },
  localizer: { name: true, options: true },
  functionLevel: 'a JSON object of the function-level stage options (localizer/hierarchy/options.ts)',
  lineLevel: 'a JSON object of the line-level stage options (localizer/hierarchy/options.ts)',
  repair: {
    samplesPerSet: 'the repair sampling settings belong to an experiment file',
    greedy: 'the repair sampling settings belong to an experiment file',
    temperature: 'the repair sampling settings belong to an experiment file',
    maxTokens: 'the repair sampling settings belong to an experiment file',
    contextWindow: 'the repair sampling settings belong to an experiment file',
  },
  validation: {
    regression: 'regression / reproduction switches belong to an experiment file',
    reproduction: 'regression / reproduction switches belong to an experiment file',
    reproductionSamples: 'reproduction sample counts belong to an experiment file',
    timeoutSeconds: 'validation limits belong to an experiment file',
  },
  evaluation: {
    enabled: 'evaluation is on unless an experiment file turns it off (or --stop-after)',
    timeoutSeconds: true,
    network: true,
    harness: true,
    unforgeable: true,
    testMachinery: true,
    compareHarness: true,
  },
  sandbox: {
    backend: true,
    engines: true,
    answerTimeoutSeconds: true,
    imageStore: true,
    memoryGiB: true,
    cpus: true,
    baseImage: true,
    envImages: true,
    instanceSetup: true,
    useOfficialImages: true,
    pullOfficialImages: true,
    arch: true,
    cacheLevel: true,
  },
  concurrency: { instances: true, sandboxes: true, index: 'index builds at once (memory-bound) belong to an experiment file' },
  budget: { instanceTokens: true, instanceDollars: true, runTokens: true, runDollars: true },
  cluster: {
    scheduler: true,
    shards: true,
    partition: true,
    timeLimit: true,
    cpusPerTask: true,
    memory: true,
    maxAttempts: true,
    maxRunning: 'tasks running at once (sbatch %N) belong to an experiment file',
    sbatchArgs: 'extra sbatch arguments belong to an experiment file',
    pollSeconds: 'how often the driver polls the scheduler belongs to an experiment file',
  },
};
