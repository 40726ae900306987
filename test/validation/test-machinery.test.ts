/**
 * The model patch's test machinery stays at the base commit (issue 51): which paths are machinery, per language,
 * and how a patch is cut around them (git and plain diffs, new files, renames), with what was left out.
 */
import { describe, expect, it } from 'vitest';
import { parsePatch } from '../../src/patch.ts';
import { separateTestMachinery, testMachineryRule } from '../../validation/test-machinery.ts';

const fileDiff = (path: string, body = '@@ -1 +1 @@\n-a\n+b') => `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${body}`;
const newFile = (path: string) => `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1 @@\n+x`;

describe('which files are test machinery', () => {
  it.each([
    ['conftest.py', 'pytest conftest'],
    ['tests/conftest.py', 'pytest conftest'],
    ['pytest.ini', 'pytest configuration'],
    ['tox.ini', 'tox/pytest configuration'],
    ['tests/test_core.py', 'Python test file'],
    ['pkg/helpers_test.py', 'Python test file'],
    ['django/tests/foo/models.py', 'a file under tests/'],
    ['sympy/testing/runtests.py', 'a file under testing/'],
    ['jest.config.js', 'JavaScript runner configuration'],
    ['vitest.config.mts', 'JavaScript runner configuration'],
    ['src/util.spec.ts', 'JavaScript test file'],
    ['lib/__tests__/a.js', 'a file under __tests__/'],
    ['.mocharc.yml', 'mocha configuration'],
    ['context_test.go', 'Go test file'],
    ['spec/models/user_spec.rb', 'Ruby test file'],
    ['.rspec', 'RSpec configuration'],
    ['phpunit.xml.dist', 'PHPUnit configuration'],
    ['src/test/java/FooTest.java', 'a file under test/'],
  ])('%s: %s', (path, rule) => expect(testMachineryRule(path)).toBe(rule));

  it.each([
    'django/db/models/query.py',
    'src/_pytest/python.py',
    'setup.cfg',
    'pyproject.toml',
    'package.json',
    'Cargo.toml',
    'src/contest.py',
    'lib/latest.js',
  ])('%s is not', (path) => expect(testMachineryRule(path)).toBeUndefined());
});

describe('the patch without its test machinery', () => {
  const fix = fileDiff('clampkit/core.py');
  const hook = newFile('conftest.py');
  const tests = fileDiff('tests/conftest.py');

  it('restore: machinery diffs left out, the rest byte for byte; added files removed, modified ones restored', () => {
    const { patch, edits } = separateTestMachinery(`${hook}\n${fix}\n${tests}\n`);
    expect(patch).toBe(`${fix}\n`);
    expect(edits).toEqual([
      { path: 'conftest.py', action: 'removed', rule: 'pytest conftest' },
      { path: 'tests/conftest.py', action: 'restored', rule: 'pytest conftest' },
    ]);
    expect(parsePatch(patch).map((f) => f.path)).toEqual(['clampkit/core.py']);
  });

  it('keep: the patch as written, the edits said; a patch without machinery is returned as it is', () => {
    const whole = `${hook}\n${fix}\n`;
    expect(separateTestMachinery(whole, 'keep')).toEqual({ patch: whole, edits: [{ path: 'conftest.py', action: 'kept', rule: 'pytest conftest' }] });
    expect(separateTestMachinery(`${fix}\n`)).toEqual({ patch: `${fix}\n`, edits: [] });
  });

  it('plain unified diffs (no diff --git line), a removed line that reads "--- ", and renames into machinery', () => {
    const plain = `--- a/conftest.py\n+++ b/conftest.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n--- a/lib.sql\n+++ b/lib.sql\n@@ -1,2 +1,1 @@\n--- comment\n select 1\n`;
    const { patch, edits } = separateTestMachinery(plain);
    expect(edits.map((e) => e.path)).toEqual(['conftest.py']);
    expect(parsePatch(patch).map((f) => f.path)).toEqual(['lib.sql']);
    expect(patch).toContain('--- comment');
    const rename = 'diff --git a/helpers.py b/tests/helpers.py\nsimilarity index 100%\nrename from helpers.py\nrename to tests/helpers.py\n';
    expect(separateTestMachinery(rename).edits).toEqual([{ path: 'tests/helpers.py', action: 'restored', rule: 'a file under tests/' }]);
  });

  it('a patch of nothing but machinery leaves an empty patch; an unreadable one is left alone', () => {
    expect(separateTestMachinery(`${hook}\n`).patch).toBe('');
    expect(separateTestMachinery('diff --git nonsense\n')).toEqual({ patch: 'diff --git nonsense\n', edits: [] });
  });
});
