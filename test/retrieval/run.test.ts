/** runRetrieval: repository groups, and releasing a repository's memory once its last instance is done. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRetrieval } from '../../localizer/retrieval/run.ts';
import type { RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

const instance = (id: string, repo: string): SweInstance =>
  ({ instance_id: id, repo, base_commit: 'a'.repeat(40), problem_statement: 'total is wrong', patch: '', test_patch: '', hints_text: '', FAIL_TO_PASS: [], PASS_TO_PASS: [] }) as SweInstance;

const index: RetrievalIndex = {
  filePaths: ['pkg/total.py'],
  searchDense: async () => [],
  searchChunksBm25: async () => [],
  searchFilesBm25: async () => [{ path: 'pkg/total.py', score: 1 }],
  definitionsOf: () => [],
};

describe('runRetrieval', () => {
  it('runs instances grouped by repository and releases each repository after its last instance', async () => {
    const runDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-run-retrieval-'));
    dirs.push(runDir);
    const events: string[] = [];
    const artifacts = await runRetrieval(
      [instance('a__x-1', 'a/x'), instance('b__y-1', 'b/y'), instance('a__x-2', 'a/x')],
      {
        snapshot: async (repo, commit) => ({ repo, commit }) as RepoSnapshot,
        openIndex: async (snapshot) => {
          events.push(`index ${snapshot.repo}`);
          return { index };
        },
        releaseRepo: (repo) => events.push(`release ${repo}`),
      },
      { runDir, dataset: 'test', embedderId: 'lexical:test' },
    );
    expect(artifacts.map((a) => a.status)).toEqual(['ok', 'ok', 'ok']);
    expect(events).toEqual(['index a/x', 'index a/x', 'release a/x', 'index b/y', 'release b/y']);
  });
});
