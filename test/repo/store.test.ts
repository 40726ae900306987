import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RepoError } from '../../src/repo/errors.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { parseMirrorSpecs } from '../../src/repo/mirrors.ts';
import { parseLsTree } from '../support/ls-tree.ts';
import { BINARY_BYTES, LATIN1_BYTES, buildFixtureRepo, git, removeDir, tempDir, type FixtureRepo } from './fixtures.ts';

let root: string;
let fixture: FixtureRepo;
const stores: RepoStore[] = [];

function newStore(options: Partial<ConstructorParameters<typeof RepoStore>[0]> = {}): RepoStore {
  const store = new RepoStore({ cacheDir: path.join(root, 'cache'), mirrors: { 'acme/widgets': fixture.bare }, allowClone: false, ...options });
  stores.push(store);
  return store;
}

async function expectRepoError(promise: Promise<unknown>, code: RepoError['code'], messagePart: RegExp): Promise<RepoError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(RepoError);
  const repoError = error as RepoError;
  expect(repoError.code).toBe(code);
  expect(repoError.message).toMatch(messagePart);
  return repoError;
}

beforeAll(() => {
  root = tempDir('repo-store');
  fixture = buildFixtureRepo(root);
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  removeDir(root);
});

describe('RepoStore reading', () => {
  it('lists regular files only, with blob ids and sizes', async () => {
    const snapshot = await newStore().snapshot('acme/widgets', fixture.first);
    expect(snapshot.repo).toBe('acme/widgets');
    expect(snapshot.commit).toBe(fixture.first);
    const files = await snapshot.listFiles();
    expect(files.map((f) => f.path).sort()).toEqual(
      ['data.bin', 'name with spaces.py', 'pkg/__init__.py', 'pkg/core.py', 'pkg/latin1.py', 'pkg/sub/util.py', 'run.sh'].sort(),
    );
    // symlink link.py and submodule vendored are left out
    const core = files.find((f) => f.path === 'pkg/core.py')!;
    expect(core.size).toBe(Buffer.byteLength('def add(a, b):\n    return a + b\n'));
    expect(core.blob).toBe(git(fixture.workTree, 'rev-parse', `${fixture.first}:pkg/core.py`));
    expect(files.find((f) => f.path === 'pkg/__init__.py')!.size).toBe(0);
  });

  it('reads files at each commit, including empty and unicode files', async () => {
    const store = newStore();
    const first = await store.snapshot('acme/widgets', fixture.first);
    const second = await store.snapshot('acme/widgets', fixture.second);
    expect(await first.readFile('pkg/core.py')).toBe('def add(a, b):\n    return a + b\n');
    expect(await second.readFile('pkg/core.py')).toBe('def add(a, b):\n    return b + a\n');
    expect(await first.readFile('pkg/__init__.py')).toBe('');
    expect(await first.readFile('pkg/sub/util.py')).toBe('# ünïcödé ✓\nVALUE = "naïve"\n');
    expect(await first.readFile('name with spaces.py')).toBe('x = 1\n');
    expect(await second.readFile('name with spaces.py')).toBeUndefined(); // deleted in the second commit
    expect(await first.readFile('no/such/file.py')).toBeUndefined();
    expect(await first.readFile('link.py')).toBeUndefined(); // a symlink is not a file here
    expect(await first.readFile('pkg')).toBeUndefined(); // nor is a folder
  });

  it('decodes non-UTF-8 bytes with replacement and returns raw bytes of binary blobs', async () => {
    const snapshot = await newStore().snapshot('acme/widgets', fixture.first);
    expect(await snapshot.readFile('pkg/latin1.py')).toBe('caf\uFFFD \uFFFD\n');
    const files = await snapshot.listFiles();
    const bin = files.find((f) => f.path === 'data.bin')!;
    const latin = files.find((f) => f.path === 'pkg/latin1.py')!;
    expect(Buffer.compare(await snapshot.readBlob(bin.blob), BINARY_BYTES)).toBe(0);
    expect(Buffer.compare(await snapshot.readBlob(latin.blob), LATIN1_BYTES)).toBe(0);
    // the file after the binary one is still framed correctly
    expect(await snapshot.readFile('run.sh')).toBe('#!/bin/sh\necho run\n');
  });

  it('readFiles returns only the paths that are files', async () => {
    const snapshot = await newStore().snapshot('acme/widgets', fixture.first);
    const read = await snapshot.readFiles(['pkg/core.py', 'missing.py', 'run.sh', 'link.py']);
    expect([...read.keys()].sort()).toEqual(['pkg/core.py', 'run.sh']);
    expect(read.get('run.sh')).toBe('#!/bin/sh\necho run\n');
  });

  it('resolves short commit ids and refs to full ids', async () => {
    const store = newStore();
    const short = await store.snapshot('acme/widgets', fixture.first.slice(0, 7));
    expect(short.commit).toBe(fixture.first);
    const head = await store.snapshot('acme/widgets', 'HEAD');
    expect(head.commit).toBe(fixture.second);
  });

  it('serves many concurrent reads through one cat-file process (plus one --batch-check for listing)', async () => {
    const workTree = path.join(root, 'many');
    mkdirSync(workTree);
    git(workTree, 'init', '--quiet');
    const expected = new Map<string, string>();
    for (let i = 0; i < 400; i++) {
      // sizes vary from empty to ~70 KB so responses straddle pipe chunk boundaries
      const text = `# file ${i}\n` + 'x = "\u00e9"\n'.repeat((i * 37) % 6000);
      const file = `mod_${i}.py`;
      writeFileSync(path.join(workTree, file), text);
      expected.set(file, text);
    }
    git(workTree, 'add', '-A');
    git(workTree, 'commit', '--quiet', '-m', 'many');
    const store = newStore({ mirrors: { 'acme/many': workTree } }); // a work tree with .git is accepted too
    const snapshot = await store.snapshot('acme/many', 'HEAD');
    const paths = [...expected.keys()];
    const [batch, ...singles] = await Promise.all([
      snapshot.readFiles(paths),
      ...paths.map((p) => snapshot.readFile(p)),
      ...paths.map((p) => snapshot.readFile(p)),
    ]);
    expect(batch.size).toBe(400);
    for (const [file, text] of expected) expect(batch.get(file)).toBe(text);
    singles.forEach((text, i) => expect(text).toBe(expected.get(paths[i % 400]!)));

    // blobs: one `cat-file --batch`; tree listing: one `cat-file --batch-check`
    expect(catFileProcesses(workTree, '--batch ')).toHaveLength(1);
    expect(catFileProcesses(workTree, '--batch-check')).toHaveLength(1);
    await store.close();
    expect(catFileProcesses(workTree)).toHaveLength(0);
    // reading after close starts a new process
    expect(await snapshot.readFile('mod_1.py')).toBe(expected.get('mod_1.py'));
    await store.close();
  });

  it('close() ends the cat-file process after pending reads are answered', async () => {
    const own = path.join(root, 'close-test.git'); // a mirror no other test's store reads
    git(root, 'clone', '--quiet', '--bare', fixture.bare, own);
    const store = newStore({ mirrors: { 'acme/widgets': own } });
    const snapshot = await store.snapshot('acme/widgets', fixture.first);
    const reading = snapshot.readFiles(['pkg/core.py', 'run.sh']);
    const closing = store.close();
    expect((await reading).size).toBe(2);
    await closing;
    expect(catFileProcesses(own)).toHaveLength(0);
  });
});

