import { describe, expect, it } from 'vitest';
import { createFileFilter, globToRegExp, isTestPath } from '../../src/index/file-filter.ts';

describe('file filter', () => {
  it('keeps Python sources and drops tests by default', () => {
    const accept = createFileFilter();
    expect(accept('django/db/models/query.py')).toBe(true);
    expect(accept('setup.py')).toBe(true);
    expect(accept('README.rst')).toBe(false);
    expect(accept('tests/test_query.py')).toBe(false);
    expect(accept('pkg/testing/utils.py')).toBe(false);
    expect(accept('pkg/test_models.py')).toBe(false);
    expect(accept('pkg/tests.py')).toBe(false);
    expect(accept('pkg/conftest.py')).toBe(true);
    expect(accept('pkg/contest.py')).toBe(true);
  });

  it('can keep tests, and takes include/exclude globs', () => {
    expect(createFileFilter({ excludeTests: false })('tests/test_query.py')).toBe(true);
    const accept = createFileFilter({ include: ['src/**'], exclude: ['**/migrations/*.py', '_vendor'] });
    expect(accept('src/app/models.py')).toBe(true);
    expect(accept('lib/app/models.py')).toBe(false);
    expect(accept('src/app/migrations/0001_initial.py')).toBe(false);
    expect(createFileFilter({ extensions: ['.py', '.pyi'] })('pkg/stubs.pyi')).toBe(true);
  });

  it('translates globs', () => {
    expect(globToRegExp('**/*.py').test('a/b/c.py')).toBe(true);
    expect(globToRegExp('**/*.py').test('c.py')).toBe(true);
    expect(globToRegExp('a/*.py').test('a/b/c.py')).toBe(false);
    expect(globToRegExp('*.{py,pyi}').test('x/y.pyi')).toBe(true);
    expect(globToRegExp('a?c.py').test('abc.py')).toBe(true);
    expect(() => globToRegExp('{a,b')).toThrow(/unclosed/);
    expect(isTestPath('a/Tests/b.py')).toBe(true);
  });
});
