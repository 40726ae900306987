/**
 * Training pairs mined from a repository's own history (scripts/ranker/training-pairs.ts, issue 34): on a real git
 * repository made here, which commits qualify (a reference, 1-3 non-test source files), what the query keeps,
 * and that nothing at or after the cutoff (an evaluated instance's base commit) or named as excluded is mined.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitAt, newWorkTree } from '../support/git-history.ts';
import {
  basesByRepository,
  cutoffOf,
  minePairs,
  mirrorRepositories,
  queryOf,
  referencesOf,
  repositoryKey,
  selectRepositories,
} from '../../scripts/ranker/training-pairs.ts';

const VERIFIED = path.resolve(import.meta.dirname, '../../scripts/data/swe-bench-verified-bases.jsonl');
const LITE = path.resolve(import.meta.dirname, '../../../shared/data/swe-bench-lite-full.jsonl');
const rowsOf = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { instance_id: string; repo: string; base_commit: string });

const run = promisify(execFile);
let dir: string;
let gitDir: string;
const ids: Record<string, string> = {};

async function commit(work: string, name: string, files: Record<string, string>, message: string, time: number): Promise<void> {
  ids[name] = await commitAt(work, files, message, time);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-pairs-'));
  const work = await newWorkTree(dir);
  await commit(work, 'root', { 'pkg/a.py': 'a = 1\n', 'pkg/b.py': 'b = 1\n', 'README.md': 'x\n' }, 'Initial import (#1)', 1000);
  await commit(
    work,
    'fix',
    { 'pkg/a.py': 'a = 2\n', 'tests/test_a.py': 'def test(): pass\n' },
    'Fixed #12 -- a was off by one.\n\nSigned-off-by: t <t@e>',
    2000,
  );
  await commit(work, 'noref', { 'pkg/b.py': 'b = 2\n' }, 'Tidy b', 3000);
  await commit(work, 'testsonly', { 'tests/test_b.py': 'def test(): pass\n' }, 'Add a test for #13', 4000);
  await commit(work, 'many', { 'pkg/c.py': '1\n', 'pkg/d.py': '1\n', 'pkg/e.py': '1\n', 'pkg/f.py': '1\n' }, 'Refs gh-14: split modules', 5000);
  await commit(work, 'docs', { 'README.md': 'y\n' }, 'Docs for #15', 6000);
  // a merge of a side branch: its change against the first parent is what it brings
  await run('git', ['-C', work, 'checkout', '-q', '-b', 'side']);
  await commit(work, 'side', { 'pkg/b.py': 'b = 3\n' }, 'b: handle None', 7000);
  await run('git', ['-C', work, 'checkout', '-q', 'main']);
  const env = { ...process.env, GIT_AUTHOR_DATE: '@8000 +0000', GIT_COMMITTER_DATE: '@8000 +0000' };
  await run(
    'git',
    [
      '-C',
      work,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@e',
      'merge',
      '-q',
      '--no-ff',
      'side',
      '-m',
      'Merge pull request #16 from t/side\n\nb: handle None (PROJ-16)',
    ],
    { env },
  );
  ids.merge = (await run('git', ['-C', work, 'rev-parse', 'HEAD'])).stdout.trim();
  await commit(work, 'base', { 'pkg/a.py': 'a = 3\n' }, 'Fixed #17 -- the instance base', 9000);
  await commit(work, 'later', { 'pkg/a.py': 'a = 4\n' }, 'Fixed #18 -- after the base', 10_000);
  gitDir = path.join(dir, 'repo');
  await run('git', ['clone', '-q', '--bare', work, gitDir]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('training pairs from history', () => {
  it('keeps referenced commits and merges that change 1-3 non-test source files, before the cutoff, never the root', async () => {
    const before = await cutoffOf(gitDir, [ids.base!, ids.later!]);
    expect(before).toBe(9000);
    const pairs = await minePairs({ repo: 'acme/pkg', gitDir, before });
    expect(pairs.map((p) => [p.commit, p.files, p.refs])).toEqual([
      [ids.merge, ['pkg/b.py'], ['#16', 'PROJ-16']],
      [ids.fix, ['pkg/a.py'], ['#12']],
    ]);
    const fix = pairs.find((p) => p.commit === ids.fix)!;
    expect(fix.query).toBe('Fixed #12 -- a was off by one.');
    expect(pairs[0]!.query).toBe('b: handle None (PROJ-16)');
    // without a cutoff the later fixes come in; a commit named as excluded never does
    const all = await minePairs({ repo: 'acme/pkg', gitDir, excludedCommits: new Set([ids.later!]) });
    // (the root commit never: it "changes" every file it adds)
    expect(all.map((p) => p.commit)).toEqual([ids.base, ids.merge, ids.fix]);
  });

  it('references and queries', () => {
    expect(referencesOf('Fixed #123 -- x (gh-7, bpo-9); see issue 44 and DJ-1. Not v1-2, not abc#12')).toEqual(['#123', 'gh-7', 'bpo-9', '#44', 'DJ-1']);
    expect(referencesOf('Bump version to 2.0')).toEqual([]);
    // standards, encodings and error codes are no tickets; an advisory is, whole
    expect(referencesOf('Decode as UTF-8 (PEP-8 style), map ORA-01400; RFC-2822 dates')).toEqual([]);
    expect(referencesOf('Fixed CVE-2018-16984 -- password hash disclosure')).toEqual(['CVE-2018-16984']);
    expect(queryOf('Merge pull request #5 from a/b\n\nFix the parser\n\nCo-authored-by: x <x@y>')).toBe('Fix the parser');
  });

  it('matches rows to mirrors whatever the case, and refuses two folders of one repository', () => {
    // the Multilingual rows say briannesbitt/carbon; fetched by its GitHub name the mirror is briannesbitt+Carbon
    const bases = basesByRepository([
      { repo: 'briannesbitt/carbon', base_commit: 'a1' },
      { repo: 'django/django', base_commit: 'b1' },
      { repo: 'Django/Django', base_commit: 'b2' },
    ]);
    const folders = mirrorRepositories(['briannesbitt+Carbon', 'swe-bench+django__django', 'redis+redis']);
    expect([...folders.keys()].sort()).toEqual(['briannesbitt/Carbon', 'django/django', 'redis/redis']);
    expect(bases.get(repositoryKey('briannesbitt/Carbon'))).toEqual(['a1']);
    expect(bases.get(repositoryKey('django/django'))).toEqual(['b1', 'b2']);
    expect(() => mirrorRepositories(['briannesbitt+Carbon', 'briannesbitt+carbon'])).toThrow(
      /two mirror folders hold briannesbitt\/carbon: briannesbitt\+Carbon and briannesbitt\+carbon/,
    );
    // --repos picks whatever the case; a name nothing holds is an error, not an empty run
    expect(selectRepositories('briannesbitt/carbon, redis/redis', [...folders.keys()], 'the mirrors')).toEqual(['briannesbitt/Carbon', 'redis/redis']);
    expect(selectRepositories(undefined, ['b/b', 'a/a'], 'the mirrors')).toEqual(['a/a', 'b/b']);
    expect(() => selectRepositories('django/djang', [...folders.keys()], 'the mirrors')).toThrow(
      /--repos: django\/djang not in the mirrors \(it has briannesbitt\/Carbon, django\/django, redis\/redis\)/,
    );
  });

  it('SWE-bench Verified: 500 base commits of 12 repositories, the same as Lite where the two share a row', () => {
    const verified = rowsOf(VERIFIED);
    expect(verified).toHaveLength(500);
    expect(new Set(verified.map((r) => r.instance_id)).size).toBe(500);
    expect(new Set(verified.map((r) => r.repo)).size).toBe(12);
    for (const row of verified) {
      expect(row.base_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(row.instance_id.replace(/-\d+$/, '').replace('__', '/')).toBe(row.repo);
    }
    if (!existsSync(LITE)) return; // the shared data sit beside the checkout, not in it
    const lite = new Map(rowsOf(LITE).map((r) => [r.instance_id, r.base_commit]));
    const shared = verified.filter((r) => lite.has(r.instance_id));
    expect(shared).toHaveLength(93);
    for (const row of shared) expect(row.base_commit).toBe(lite.get(row.instance_id));
  });
});
