/** `locfix run` configuration: one flag table over the config keys, localizer options checked before any work. */
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactSettings, loadRunConfig, parseRunConfig } from '../../src/config.ts';
import { settingsChanges } from '../../src/util/settings-diff.ts';
import { overridesFrom, RUN_FLAGS } from '../../app/commands/run-flags.ts';
import { EVALUATE_FLAGS, RUN_FLAG_COVERAGE } from '../../app/commands/run-flags.ts';
import { evaluationConfig } from '../../app/commands/evaluate.ts';
import { createLocalizer, localizerNames, validateLocalizer } from '../../localizer/registry.ts';
import { assembleStages } from '../../app/engine/stages.ts';
import { resolveRun } from '../../app/engine/resolved-run.ts';
import { runExperiment } from '../../app/engine/experiment.ts';
import { isModelFunctionLevel } from '../../localizer/hierarchy/options.ts';

async function configFile(content: unknown): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-config-'));
  const file = path.join(dir, 'run.json');
  await writeFile(file, JSON.stringify(content));
  return file;
}

describe('run flags', () => {
  it('turn into config overrides through the one table, nested fields merged into the file', async () => {
    const overrides = overridesFrom({ runId: 'r2', instances: 'a__b-1, a__b-2', repo: ['o/r', 'o/s'], limit: '3', concurrency: '6', seed: '7' });
    expect(overrides).toEqual({ runId: 'r2', instances: ['a__b-1', 'a__b-2'], repos: ['o/r', 'o/s'], limit: 3, concurrency: { instances: 6 }, seed: 7 });
    const file = await configFile({ runId: 'r1', dataset: 'x.jsonl', concurrency: { sandboxes: 3 }, localizer: { name: 'blagent', options: { m: 8 } } });
    const config = await loadRunConfig(file, overrides);
    expect(config.concurrency).toEqual({ instances: 6, sandboxes: 3, index: 1 });
    expect(config.localizer).toEqual({ name: 'blagent', options: { m: 8 } });
    // another localizer does not inherit the file's options for blagent
    const switched = await loadRunConfig(file, overridesFrom({ localizer: 'retrieval' }));
    expect(switched.localizer).toEqual({ name: 'retrieval', options: {} });
  });

  it('a config written before the sandbox rename still reads: docker → sandbox, concurrency.docker → concurrency.sandboxes', async () => {
    const file = await configFile({ runId: 'r1', dataset: 'x.jsonl', docker: { backend: 'bwrap', memoryGiB: 2 }, concurrency: { docker: 3 } });
    const config = await loadRunConfig(file, overridesFrom({ cpus: '0.5' }));
    expect(config.sandbox).toMatchObject({ backend: 'bwrap', memoryGiB: 2, cpus: 0.5 });
    expect(config.concurrency.sandboxes).toBe(3);
    expect(() => parseRunConfig({ runId: 'r', dataset: 'x', docker: {}, sandbox: {} })).toThrow(/both "docker" \(its name before\) and "sandbox"/);
  });

  it('--llm-timeout / --llm-retries set limits on the model of --llm or of the config file', async () => {
    expect(overridesFrom({ llm: 'openai:m@http://h/v1', llmTimeout: '30', llmRetries: '0' })).toEqual({
      llm: { model: 'openai:m@http://h/v1', timeoutMs: 30_000, maxRetries: 0 },
    });
    const spec = await configFile({ runId: 'r1', dataset: 'x.jsonl', llm: 'ollama:q@http://h:11434' });
    expect((await loadRunConfig(spec, overridesFrom({ llmTimeout: '20' }))).llm).toMatchObject({ model: 'ollama:q@http://h:11434', timeoutMs: 20_000 });
    const object = await configFile({ runId: 'r1', dataset: 'x.jsonl', llm: { model: 'ollama:q', numCtx: 8192, maxRetries: 2 } });
    expect((await loadRunConfig(object, overridesFrom({ llmRetries: '1' }))).llm).toMatchObject({ model: 'ollama:q', numCtx: 8192, maxRetries: 1 });
    expect(() => overridesFrom({ llmTimeout: '0' })).toThrow(/--llm-timeout expects a positive integer/);
    expect(() => overridesFrom({ llmRetries: '-1' })).toThrow(/--llm-retries expects a non-negative integer/);
  });

  it('reject bad values with the flag named', () => {
    expect(() => overridesFrom({ limit: '0' })).toThrow(/--limit expects a positive integer, got "0"/);
    expect(() => overridesFrom({ seed: 'x' })).toThrow(/--seed expects an integer/);
  });

  it('locfix run with nothing to run says what it needs, not the schema', async () => {
    // before: "flags: runId: Invalid input: expected string, received undefined"
    await expect(loadRunConfig(undefined, {})).rejects.toThrow(/locfix run needs a run id \(--run-id ID.*\) and a dataset \(--dataset FILE/);
    await expect(loadRunConfig(undefined, { runId: 'x' })).rejects.toThrow(/^locfix run needs a dataset/);
  });

  it('every config key and field is named in the coverage table, and what is marked as set by flags has a flag', () => {
    // the table's type lists every key of RunConfigInput and every field of its object keys: a new one does not compile
    // `--llm SPEC` sets the model (the key's string form)
    const alias: Record<string, string> = { llm: 'llm.model' };
    const byFlags = new Set(RUN_FLAGS.map((f) => (f.field ? `${f.key}.${f.field}` : f.key)).map((p) => (p === 'llm' ? alias[p]! : p)));
    const marked: Array<[string, true | string]> = Object.entries(RUN_FLAG_COVERAGE).flatMap(([key, covered]) =>
      typeof covered === 'object' ? Object.entries(covered).map(([field, c]) => [`${key}.${field}`, c] as [string, true | string]) : [[key, covered]],
    );
    for (const [path, covered] of marked)
      expect(byFlags.has(path), `${path} is marked ${covered === true ? 'as set by a flag' : 'config-only'}`).toBe(covered === true);
    const listed = new Set(marked.map(([path]) => path));
    for (const path of byFlags) expect(listed.has(path), `${path} has a flag but no entry`).toBe(true);
  });

  it('locfix evaluate takes the run’s own flags for the sandboxes: the same names, parsing and config keys', () => {
    // before: evaluate declared --memory, --cpus, --backend … again, beside docker.memoryGiB, docker.cpus …
    const flags = EVALUATE_FLAGS.map((f) => f.flag.split(' ')[0]);
    expect(flags).toEqual(
      expect.arrayContaining([
        '--memory',
        '--cpus',
        '--backend',
        '--engine',
        '--max-workers',
        '--timeout',
        '--network',
        '--no-official-images',
        '--cache-level',
      ]),
    );
    const config = evaluationConfig({
      dataset: 'd.jsonl',
      predictions: 'gold',
      runId: 'ev',
      memory: '2',
      cpus: '0.5',
      officialImages: false,
      cacheLevel: 'instance',
      timeout: '60',
      network: 'bridge',
    });
    expect(config.sandbox).toMatchObject({ memoryGiB: 2, cpus: 0.5, useOfficialImages: false, cacheLevel: 'instance' });
    expect(config.evaluation).toMatchObject({ timeoutSeconds: 60, network: 'bridge' });
    expect(config.concurrency.sandboxes).toBe(1); // the harness' default of one worker
    expect(evaluationConfig({ dataset: 'd.jsonl', predictions: 'gold', runId: 'ev', officialImages: true }).sandbox.useOfficialImages).toBe(true);
    expect(() => evaluationConfig({ dataset: 'd', predictions: 'gold', runId: 'ev', cacheLevel: 'all' })).toThrow(
      /--cache-level must be one of none, base, env, instance/,
    );
    expect(() => evaluationConfig({ dataset: 'd', predictions: 'gold', runId: 'ev', backend: 'slurm' })).toThrow(/--backend slurm is now --scheduler slurm/);
    // the daemonless kind needs no engine list (before: "backend docker-pool needs at least one engine")
    const bwrap = evaluationConfig({ dataset: 'd', predictions: 'gold', runId: 'ev', backend: 'bwrap', imageStore: '/srv/images' });
    expect(bwrap.sandbox).toMatchObject({ backend: 'bwrap', imageStore: '/srv/images', engines: [] });
    expect(() => evaluationConfig({ dataset: 'd', predictions: 'gold', runId: 'ev', backend: 'docker-pool' })).toThrow(/needs at least one engine/);
  });

  it('--mirror, --top-files and --localizer-options set their keys', async () => {
    const overrides = overridesFrom({
      mirror: ['o/r=/m/r', 'p/q=/m/q'],
      topFiles: '5',
      localizer: 'retrieval',
      localizerOptions: '{"retrieval":{"weights":{"history":0}}}',
    });
    expect(overrides).toMatchObject({
      mirrors: { 'o/r': '/m/r', 'p/q': '/m/q' },
      topFiles: 5,
      localizer: { name: 'retrieval', options: { retrieval: { weights: { history: 0 } } } },
    });
    const config = await loadRunConfig(undefined, { runId: 'x', dataset: 'd.jsonl', ...overrides });
    expect(config).toMatchObject({
      mirrors: { 'o/r': '/m/r' },
      topFiles: 5,
      localizer: { name: 'retrieval', options: { retrieval: { weights: { history: 0 } } } },
    });
    expect(() => overridesFrom({ mirror: ['nope'] })).toThrow(/--mirror expects owner\/name=PATH, got "nope"/);
    expect(() => overridesFrom({ localizerOptions: '[1]' })).toThrow(/--localizer-options expects a JSON object/);
  });

  it('every flag sets a different config key', () => {
    const keys = RUN_FLAGS.map((f) => `${f.key}.${f.field ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('localizer names and options', () => {
  it('an unknown name names the valid ones', async () => {
    await expect(validateLocalizer('blagnet', {})).rejects.toThrow(`localizer.name: unknown localizer "blagnet"; known: ${localizerNames().join(', ')}`);
    await expect(validateLocalizer('toString', {})).rejects.toThrow(/unknown localizer "toString"/);
  });

  it('options are checked by the schema the localizer exports: unknown keys, bad values', async () => {
    await expect(validateLocalizer('blagent', { M: 10 })).rejects.toThrow(/blagent: unknown option\(s\) M; known: .*earFiles/);
    await expect(validateLocalizer('blagent', { earFiles: 0 })).rejects.toThrow(/blagent option earFiles must be a positive integer, got 0/);
    await expect(validateLocalizer('retrieval', { queries: 'fancy' })).rejects.toThrow(
      /retrieval option queries must be "raw", "structural", "raw\+structural", "raw\+structural\+title" or "raw\+structural\+title\+prose", got "fancy"/,
    );
    await expect(validateLocalizer('agentless', { combineTopN: 'three' })).rejects.toThrow(/agentless option combineTopN must be a positive integer/);
    await expect(validateLocalizer('oracle', { topN: 1 })).rejects.toThrow(/oracle: unknown option\(s\) topN/);
    expect(await validateLocalizer('blagent', { m: 8 })).toMatchObject({ m: 8, earFiles: 5, phase1History: 'notes' });
  });

  it('the retriever’s own options are typed too: a misspelled weight or a bad depth fails before any instance', async () => {
    // before: `retrieval` was any object, so {"weights":{"histroy":0}} ran with the history channel on
    await expect(validateLocalizer('retrieval', { retrieval: { weights: { histroy: 0 } } })).rejects.toThrow(
      // the known keys of the nested object, not "(see its documentation)"
      /retrieval: unknown option\(s\) histroy in retrieval\.weights; known: chunkBm25, coChange, definitions, dense, fileBm25, graph, history, keys, literals, paths$/,
    );
    await expect(validateLocalizer('blagent', { retrieval: { chunkDepth: 0 } })).rejects.toThrow(
      /blagent option retrieval\.chunkDepth must be a positive integer, got 0/,
    );
    expect(await validateLocalizer('retrieval', { retrieval: { weights: { history: 0 } } })).toEqual({ retrieval: { weights: { history: 0 } } });
  });

  it('the function- and line-level stages check their options when the run is resolved', async () => {
    const resolve = (config: Record<string, unknown>) => resolveRun(parseRunConfig({ runId: 'typed', dataset: 'x.jsonl', ...config }));
    // before: spread unchecked into the stages, so a typo was silently a default
    await expect(resolve({ functionLevel: { maxAttemps: 2 } })).rejects.toThrow(/functionLevel: unknown option\(s\) maxAttemps; known: .*maxAttempts/);
    await expect(resolve({ lineLevel: { samples: 0 } })).rejects.toThrow(/lineLevel option samples must be a positive integer, got 0/);
    const run = await resolve({ functionLevel: { maxAttempts: 2 }, lineLevel: { samples: 2 } });
    expect([isModelFunctionLevel(run.functionLevel) && run.functionLevel.maxAttempts, run.lineLevel.samples, run.localizer.name]).toEqual([2, 2, 'retrieval']);
    const assembled = assembleStages(parseRunConfig({ runId: 'typed', dataset: 'x.jsonl' }), { store: {} } as never, { root: '/tmp/locfix-typed' }, run);
    expect(assembled.stages.map((s) => s.name)).toContain('localize-lines');
  });

  it('a misspelled nested stage option fails at start: no run folder, no dataset read (issue 43: parse once, at the edge)', async () => {
    const runsDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-edge-'));
    const config = parseRunConfig({ runId: 'edge', dataset: path.join(runsDir, 'missing.jsonl'), runsDir, functionLevel: { skeleton: { totalLinez: 30 } } });
    // before: the run folder and its lock were made and the dataset was read (failing on the missing file) first;
    // the typo surfaced only when the stages were assembled
    await expect(runExperiment(config, { log: () => undefined })).rejects.toThrow(/functionLevel: unknown option\(s\) totalLinez in skeleton/);
    expect(existsSync(path.join(runsDir, 'edge'))).toBe(false);
  });

  it('a misspelled --stop-after fails when the config is read, naming the stages (issue 43: parsed once, not cast)', () => {
    // before: any string passed the schema, and the name was checked by hand when the stages were assembled
    expect(() => parseRunConfig({ runId: 'typed', dataset: 'x.jsonl', stopAfter: 'localise-files' })).toThrow(
      /stopAfter.*must be one of localize-files, localize-functions, localize-lines, repair, validate, select, evaluate/,
    );
    expect(parseRunConfig({ runId: 'typed', dataset: 'x.jsonl', stopAfter: 'repair' }).stopAfter).toBe('repair');
  });

  it('the run config and the option schemas share one positive-integer type and its message', () => {
    // before: the config's own copy answered "Too small: expected number to be >0"
    expect(() => parseRunConfig({ runId: 'typed', dataset: 'x.jsonl', topFiles: 0 })).toThrow(/topFiles: must be a positive integer/);
    expect(() => parseRunConfig({ runId: 'typed', dataset: 'x.jsonl', repair: { samplesPerSet: 1.5 } })).toThrow(/samplesPerSet: must be a positive integer/);
  });

  it('the run seed reaches a sampling localizer unless its options set one', async () => {
    const a = (await createLocalizer('blagent', {}, { seed: 3 })) as unknown as { options: { seed?: number } };
    const b = (await createLocalizer('blagent', { seed: 9 }, { seed: 3 })) as unknown as { options: { seed?: number } };
    expect([a.options.seed, b.options.seed]).toEqual([3, 9]);
    // a localizer that does not sample takes no seed and is not handed one
    await expect(createLocalizer('retrieval', {}, { seed: 3 })).resolves.toBeDefined();
  });
});

describe('artifact settings', () => {
  const base = { runId: 'r', dataset: 'x.jsonl', llm: 'openai:m@http://h/v1', localizer: { name: 'blagent', options: { m: 8 } } };
  it('ignore selection, paths, concurrency and limits; name every change that decides what artifacts hold', () => {
    const before = artifactSettings(parseRunConfig(base));
    const operational = artifactSettings(
      parseRunConfig({ ...base, runsDir: 'elsewhere', limit: 3, concurrency: { instances: 9 }, llm: { model: 'openai:m@http://h/v1', timeoutMs: 5_000 } }),
    );
    expect(settingsChanges(before, operational)).toEqual([]);
    const changed = artifactSettings(parseRunConfig({ ...base, llm: 'openai:other@http://h/v1', localizer: { name: 'blagent', options: { m: 4 } }, seed: 2 }));
    expect(settingsChanges(before, changed)).toEqual(['llm: "openai:m@http://h/v1" → "openai:other@http://h/v1"', 'localizer.options.m: 8 → 4', 'seed: 0 → 2']);
    // key order does not matter; a field on one side only is named as absent on the other
    expect(settingsChanges({ a: { x: 1, y: 2 } }, { a: { y: 2, x: 1 } })).toEqual([]);
    expect(settingsChanges({ a: { x: 1 } }, { a: { x: 1, z: [1] } })).toEqual(['a.z: (absent) → [1]']);
  });
});
