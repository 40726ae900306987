import { describe, expect, it } from 'vitest';
import {
  createFileFilter,
  createFileVerdict,
  globToRegExp,
  isTestPath,
  mainLanguageExtensions,
  resolveFileFilter,
  skipReason,
  summarizeFileSelection,
} from '../../src/index/file-filter.ts';

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

  it('knows the test files of other ecosystems, and skips vendored, built, minified and generated files with a reason', () => {
    for (const t of [
      'binding/render_test.go',
      'src/x.test.ts',
      'src/x.spec.jsx',
      'src/__tests__/a.js',
      'spec/plugin/out_spec.rb',
      'lib/x_spec.rb',
      'src/a.test.mts',
      'src/b.spec.cjs',
      'src/c.test.tsx',
      'stubs/test_x.pyi',
    ]) {
      expect(isTestPath(t), t).toBe(true);
    }
    for (const f of ['src/diff/index.js', 'lib/fluent/spec.rb', 'context.go', 'src/Carbon/Traits/Test.php']) expect(isTestPath(f), f).toBe(false);
    expect(skipReason('node_modules/react/index.js')).toBe('vendored');
    expect(skipReason('third_party/zlib/inflate.c')).toBe('vendored');
    expect(skipReason('packages/core/dist/index.js')).toBe('build-output');
    expect(skipReason('target/debug/build.rs')).toBe('build-output');
    expect(skipReason('docs/_static/jquery-3.5.1.min.js')).toBe('minified');
    expect(skipReason('api/service.pb.go')).toBe('generated');
    expect(skipReason('proto/msg_pb2.py')).toBe('generated');
    expect(skipReason('src/build.rs')).toBeUndefined(); // a Rust build script is source
    expect(skipReason('django/core/management/commands/makemigrations.py')).toBeUndefined();
    const accept = createFileFilter({ extensions: ['.js', '.go'] });
    expect(['src/a.js', 'dist/a.js', 'src/a.min.js', 'a_test.go', 'a.go'].filter(accept)).toEqual(['src/a.js', 'a.go']);
  });

  it("indexes a commit's main language family: a Python project's C extensions and docs JavaScript stay out", () => {
    const matplotlib = ['lib/a.py', 'lib/b.py', 'lib/c.py', 'src/ft2font.cpp', 'src/_path.h', 'doc/_static/x.js', 'lib/tests/test_a.py'];
    expect(mainLanguageExtensions(matplotlib)).toEqual(['.py']);
    // tests and build output do not vote: two .js sources and a TypeScript file outvote three Go tests
    const web = ['src/a.js', 'src/b.ts', 'dist/c.js', 'dist/d.js', 'x_test.go', 'y_test.go', 'z_test.go', 'tool.go'];
    const ext = mainLanguageExtensions(web);
    expect(ext).toEqual(expect.arrayContaining(['.js', '.ts', '.tsx']));
    expect(ext).not.toContain('.go');
    expect(mainLanguageExtensions(['README.md'])).toEqual([]);
    // bundled C libraries do not make a Python project a C project
    const astropy = ['astropy/io/fits/fitsrec.py', 'astropy/wcs/wcs.py', ...['a', 'b', 'c', 'd'].map((x) => `cextern/wcslib/C/${x}.c`)];
    expect(mainLanguageExtensions(astropy)).toEqual(['.py']);
    expect(resolveFileFilter({ languages: 'all' }, matplotlib).extensions).toBeUndefined();
    expect(resolveFileFilter({ extensions: ['.c'] }, matplotlib).extensions).toEqual(['.c']);
    expect(resolveFileFilter({}, ['a.go', 'b.go', 'c.py']).extensions).toEqual(['.go']);
  });

  it('gives every left-out file its reason: tooling, benchmarks and demos, declaration files, other languages', () => {
    const verdict = createFileVerdict({ extensions: ['.js', '.ts', '.tsx'] });
    const cases: Record<string, string> = {
      'src/diff/children.js': 'indexed',
      'examples/todo/app.js': 'indexed', // examples are the project's documentation in code
      '.yarn/releases/yarn-3.1.1.cjs': 'tooling',
      '.github/workflows/notes.md': 'not-source',
      '.eslintrc.js': 'tooling',
      'babel.config.js': 'tooling',
      'packages/x/jest.config.ts': 'tooling',
      'Gulpfile.js': 'tooling',
      'benches/src/keyed-children/index.js': 'benchmark-or-demo',
      'demo/list.js': 'benchmark-or-demo',
      'src/jsx.d.ts': 'declaration',
      'hooks/src/index.d.ts': 'declaration',
      'src/x.test.ts': 'test',
      'lib/server.go': 'other-language',
      'README.md': 'not-source',
      'node_modules/a/index.js': 'vendored',
    };
    for (const [file, expected] of Object.entries(cases)) expect(verdict(file), file).toBe(expected);
    // a declaration file is indexed when asked for by name
    expect(createFileVerdict({ extensions: ['.d.ts'] })('src/jsx.d.ts')).toBe('indexed');
    // Python type stubs are declarations too, in a Python repository and elsewhere
    expect(createFileVerdict({ extensions: ['.py'] })('pkg/stubs.pyi')).toBe('declaration');
    expect(verdict('pkg/stubs.pyi')).toBe('declaration');
    expect(createFileVerdict({ extensions: ['.py', '.pyi'] })('pkg/stubs.pyi')).toBe('indexed');
    // the main-language vote ignores declaration files too
    expect(mainLanguageExtensions(['a.d.ts', 'b.d.ts', 'c.d.ts', 'x.go'])).toEqual(['.go']);
    const selection = summarizeFileSelection(Object.keys(cases), verdict);
    expect(selection.counts).toMatchObject({ indexed: 2, tooling: 5, 'benchmark-or-demo': 2, declaration: 2, test: 1 });
    expect(selection.examples.declaration).toEqual(['src/jsx.d.ts', 'hooks/src/index.d.ts']);
    expect(selection.examples).not.toHaveProperty('not-source');
  });
});
