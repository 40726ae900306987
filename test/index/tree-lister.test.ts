/**
 * TreeLister (src/repo/catfile.ts), the index's cheap file listing: exactly what `git ls-tree -r -l` lists,
 * for two commits of a real repository (symlink, submodule, spaces, non-UTF-8 file), and clear errors.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatFileBatch, CatFileError, parseTreeObject, TreeLister } from '../../src/repo/catfile.ts';
import { parseLsTree } from '../support/ls-tree.ts';
import { buildFixtureRepo, git, removeDir, tempDir, type FixtureRepo } from '../repo/fixtures.ts';

let root = '';
let fixture: FixtureRepo;
let objects: CatFileBatch;
let headers: CatFileBatch;

beforeAll(() => {
  root = tempDir('tree-lister');
  fixture = buildFixtureRepo(root);
  objects = new CatFileBatch(fixture.bare);
  headers = new CatFileBatch(fixture.bare, { checkOnly: true });
});

afterAll(async () => {
  await objects?.close();
  await headers?.close();
  removeDir(root);
});

const lsTree = (commit: string) => parseLsTree(execFileSync('git', ['--git-dir', fixture.bare, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit]));

describe('TreeLister', () => {
  it('lists the files of each commit exactly as ls-tree -r -l does', async () => {
    const lister = new TreeLister(objects, headers);
    const first = await lister.listFiles(fixture.first);
    expect(first).toEqual(lsTree(fixture.first));
    expect(first.map((f) => f.path)).toContain('name with spaces.py');
    expect(first.map((f) => f.path)).not.toContain('link.py');
    expect(first.map((f) => f.path)).not.toContain('vendored');
    // the second commit reuses memoized trees and sizes and still matches
    expect(await lister.listFiles(fixture.second)).toEqual(lsTree(fixture.second));
    expect(await lister.listFiles(fixture.first)).toEqual(first);
  });

  it('lists a blob missing from the mirror with size NaN, as the ls-tree -l parser does', async () => {
    const dir = tempDir('tree-lister-missing');
    try {
      git(dir, 'init', '--quiet', '--initial-branch=main');
      writeFileSync(path.join(dir, 'keep.py'), 'x = 1\n');
      writeFileSync(path.join(dir, 'big.dat'), 'large data left out of the mirror\n');
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', 'one');
      const commit = git(dir, 'rev-parse', 'HEAD');
      const blob = git(dir, 'rev-parse', 'HEAD:big.dat');
      rmSync(path.join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
      const gitDir = path.join(dir, '.git');
      const reference = parseLsTree(execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit]));
      const batches = [new CatFileBatch(gitDir), new CatFileBatch(gitDir, { checkOnly: true })] as const;
      const files = await new TreeLister(...batches).listFiles(commit);
      await Promise.all(batches.map((b) => b.close()));
      expect(files.find((f) => f.path === 'big.dat')?.size).toBeNaN();
      expect(files).toEqual(reference);
    } finally {
      removeDir(dir);
    }
  });

  it('names a commit that does not exist', async () => {
    const lister = new TreeLister(objects, headers);
    await expect(lister.listFiles('f'.repeat(40))).rejects.toThrow(CatFileError);
  });

  it('needs a --batch-check process for sizes', () => {
    expect(() => new TreeLister(objects, objects)).toThrow(/batch-check/);
  });

  it('rejects a truncated tree object', () => {
    const entry = Buffer.concat([Buffer.from('100644 a.py\0'), Buffer.alloc(20, 1)]);
    expect(parseTreeObject(entry)).toEqual([{ mode: '100644', name: 'a.py', oid: '01'.repeat(20) }]);
    expect(() => parseTreeObject(entry.subarray(0, entry.length - 3))).toThrow(/malformed tree/);
  });
});
