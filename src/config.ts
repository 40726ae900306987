/**
 * The configuration of a whole experiment (`locfix run --config FILE`), validated with zod so a typo names
 * its field instead of silently falling back to a default. CLI flags override file values; every default
 * below is the Agentless 1.5 / BLAgent paper setting unless its comment says otherwise.
 */
import { IMAGE_ARCHS } from './harness/instance-spec.ts';
import { TEST_MACHINERY_POLICIES } from './harness/constants.ts';
import { DEFAULT_HARNESS, HARNESS_VERSIONS } from './languages/harness-releases.ts';
import { BACKEND_NAMES, CACHE_LEVELS, NETWORK_MODES } from './sandbox/types.ts';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { positiveInt } from './util/schema-types.ts';
import { DEFAULT_TOP_FILES, HANDOFFS } from './artifacts/localization.ts';
import { LlmConfigSchema, llmSection } from './llm/config.ts';
import { STAGE } from './run/stage.ts';
import { KindedError } from './run/kinded-error.ts';
import { ERROR_KINDS } from './util/error-kinds.ts';
import { imageReferenceProblem } from './util/image-reference.ts';
import { withCurrentKeys } from './util/legacy.ts';

/** An image name that reaches an engine's API: refused at the configuration, never sent (src/util/image-reference.ts). */
const imageReference = z.string().superRefine((image, ctx) => {
  const problem = imageReferenceProblem(image);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * The file localizer of every command that is not told one (`run`, `localize`): the model-free hybrid retrieval,
 * which needs no model server, so a first run works on any machine.
 */
export const DEFAULT_LOCALIZER = 'retrieval';

/** The levels an oracle can take over, coarsest first: each includes the ones before it. */
export const ORACLE_LEVELS = ['file', 'function', 'line'] as const;
export type OracleLevel = (typeof ORACLE_LEVELS)[number];

export const RunConfigSchema = z
  .object({
    /** names runs/<runId>; several runs of one configuration differ only here (and in seed) */
    runId: z.string().regex(/^[\w.-]+$/, 'letters, digits, ".", "_" and "-" only'),
    runsDir: z.string().default('runs'),
    /** .json/.jsonl/.parquet file or a Hub name such as SWE-bench/SWE-bench_Lite */
    dataset: z.string().min(1),
    instances: z.array(z.string()).optional(),
    pattern: z.string().optional(),
    repos: z.array(z.string()).optional(),
    limit: positiveInt().optional(),
    /** "i/n": run only part i of n of the selection (a node of a split run; `locfix merge` joins the parts) */
    shard: z
      .string()
      .regex(/^\d+\/\d+$/, { message: 'must look like i/n, e.g. 2/8' })
      .optional(),
    /** mirrors, embeddings, LLM responses, the local Chroma database */
    cacheDir: z.string().optional(),
    mirrors: z.record(z.string(), z.string()).default({}),
    mirrorsDir: z.string().optional(),
    /** lexical | ollama:nomic-embed-text[@url] | openai:<model>[@url] */
    embedder: z.string().default('lexical'),
    /** a running Chroma server; default: locfix starts a local one */
    chromaUrl: z.string().optional(),
    /** model spec or full LLM config; required by every LLM stage */
    llm: z.union([z.string(), LlmConfigSchema]).optional(),
    /** recorded in the manifest; LLM stages derive their sample seeds from it */
    seed: z.number().int().default(0),
    /**
     * the localizer and its options, and below the function- and line-level stages' options, as the user wrote
     * them (what a manifest records and a resume compares): this layer sits below the localizers and cannot name
     * their schemas, so each block is parsed once by its own schema at the run's edge (app/engine/resolved-run.ts)
     */
    localizer: z
      .object({
        name: z.string().default(DEFAULT_LOCALIZER),
        options: z.record(z.string(), z.unknown()).default({}),
      })
      .strict()
      .default({ name: DEFAULT_LOCALIZER, options: {} }),
    /** files handed from file localization to the function level (Agentless: 3) */
    topFiles: positiveInt().default(DEFAULT_TOP_FILES),
    /**
     * how function/line localization take the file localizer's list. "top" (default): the first topFiles,
     * as Agentless does. "soft": those as ranked candidates, and places the model names in other files at
     * the base commit are followed. "hard": only the localizer's predicted set (the explorer's answer,
     * else the first topFiles) is visible.
     */
    handoff: z.enum(HANDOFFS).default('top'),
    /**
     * perfect localization from the gold patch down to this level (localizer/oracle/): `file` replaces the
     * file localizer, `function` also the function level, `line` also the line level; every later stage stays
     * real. An upper bound for analysis (`locfix ladder` runs each), never a result. Absent: none.
     */
    oracleFrom: z.enum(ORACLE_LEVELS, { message: `must be one of ${ORACLE_LEVELS.join(', ')}` }).optional(),
    functionLevel: z.record(z.string(), z.unknown()).default({}),
    lineLevel: z.record(z.string(), z.unknown()).default({}),
    repair: z
      .object({
        samplesPerSet: positiveInt().default(10),
        greedy: z.boolean().default(true),
        temperature: z.number().min(0).max(2).default(0.8),
        maxTokens: positiveInt().default(1024),
        contextWindow: z.number().int().nonnegative().default(10),
      })
      .strict()
      .default({ samplesPerSet: 10, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 }),
    validation: z
      .object({
        regression: z.boolean().default(true),
        reproduction: z.boolean().default(true),
        reproductionSamples: positiveInt().default(40),
        timeoutSeconds: positiveInt().default(600),
      })
      .strict()
      .default({ regression: true, reproduction: true, reproductionSamples: 40, timeoutSeconds: 600 }),
    evaluation: z
      .object({
        enabled: z.boolean().default(true),
        timeoutSeconds: positiveInt().default(1800),
        /** the sandbox network of evaluation: none (offline), or the engine's bridge / host for parity with the harness */
        network: z.enum(NETWORK_MODES, { message: `must be one of ${NETWORK_MODES.join(', ')}` }).default('none'),
        /** whose grading rules: SWE-bench harness 5.0.2 (default) or 4.1 (validation/grading-rules.ts) */
        harness: z.enum(HARNESS_VERSIONS, { message: `must be one of ${HARNESS_VERSIONS.join(', ')}` }).default(DEFAULT_HARNESS),
        /** locfix's rule on top of the harness': no verdict rests on output the evaluated code can write */
        unforgeable: z.boolean().default(true),
        /** the model patch's test files and runner configuration: kept at the base commit (restore), applied, or refused (validation/test-machinery.ts) */
        testMachinery: z.enum(TEST_MACHINERY_POLICIES, { message: `must be one of ${TEST_MACHINERY_POLICIES.join(', ')}` }).default('restore'),
        /** further releases every log is graded under after `locfix evaluate`, listing where they disagree (validation/harness-diff.ts) */
        compareHarness: z.array(z.enum(HARNESS_VERSIONS, { message: `must be one of ${HARNESS_VERSIONS.join(', ')}` })).default([]),
      })
      .strict()
      .default({
        enabled: true,
        timeoutSeconds: 1800,
        network: 'none',
        harness: DEFAULT_HARNESS,
        unforgeable: true,
        testMachinery: 'restore',
        compareHarness: [],
      }),
    /** the sandboxes of validation and evaluation, of whichever kind (`backend`); `docker` in configs before issue 43 */
    sandbox: z
      .object({
        /** image the local environment layers start from (default locfix/base:bookworm) */
        baseImage: imageReference.optional(),
        /** user-named environment images: "owner/name@version" or "owner/name" → image */
        envImages: z.record(z.string(), imageReference).default({}),
        /** commands run in /testbed on a user-named environment image instead of the spec's install */
        instanceSetup: z.record(z.string(), z.array(z.string())).default({}),
        /** use official swebench/sweb.eval.* images when present locally */
        useOfficialImages: z.boolean().default(true),
        /** try `docker pull` for absent official images (off: a pull reaches a remote registry) */
        pullOfficialImages: z.boolean().default(false),
        /** the architecture official image names carry */
        arch: z.enum(IMAGE_ARCHS, { message: `must be one of ${IMAGE_ARCHS.join(', ')}` }).default('x86_64'),
        /** which images locfix built are kept, as the harness' --cache_level */
        cacheLevel: z.enum(CACHE_LEVELS, { message: `must be one of ${CACHE_LEVELS.join(', ')}` }).default('env'),
        memoryGiB: z.number().positive().default(4),
        cpus: z.number().positive().default(1),
        /**
         * where validation and evaluation run: one Docker engine (DOCKER_HOST or the local socket), a pool of engines,
         * or bubblewrap sandboxes on this host with no daemon (sandbox/bwrap/)
         */
        backend: z.enum(BACKEND_NAMES, { message: `must be one of ${BACKEND_NAMES.join(', ')}` }).default(BACKEND_NAMES[0]),
        /** the bwrap backend's images: a folder of unpacked root filesystems (default <cacheDir>/sandbox-images) */
        imageStore: z.string().min(1).optional(),
        /** the pool's engines, "URL" or "URL=N" (N sandboxes at once): unix://…, tcp://host:port, ssh://user@host */
        engines: z.array(z.string().min(1)).default([]),
        /** how long an engine may take to answer a request before it counts as not answering (docker/engine-client.ts) */
        answerTimeoutSeconds: z.number().positive().default(60),
      })
      .strict()
      .refine((d) => d.backend !== 'docker-pool' || d.engines.length > 0, {
        message: 'backend "docker-pool" needs at least one engine (sandbox.engines, --engine)',
      })
      .default({
        envImages: {},
        instanceSetup: {},
        useOfficialImages: true,
        pullOfficialImages: false,
        arch: 'x86_64',
        cacheLevel: 'env',
        memoryGiB: 4,
        cpus: 1,
        backend: 'local',
        engines: [],
        answerTimeoutSeconds: 60,
      }),
    concurrency: z
      .object({
        /** instances in flight through the pipeline */
        instances: positiveInt().default(4),
        /** sandboxes at once (`docker` in configs before issue 43) */
        sandboxes: positiveInt().default(2),
        /** repository indexes built at once (CPU- and memory-bound) */
        index: positiveInt().default(1),
      })
      .strict()
      .default({ instances: 4, sandboxes: 2, index: 1 }),
    /**
     * Spend caps on prompt + completion tokens the server generates and on dollars at the model's price
     * (llm.prices, src/llm/config.ts). An instance that reaches its cap is recorded as budget-exhausted; a
     * run that reaches its cap stops, and resumes when rerun with a higher one. None by default.
     */
    budget: z
      .object({
        instanceTokens: positiveInt().optional(),
        instanceDollars: z.number().positive().optional(),
        runTokens: positiveInt().optional(),
        runDollars: z.number().positive().optional(),
      })
      .strict()
      .default({}),
    /**
     * Whole pipeline instances on a cluster: `scheduler: "slurm"` splits the run into `shards` parts submitted
     * as one `sbatch` job array (app/cluster/); each task runs `locfix run --shard i/n` on its node, and the
     * parts are merged into runs/<runId> at the end. "none" (default): this process runs every instance.
     */
    cluster: z
      .object({
        scheduler: z.enum(['none', 'slurm'], { message: 'must be "none" or "slurm"' }).default('none'),
        /** parts the run is split into (one array task each) */
        shards: positiveInt().default(4),
        /** sbatch --partition; default: the cluster's default partition */
        partition: z.string().min(1).optional(),
        /** sbatch --time per task, e.g. "02:00:00"; default: the partition's limit */
        timeLimit: z.string().min(1).optional(),
        cpusPerTask: positiveInt().default(2),
        /** sbatch --mem per task, e.g. "8G" */
        memory: z
          .string()
          .regex(/^\d+[KMGT]?$/, { message: 'must look like 8G or 8000M' })
          .default('8G'),
        /** tasks of the array running at once (sbatch --array=…%N); default: as many as the cluster allows */
        maxRunning: positiveInt().optional(),
        /** submissions of one shard before it is given up (a failed task is submitted again until then) */
        maxAttempts: positiveInt().default(3),
        /** seconds between two squeue polls */
        pollSeconds: z.number().positive().default(10),
        /** more sbatch arguments, e.g. ["--account=lab", "--qos=short"] */
        sbatchArgs: z.array(z.string()).default([]),
      })
      .strict()
      .default({ scheduler: 'none', shards: 4, cpusPerTask: 2, memory: '8G', maxAttempts: 3, pollSeconds: 10, sbatchArgs: [] }),
    /** stop after this stage (e.g. "localize-files" for a localization-only run) */
    /** the last stage to run; a misspelled name fails when the config is read, naming the stages */
    stopAfter: z.enum(STAGE, { message: `must be one of ${Object.values(STAGE).join(', ')}` }).optional(),
  })
  .strict();

export type RunConfig = z.infer<typeof RunConfigSchema>;

/** The sandbox settings a command outside `run` uses (the explorer's workspaces): the config's defaults, no whole run config. */
export function defaultSandboxSettings(cacheDir?: string): Pick<RunConfig, 'sandbox' | 'concurrency' | 'cacheDir'> {
  return {
    sandbox: RunConfigSchema.shape.sandbox.parse(undefined),
    concurrency: RunConfigSchema.shape.concurrency.parse(undefined),
    ...(cacheDir ? { cacheDir } : {}),
  };
}
export type RunConfigInput = z.input<typeof RunConfigSchema>;

/** zod issues as one line per field: "repair.temperature: Too big: expected number to be <=2". */
export function formatConfigIssues(error: z.ZodError, source: string): string {
  return error.issues.map((i) => `${source}: ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('\n');
}

export function parseRunConfig(input: unknown, source = 'config'): RunConfig {
  const parsed = RunConfigSchema.safeParse(withCurrentKeys(input, source));
  if (!parsed.success) throw new Error(formatConfigIssues(parsed.error, source));
  return parsed.data;
}

/**
 * Reads a JSON config file and applies overrides (already parsed CLI flags) on top of it. An override of an
 * object-valued key sets its fields and keeps the file's others (`--concurrency` keeps `concurrency.sandboxes`);
 * a different localizer name starts from no options, since the file's belonged to the other localizer.
 */
export async function loadRunConfig(file: string | undefined, overrides: Record<string, unknown> = {}): Promise<RunConfig> {
  let base: Record<string, unknown> = {};
  if (file) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read config ${file}: ${(err as Error).message}`);
    }
    try {
      base = withCurrentKeys(JSON.parse(text), file) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
    }
    // relative paths in a config file are relative to the file, so configs can live next to their data
    for (const key of ['dataset', 'mirrorsDir', 'cacheDir', 'runsDir'] as const) {
      const value = base[key];
      if (typeof value === 'string' && (value.startsWith('./') || value.startsWith('../'))) base[key] = path.resolve(path.dirname(file), value);
    }
  }
  const merged: Record<string, unknown> = { ...base };
  const missing = (['runId', 'dataset'] as const).filter((key) => merged[key] === undefined && overrides[key] === undefined);
  if (missing.length) {
    // what a user who typed `locfix run` needs to hear, instead of the schema's "expected string, received undefined"
    throw new KindedError(
      ERROR_KINDS.configuration,
      `locfix run needs ${missing.map((k) => (k === 'runId' ? 'a run id (--run-id ID, or "runId" in the config)' : 'a dataset (--dataset FILE or Hub name, or "dataset" in the config)')).join(' and ')}.\n` +
        'Usually: locfix run --config experiment.json (README: "A full SWE-bench Lite experiment"); `locfix run --help` lists every flag',
    );
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const before = merged[key];
    const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
    if (isObject(value) && isObject(before)) merged[key] = { ...before, ...value };
    // limits given by flags (`--llm-timeout`) on a model the config names as a spec string
    else if (isObject(value) && typeof before === 'string' && !('model' in value)) merged[key] = { model: before, ...value };
    else merged[key] = value;
  }
  const localizer = merged.localizer as { name?: unknown; options?: unknown } | undefined;
  const fileLocalizer = base.localizer as { name?: unknown } | undefined;
  const overridden = overrides.localizer as { name?: unknown; options?: unknown } | undefined;
  if (localizer && overridden?.name !== undefined && overridden.name !== (fileLocalizer?.name ?? DEFAULT_LOCALIZER) && overridden.options === undefined) {
    merged.localizer = { ...localizer, options: {} };
  }
  return parseRunConfig(merged, file ?? 'flags');
}