/** pids of `git --git-dir <dir> cat-file --batch` processes started by this test process */
function catFileProcesses(gitDirOrWorkTree: string, mode = '--batch'): string[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => `${line} `)
    .filter((line) => line.includes(`cat-file ${mode}`) && line.includes(gitDirOrWorkTree))
    .map((line) => line.trim().split(/\s+/)[0]!);
}

describe('RepoStore errors', () => {
  it('reports a missing repository with where it looked', async () => {
    const store = newStore({ mirrorsDir: path.join(root, 'no-mirrors') });
    const error = await expectRepoError(store.snapshot('nobody/nothing', 'abc1234'), 'missing-repo', /nobody\/nothing: the --mirrors folder/);
    expect(error.repo).toBe('nobody/nothing');
    expect(error.message).toContain(`${path.join(root, 'no-mirrors')} does not exist (expected nobody+nothing/repo in it)`);
    const noMirrors = newStore({ mirrors: {} });
    await expectRepoError(
      noMirrors.snapshot('nobody/nothing', 'abc1234'),
      'missing-repo',
      /nobody\/nothing: no mirror found \(looked in .*nobody\+nothing\.git\) and cloning is off/,
    );
  });

  it('a wrong --mirrors path is an error naming it, never a silent clone from the network', async () => {
    // cloning allowed and a clone URL that would work: the given mirrors folder still decides
    const cloneUrl = () => fixture.bare;
    const missingDir = newStore({ mirrors: {}, mirrorsDir: path.join(root, 'typo-mirrors'), allowClone: true, cloneUrl });
    await expectRepoError(
      missingDir.snapshot('acme/widgets', 'HEAD'),
      'missing-repo',
      /the --mirrors folder .*typo-mirrors does not exist \(expected acme\+widgets\/repo/,
    );
    mkdirSync(path.join(root, 'other-mirrors'), { recursive: true });
    const missingRepo = newStore({ mirrors: {}, mirrorsDir: path.join(root, 'other-mirrors'), allowClone: true, cloneUrl });
    await expectRepoError(
      missingRepo.snapshot('acme/widgets', 'HEAD'),
      'missing-repo',
      /no mirror for it in --mirrors .*other-mirrors \(expected acme\+widgets\/repo/,
    );
    expect(existsSync(path.join(root, 'cache', 'repos', 'acme+widgets.git'))).toBe(false);
  });

  it('reports an explicit mirror path that is not a repository', async () => {
    const store = newStore({ mirrors: { 'acme/widgets': path.join(root, 'nowhere') } });
    await expectRepoError(store.snapshot('acme/widgets', 'HEAD'), 'missing-repo', /acme\/widgets: the mirror given for it, .*nowhere, is not a git repository/);
  });

  it('rejects invalid repository names', async () => {
    await expectRepoError(newStore().snapshot('../etc', 'HEAD'), 'missing-repo', /invalid repository name/);
  });

  it('reports a missing commit naming repo and commit, and other instances still work', async () => {
    const store = newStore();
    const error = await expectRepoError(
      store.snapshot('acme/widgets', 'deadbeefdeadbeef'),
      'missing-commit',
      /acme\/widgets: commit deadbeefdeadbeef is not in the mirror/,
    );
    expect(error.commit).toBe('deadbeefdeadbeef');
    await expectRepoError(store.snapshot('acme/widgets', '--all'), 'missing-commit', /invalid commit/);
    // a blob id that is not a commit
    const blob = git(fixture.workTree, 'rev-parse', `${fixture.first}:pkg/core.py`);
    await expectRepoError(store.snapshot('acme/widgets', blob), 'missing-commit', /is not in the mirror/);
    const ok = await store.snapshot('acme/widgets', fixture.second);
    expect(await ok.readFile('run.sh')).toContain('echo run');
  });

  it('reports a blob missing from the mirror as git-failed', async () => {
    const snapshot = await newStore().snapshot('acme/widgets', fixture.first);
    await expectRepoError(snapshot.readBlob('0'.repeat(40)), 'git-failed', /blob 0{40} is missing/);
    await expectRepoError(snapshot.readBlob('not-a-blob\nHEAD'), 'git-failed', /invalid blob id/);
  });
});

describe('RepoStore mirror resolution', () => {
  it('finds mirrors laid out as owner+name/repo, and SWE-bench style swe-bench+owner__name/repo', async () => {
    const mirrorsDir = path.join(root, 'mirrors');
    mkdirSync(path.join(mirrorsDir, 'acme+widgets'), { recursive: true });
    git(root, 'clone', '--quiet', '--bare', fixture.bare, path.join(mirrorsDir, 'acme+widgets', 'repo'));
    mkdirSync(path.join(mirrorsDir, 'swe-bench+django__django'), { recursive: true });
    git(root, 'clone', '--quiet', '--bare', fixture.bare, path.join(mirrorsDir, 'swe-bench+django__django', 'repo'));

    const store = newStore({ mirrors: {}, mirrorsDir });
    expect(await store.gitDir('acme/widgets')).toBe(path.join(mirrorsDir, 'acme+widgets', 'repo'));
    expect(await store.gitDir('django/django')).toBe(path.join(mirrorsDir, 'swe-bench+django__django', 'repo'));
    const snapshot = await store.snapshot('acme/widgets', fixture.first);
    expect(await snapshot.readFile('pkg/core.py')).toContain('a + b');
  });

  it('finds a mirror whose owner differs only in case (Hub rows lowercase briannesbitt/Carbon), and refuses two such', async () => {
    const mirrorsDir = path.join(root, 'mirrors-case');
    mkdirSync(path.join(mirrorsDir, 'briannesbitt+Carbon'), { recursive: true });
    git(root, 'clone', '--quiet', '--bare', fixture.bare, path.join(mirrorsDir, 'briannesbitt+Carbon', 'repo'));
    const store = newStore({ mirrors: {}, mirrorsDir });
    expect(await store.gitDir('briannesbitt/carbon')).toBe(path.join(mirrorsDir, 'briannesbitt+Carbon', 'repo'));
    expect(await (await store.snapshot('briannesbitt/carbon', fixture.first)).readFile('pkg/core.py')).toContain('a + b');
    // an explicit --mirror given with GitHub's case serves the Hub's lowercase name too
    expect(await newStore({ mirrors: { 'Acme/Widgets': fixture.bare } }).gitDir('acme/widgets')).toBe(fixture.bare);

    mkdirSync(path.join(mirrorsDir, 'BrianNesbitt+carbon'), { recursive: true });
    git(root, 'init', '--quiet', '--bare', path.join(mirrorsDir, 'BrianNesbitt+carbon', 'repo'));
    await expectRepoError(newStore({ mirrors: {}, mirrorsDir }).gitDir('briannesbitt/CARBON'), 'missing-repo', /2 mirrors .* differ from it only in case/);
  });

  it('explicit mirrors win over mirrorsDir', async () => {
    const mirrorsDir = path.join(root, 'mirrors-precedence');
    mkdirSync(path.join(mirrorsDir, 'acme+widgets'), { recursive: true });
    git(root, 'init', '--quiet', '--bare', path.join(mirrorsDir, 'acme+widgets', 'repo'));
    const store = newStore({ mirrorsDir });
    expect(await store.gitDir('acme/widgets')).toBe(fixture.bare);
  });

  it('clones into the cache from a local URL on first use only, then reuses the clone', async () => {
    const cacheDir = path.join(root, 'clone-cache');
    const urls: string[] = [];
    const cloneUrl = (repo: string): string => {
      urls.push(repo);
      return `file://${fixture.bare}`;
    };
    const store = newStore({ mirrors: {}, cacheDir, cloneUrl, allowClone: true });
    const snapshot = await store.snapshot('acme/widgets', fixture.first.slice(0, 10));
    expect(snapshot.commit).toBe(fixture.first);
    expect(await snapshot.readFile('pkg/core.py')).toBe('def add(a, b):\n    return a + b\n');
    const cloneDir = path.join(cacheDir, 'repos', 'acme+widgets.git');
    expect(statSync(path.join(cloneDir, 'HEAD')).isFile()).toBe(true);
    expect(git(cloneDir, 'config', 'remote.origin.mirror')).toBe('true');
    expect(readdirSync(path.join(cacheDir, 'repos'))).toEqual(['acme+widgets.git']); // no partial leftovers

    // A new store with cloning off uses the cached clone.
    const again = newStore({ mirrors: {}, cacheDir, allowClone: false });
    expect(await again.gitDir('acme/widgets')).toBe(cloneDir);
    expect(urls).toEqual(['acme/widgets']);
  });

  it('fetches into its own clone when a commit is newer than the clone', async () => {
    const cacheDir = path.join(root, 'clone-fetch');
    const upstream = path.join(root, 'upstream.git');
    git(root, 'clone', '--quiet', '--bare', fixture.bare, upstream);
    const store = newStore({ mirrors: {}, cacheDir, cloneUrl: () => upstream, allowClone: true });
    await store.snapshot('acme/widgets', fixture.first);
    // a new commit lands upstream after the clone
    const work = path.join(root, 'upstream-work');
    git(root, 'clone', '--quiet', upstream, work);
    writeFileSync(path.join(work, 'new.py'), 'NEW = 1\n');
    git(work, 'add', 'new.py');
    git(work, 'commit', '--quiet', '-m', 'new');
    git(work, 'push', '--quiet', 'origin', 'HEAD:main');
    const newCommit = git(work, 'rev-parse', 'HEAD');
    const snapshot = await store.snapshot('acme/widgets', newCommit);
    expect(await snapshot.readFile('new.py')).toBe('NEW = 1\n');
  });

  it('reports a failed clone as missing-repo and leaves no partial clone', async () => {
    const cacheDir = path.join(root, 'clone-fail');
    const store = newStore({ mirrors: {}, cacheDir, cloneUrl: () => path.join(root, 'does-not-exist.git'), allowClone: true });
    await expectRepoError(store.snapshot('acme/gone', 'HEAD'), 'missing-repo', /acme\/gone: cloning .*does-not-exist\.git.* failed/);
    expect(existsSync(path.join(cacheDir, 'repos')) ? readdirSync(path.join(cacheDir, 'repos')) : []).toEqual([]);
  });
});

describe('RepoStore.materialize', () => {
  it('checks out a git work tree at the commit, borrowing the mirror objects', async () => {
    const store = newStore();
    const dir = path.join(root, 'wt-git');
    const result = await store.materialize('acme/widgets', fixture.first.slice(0, 8), dir);
    expect(result).toBe(dir);
    expect(readFileSync(path.join(dir, 'pkg', 'core.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(readFileSync(path.join(dir, 'name with spaces.py'), 'utf8')).toBe('x = 1\n');
    expect(Buffer.compare(readFileSync(path.join(dir, 'data.bin')), BINARY_BYTES)).toBe(0);
    expect(statSync(path.join(dir, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(fixture.first);
    expect(git(dir, 'status', '--porcelain')).toBe('');
    // objects are borrowed, not copied
    expect(readdirSync(path.join(dir, '.git', 'objects', 'pack'))).toEqual([]);

    // materializing again over a dirty checkout of the same commit restores it
    writeFileSync(path.join(dir, 'pkg', 'core.py'), 'broken\n');
    writeFileSync(path.join(dir, 'junk.txt'), 'junk\n');
    await store.materialize('acme/widgets', fixture.first, dir);
    expect(readFileSync(path.join(dir, 'pkg', 'core.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(existsSync(path.join(dir, 'junk.txt'))).toBe(false);

    // but never over a different commit or an unrelated folder
    await expectRepoError(store.materialize('acme/widgets', fixture.second, dir), 'git-failed', /not empty and is not a checkout of this commit/);
  });

  it('writes plain files with git: false', async () => {
    const store = newStore();
    const dir = path.join(root, 'wt-plain');
    await store.materialize('acme/widgets', fixture.second, dir, { git: false });
    expect(existsSync(path.join(dir, '.git'))).toBe(false);
    expect(readFileSync(path.join(dir, 'pkg', 'core.py'), 'utf8')).toBe('def add(a, b):\n    return b + a\n');
    expect(existsSync(path.join(dir, 'name with spaces.py'))).toBe(false);
    expect(Buffer.compare(readFileSync(path.join(dir, 'pkg', 'latin1.py')), LATIN1_BYTES)).toBe(0);
  });

  it('reports a missing commit before touching the folder', async () => {
    const dir = path.join(root, 'wt-missing');
    await expectRepoError(newStore().materialize('acme/widgets', 'feedfacefeedface', dir), 'missing-commit', /feedfacefeedface/);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('parseLsTree', () => {
  it('parses -z -l output and keeps regular files only', () => {
    const blob = 'a'.repeat(40);
    const raw = Buffer.from(
      [
        `100644 blob ${blob}      12\tsrc/a b.py`,
        `100755 blob ${blob}       3\tbin/run`,
        `120000 blob ${blob}       9\tlink`,
        `160000 commit ${blob}       -\tvendor`,
        `100644 blob ${blob}       0\tpath\twith\ttabs.py`,
      ].join('\0') + '\0',
    );
    expect(parseLsTree(raw)).toEqual([
      { path: 'src/a b.py', blob, size: 12 },
      { path: 'bin/run', blob, size: 3 },
      { path: 'path\twith\ttabs.py', blob, size: 0 },
    ]);
  });
});

describe('parseMirrorSpecs', () => {
  it('parses owner/name=PATH and rejects anything else', () => {
    expect(parseMirrorSpecs(['django/django=/m/dj.git', 'psf/requests=rel/path=odd'])).toEqual({
      'django/django': '/m/dj.git',
      'psf/requests': 'rel/path=odd',
    });
    expect(() => parseMirrorSpecs(['django=/m'])).toThrow(/invalid mirror "django=\/m": expected owner\/name=PATH/);
    expect(() => parseMirrorSpecs(['a/b='])).toThrow(/invalid mirror/);
  });
});
