/** The one reader of run folders: what it refuses, and what it derives when a folder records little. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunFolder, repoFromInstanceId, stageState } from '../../results/run-folder.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'locfix-run-folder-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('openRunFolder', () => {
  it('a folder that is no run, and a corrupt instances.jsonl, are clear errors', async () => {
    await expect(openRunFolder(path.join(root, 'missing'))).rejects.toThrow(/no such run folder/);
    const empty = path.join(root, 'empty');
    await mkdir(empty);
    await expect(openRunFolder(empty)).rejects.toThrow(/is not a locfix run folder: it has neither instances.jsonl/);
    const corrupt = path.join(root, 'corrupt');
    await mkdir(corrupt);
    await writeFile(path.join(corrupt, 'instances.jsonl'), '{"instance_id": "a__b-1"}\n{"truncated');
    await expect(openRunFolder(corrupt)).rejects.toThrow(/instances.jsonl:1: not a dataset row/);
  });

  it('an older stage folder (a selection, no manifest): repositories from the ids, its own arm, later stages left out', async () => {
    const old = path.join(root, 'old-stage');
    await mkdir(old);
    await writeFile(
      path.join(old, 'retrieve.selection.json'),
      JSON.stringify({
        stage: 'retrieve',
        dataset: 'nowhere.jsonl',
        instances: ['django__django-11099'],
        gold: { 'django__django-11099': ['a.py'] },
        settings: { localizer: 'retrieval' },
      }),
    );
    const folder = await openRunFolder(old);
    expect(folder).toMatchObject({ kind: 'stage', fileStage: 'retrieve', arm: { localizer: 'retrieval' } });
    expect(folder.arm.key).toBeUndefined();
    expect(folder.instances).toEqual([{ id: 'django__django-11099', repo: 'django/django', goldFiles: ['a.py'] }]);
    expect(stageState(folder, 'repair', undefined)).toEqual({ state: 'not-reached', reason: 'this folder holds the stages retrieve only' });
    expect(
      stageState(folder, 'retrieve', {
        stage: 'retrieve',
        instanceId: 'x',
        status: 'error',
        startedAt: '',
        finishedAt: '',
        durationMs: 0,
        attempt: 1,
        error: { message: 'boom', kind: 'timeout' },
      }),
    ).toEqual({
      state: 'failed',
      kind: 'timeout',
      message: 'boom',
    });
    expect(repoFromInstanceId('pylint-dev__pylint-7080')).toBe('pylint-dev/pylint');
    expect(repoFromInstanceId('weird')).toBe('unknown');
  });

  it('a locfix run from before settings were recorded: its arm key comes from its config, so seeds stay one arm', async () => {
    const row = { instance_id: 'o__r-1', repo: 'o/r', base_commit: 'a'.repeat(40), problem_statement: 'x', patch: '', test_patch: '' };
    const keys: Array<string | undefined> = [];
    for (const seed of [1, 2]) {
      const dir = path.join(root, `old-run-${seed}`);
      await mkdir(dir);
      await writeFile(path.join(dir, 'instances.jsonl'), `${JSON.stringify(row)}\n`);
      const config = { runId: `old-run-${seed}`, dataset: 'd.jsonl', seed, localizer: { name: 'retrieval', options: {} } };
      await writeFile(
        path.join(dir, 'manifest.json'),
        JSON.stringify({
          runId: config.runId,
          config,
          models: { embedder: 'lexical' },
          seed,
          localizer: 'retrieval',
          instances: ['o__r-1'],
          createdAt: '',
          invocations: [],
        }),
      );
      const folder = await openRunFolder(dir);
      expect(folder.kind).toBe('pipeline');
      keys.push(folder.arm.key);
    }
    expect(keys[0]).toBeDefined();
    expect(keys[0]).toBe(keys[1]);
  });

  it('one configuration is one arm whatever was typed and whichever command recorded it (issue 41, item 4)', async () => {
    const stageFolder = async (name: string, stage: string, recorded: Record<string, unknown>, dataset: string) => {
      const dir = path.join(root, name);
      await mkdir(dir);
      await writeFile(path.join(dir, `${stage}.selection.json`), JSON.stringify({ stage, dataset, instances: ['o__r-1'], gold: {}, settings: {} }));
      await writeFile(
        path.join(dir, 'manifest.json'),
        JSON.stringify({
          runId: name,
          kind: 'stage',
          config: {},
          models: { embedder: 'lexical' },
          seed: 0,
          localizer: 'retrieval',
          instances: ['o__r-1'],
          dataset,
          settings: { [stage]: recorded },
          createdAt: '',
          invocations: [],
        }),
      );
      return (await openRunFolder(dir)).arm;
    };
    const base = { localizer: 'retrieval', embedder: 'lexical' };
    // `localize` with no options, with the default weight typed out (and --llm given to a model-free localizer)
    const plain = await stageFolder('arm-plain', 'localize-files', { ...base, llm: null, localizerOptions: {} }, 'data/d.jsonl');
    const typed = await stageFolder(
      'arm-typed',
      'localize-files',
      { ...base, llm: 'openai:m', localizerOptions: { retrieval: { weights: { history: 1 } } } },
      'd.jsonl',
    );
    // `retrieve` records its preset and the resolved retriever options under other names, the dataset resolved
    const { resolveRetrievalOptions } = await import('../../localizer/retrieval/options.ts');
    const retrieved = await stageFolder(
      'arm-retrieve',
      'retrieve',
      { ...base, queryPreset: 'raw+structural+title', environmentReports: 'drop', options: resolveRetrievalOptions({}), llm: null, localizerOptions: null },
      '/abs/path/d.jsonl',
    );
    const other = await stageFolder(
      'arm-other',
      'localize-files',
      { ...base, llm: null, localizerOptions: { retrieval: { weights: { history: 0 } } } },
      'd.jsonl',
    );
    expect(plain.key).toBeDefined();
    // before: three arms (options as written, and each command's own names)
    expect(typed.key).toBe(plain.key);
    expect(retrieved.key).toBe(plain.key);
    expect(other.key).not.toBe(plain.key);
  });
});