/**
 * The settings that decide what a run's artifacts contain: the localizer and its options, the models,
 * seed, repair, validation and evaluation settings, the Docker environment. Selection, paths, concurrency
 * and time limits are left out: changing them on a resume changes which or how fast, not what.
 */
export function artifactSettings(config: RunConfig): Record<string, unknown> {
  const llm = llmSection(config.llm);
  const llmModel = llm?.model;
  const llmExtra = llm && 'extra' in llm ? llm.extra : undefined;
  return {
    localizer: config.localizer,
    llm: llmModel ?? null,
    ...(llmExtra ? { llmExtra } : {}),
    embedder: config.embedder,
    seed: config.seed,
    topFiles: config.topFiles,
    // recorded only when not the default, so run folders made before handoffs existed still resume
    ...(config.handoff !== 'top' ? { handoff: config.handoff } : {}),
    ...(config.oracleFrom ? { oracleFrom: config.oracleFrom } : {}),
    functionLevel: config.functionLevel,
    lineLevel: config.lineLevel,
    repair: config.repair,
    validation: {
      regression: config.validation.regression,
      reproduction: config.validation.reproduction,
      reproductionSamples: config.validation.reproductionSamples,
    },
    evaluation: {
      enabled: config.evaluation.enabled,
      network: config.evaluation.network,
      // recorded only when not the default, so run folders made before grading rules were chosen still resume
      ...(config.evaluation.harness !== DEFAULT_HARNESS ? { harness: config.evaluation.harness } : {}),
      ...(config.evaluation.unforgeable ? {} : { unforgeable: false }),
      ...(config.evaluation.testMachinery !== 'restore' ? { testMachinery: config.evaluation.testMachinery } : {}),
    },
    // recorded under the section's old name: run folders made before the rename still resume
    docker: { baseImage: config.sandbox.baseImage ?? null, envImages: config.sandbox.envImages, instanceSetup: config.sandbox.instanceSetup },
  };
}

/** The artifact settings of a recorded config (a manifest written before settings were recorded); undefined when
 * the config is of an older schema, so there is nothing to compare against. */
export function artifactSettingsOfConfig(config: Record<string, unknown>): Record<string, unknown> | undefined {
  try {
    return artifactSettings(parseRunConfig(config));
  } catch {
    return undefined;
  }
}
