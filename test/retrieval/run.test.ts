/** File localization over a selection: repository groups, releasing a repository's memory once its last instance is done, one artifact shape. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RetrievalLocalizer } from '../../localizer/retrieval/localizer.ts';
import { runFileLocalization } from '../../localizer/stage.ts';
import { rankedPathsOf } from '../../src/artifacts/localization.ts';
import type { RepoIndex } from '../../src/index/types.ts';
import type { RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const instance = (id: string, repo: string): SweInstance =>
  ({
    instance_id: id,
    repo,
    base_commit: 'a'.repeat(40),
    problem_statement: 'total is wrong',
    patch: '',
    test_patch: '',
    hints_text: '',
    FAIL_TO_PASS: [],
    PASS_TO_PASS: [],
  }) as SweInstance;

const index = {
  filePaths: ['pkg/total.py'],
  searchDense: async () => [],
  searchChunksBm25: async () => [],
  searchFilesBm25: async () => [{ path: 'pkg/total.py', score: 1 }],
  definitionsOf: () => [],
  timings: {},
} satisfies RetrievalIndex & { timings: object } as unknown as RepoIndex;

describe('runFileLocalization with the retrieval localizer', () => {
  it('runs instances grouped by repository and releases each repository after its last instance', async () => {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-run-retrieval-'));
    dirs.push(runDir);
    const events: string[] = [];
    const artifacts = await runFileLocalization(
      [instance('a__x-1', 'a/x'), instance('b__y-1', 'b/y'), instance('a__x-2', 'a/x')],
      new RetrievalLocalizer(),
      {
        snapshot: async (repo, commit) => ({ repo, commit, listFiles: async () => [] }) as unknown as RepoSnapshot,
        index: async (snapshot) => {
          events.push(`index ${snapshot.repo}`);
          return index;
        },
        releaseRepo: (repo) => events.push(`release ${repo}`),
        llm: undefined,
        embedder: { id: 'lexical:test' },
      },
      { runDir, dataset: 'test', stage: 'retrieve' },
    );
    expect(artifacts.map((a) => a.status)).toEqual(['ok', 'ok', 'ok']);
    expect(events).toEqual(['index a/x', 'index a/x', 'release a/x', 'index b/y', 'release b/y']);
    expect(artifacts.map((a) => rankedPathsOf(a))).toEqual([['pkg/total.py'], ['pkg/total.py'], ['pkg/total.py']]);
    expect(artifacts[0].output!.localizer).toBe('retrieval');
  });
});
