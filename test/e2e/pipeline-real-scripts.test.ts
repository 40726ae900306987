/**
 * The scripts bench:pipeline-real derives for real rows (scripts/pipeline-real-scripts.ts): on the five
 * mini-benchmark instances the derivation must agree with the hand-written scripts of the end-to-end test
 * (minibench-scripts.ts); the Django label and sympy caller forms; and the plan dealing.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { dealPlans, djangoLabels, PythonAnalyzer, realInstanceScript, sympyCaller } from '../../scripts/pipeline-real-scripts.ts';
import { MINIBENCH_IDS, SCRIPT_INFO } from './minibench-scripts.ts';

const run = promisify(execFile);
let dir: string;
let bench: MiniBenchBuild;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-real-scripts-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scripts for real rows', () => {
  it('derives the gold file and function the end-to-end test names by hand, and files that exist', async () => {
    const store = new RepoStore({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
    const analyzer = await PythonAnalyzer.create();
    try {
      for (const id of Object.values(MINIBENCH_IDS)) {
        const instance = bench.instances.find((i) => i.instance_id === id)!;
        const script = await realInstanceScript(instance, store, analyzer);
        if ('reason' in script) throw new Error(`${id}: ${script.reason}`);
        expect(script.goldFile, id).toBe(SCRIPT_INFO[id]!.goldFile);
        expect(script.goldFunction, id).toBe(SCRIPT_INFO[id]!.goldFunction);
        expect(script.otherFunction, id).not.toBe(script.goldFunction);
        expect(script.reproduceArgv, `${id}: pytest by default`).toBeUndefined();
        expect(script.goldLocations?.find((l) => l.path === script.goldFile)?.entries, id).toContain(`function: ${script.goldFunction}`);
        // the no-op edit applies to the base file and puts `pass` within the line window of the gold line
        const source = (await (await store.snapshot(instance.repo, instance.base_commit)).readFile(script.goldFile))!;
        expect(script.noOpEdit, id).toBeDefined();
        expect(source.includes(script.noOpEdit!.search.join('\n')), id).toBe(true);
        expect(script.noOpEdit!.replace.map((l) => l.trim())).toContain('pass');
        const snapshot = await store.snapshot(instance.repo, instance.base_commit);
        for (const f of script.wrongFiles) expect(await snapshot.readFile(f), `${id}: ${f}`).toBeTypeOf('string');
        expect(script.wrongFiles).not.toContain(script.goldFile);
      }
    } finally {
      await store.close();
    }
  }, 120_000);

  it('turns dataset ids of both Python versions into runtests.py labels, and skips docstring ids', () => {
    expect(
      djangoLabels([
        'test_x (admin_views.tests.AdminTest)',
        'test_y (admin_views.tests.AdminTest.test_y)',
        'Regression test for #123.',
        'test_x (admin_views.tests.AdminTest)',
      ]),
    ).toEqual(['admin_views.tests.AdminTest.test_x', 'admin_views.tests.AdminTest.test_y']);
  });

  it('calls the FAIL_TO_PASS functions of the test modules, failing on an exception or a missing name', async () => {
    const root = path.join(dir, 'sympy-like');
    await mkdir(path.join(root, 'pkg', 'tests'), { recursive: true });
    await writeFile(path.join(root, 'pkg', '__init__.py'), '');
    await writeFile(path.join(root, 'pkg', 'tests', '__init__.py'), '');
    await writeFile(path.join(root, 'pkg', 'tests', 'test_a.py'), 'def test_ok():\n    pass\n\ndef test_bad():\n    assert 1 == 2\n');
    const status = async (tests: string[]) => {
      try {
        await run('python3', ['-c', sympyCaller(['pkg/tests/test_a.py', 'doc/notes.txt'], tests)], { cwd: root });
        return 0;
      } catch (err) {
        return (err as { code?: number }).code;
      }
    };
    expect(await status(['test_ok'])).toBe(0);
    expect(await status(['test_ok', 'test_bad'])).toBe(1);
    expect(await status(['test_missing'])).toBe(1);
  });

  it('deals the cycle over the rows and gives patch-generation only to a row whose no-op parses', () => {
    const row = (id: string, noOpParses = true) => ({ instance: { instance_id: id } as SweInstance, noOpParses });
    expect(dealPlans(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => row(id)))).toEqual({
      a: 'resolved',
      b: 'file',
      c: 'function',
      d: 'resolved',
      e: 'patch-generation',
      f: 'empty-patch',
    });
    const plan = dealPlans([row('a'), row('b'), row('c'), row('d'), row('e', false), row('f', false), row('g')]);
    expect(plan).toEqual({ a: 'resolved', b: 'file', c: 'function', d: 'resolved', e: 'empty-patch', f: 'resolved', g: 'patch-generation' });
    // a row whose gold patch edits module-level code cannot fail at function level: the next one that can does
    const mixed = dealPlans([row('a'), row('b'), { ...row('c'), functionCanFail: false }, row('d')]);
    expect(mixed).toEqual({ a: 'resolved', b: 'file', c: 'resolved', d: 'function' });
    // nor can a regenerated parser be resolved by scripted edits: the resolved plan passes on
    expect(dealPlans([{ ...row('a'), fixIsLocal: false }, row('b')])).toEqual({ a: 'file', b: 'resolved' });
    // a row whose wrong files define no function cannot fail at file level (it would end with an empty patch)
    expect(dealPlans([row('a'), { ...row('b'), fileCanFail: false }, row('c')])).toEqual({ a: 'resolved', b: 'function', c: 'file' });
  });

  it('scripts a C row: gold function from the tags query, C neighbours, an empty statement as the no-op, no reproduction', async () => {
    const work = path.join(dir, 'c-work');
    await mkdir(path.join(work, 'src'), { recursive: true });
    await mkdir(path.join(work, 'tests'), { recursive: true });
    const main = [
      '#include <stdio.h>',
      '',
      'static int twice(int x) {',
      '  return x * 2;',
      '}',
      '',
      'int parse(const char *s) {',
      '  int n = 0;',
      '  while (*s) n = n * 10 + (*s++ - 48);',
      '  return n;',
      '}',
      '',
    ];
    await writeFile(path.join(work, 'src', 'main.c'), main.join('\n'));
    for (const name of ['util', 'value']) await writeFile(path.join(work, 'src', `${name}.c`), `int ${name}_init(void) {\n  return 0;\n}\n`);
    // the first neighbour defines no function: the wrong answer below file level comes from the next one
    await writeFile(path.join(work, 'src', 'lexer.c'), 'const int lexer_table[] = {1, 2, 3};\n');
    await writeFile(path.join(work, 'tests', 'parse.c'), 'int main(void) { return 0; }\n');
    const git = (...args: string[]) => run('git', ['-C', work, ...args]);
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '-m', 'base');
    const base = (await git('rev-parse', 'HEAD')).stdout.trim();
    const mirrors = path.join(dir, 'c-mirrors');
    await mkdir(path.join(mirrors, 'acme+cparse'), { recursive: true });
    await run('git', ['clone', '-q', '--bare', work, path.join(mirrors, 'acme+cparse', 'repo')]);
    const patch = [
      'diff --git a/src/main.c b/src/main.c',
      '--- a/src/main.c',
      '+++ b/src/main.c',
      '@@ -8,3 +8,4 @@ int parse(const char *s) {',
      '   int n = 0;',
      '+  if (!s) return -1;',
      '   while (*s) n = n * 10 + (*s++ - 48);',
      '   return n;',
      '',
    ].join('\n');
    const instance = {
      repo: 'acme/cparse',
      instance_id: 'acme__cparse-1',
      base_commit: base,
      patch,
      test_patch: '',
      problem_statement: 'parse crashes on NULL',
      FAIL_TO_PASS: ['null input'],
      PASS_TO_PASS: [],
      version: '1',
    } as unknown as SweInstance;
    const store = new RepoStore({ cacheDir: path.join(dir, 'c-cache'), mirrorsDir: mirrors, allowClone: false });
    try {
      const script = await realInstanceScript(instance, store, await PythonAnalyzer.create());
      if ('reason' in script) throw new Error(script.reason);
      expect(script.goldFile).toBe('src/main.c');
      expect(script.goldFunction).toBe('parse');
      expect(script.otherFunction).toBe('twice');
      expect([...script.wrongFiles].sort()).toEqual(['src/lexer.c', 'src/util.c', 'src/value.c']);
      expect(script.reproduceArgv).toBeUndefined();
      expect(script.noOpParses).toBe(true);
      expect(script.noOpEdit!.replace).toContain('  ;');
      expect(script.functionCanFail).toBe(true);
      expect(script.fixIsLocal).toBe(true);
      expect(script.wrongFunction).toEqual({ path: 'src/util.c', name: 'util_init' });
      expect(script.fileCanFail).toBe(true);
    } finally {
      await store.close();
    }
  });
});
