/**
 * Which repository files get indexed. The default follows BLAgent: source files of the indexed languages,
 * and no tests — a file whose name starts with "test" (test_x.py, tests.py) or anything under a folder
 * whose name starts with "test" (test/, tests/, testing/, testcases/) is left out, and so are the test
 * files other ecosystems name by suffix or folder (`x_test.go`, `x.test.ts`, `x.spec.js`, `__tests__/`,
 * `spec/`, `x_spec.rb`). Never indexed, whatever the extensions: vendored code, build output, minified
 * and generated files (`skipReason` says which). Include/exclude globs refine that.
 */
import { familyOf, INDEXED_LANGUAGES, languageForPath, sourceExtensions } from '../languages/index.ts';
export interface FileFilterOptions {
  /** file extensions to index (lowercase, with dot); default: the source files of the languages chosen by `languages` */
  extensions?: readonly string[];
  /**
   * which indexed languages a repository's index takes when `extensions` is not given: 'main' (default) the
   * language family with the most source files of the commit (JavaScript/TypeScript one family, C/C++
   * another), 'all' every indexed language. Files in a repository's minor languages (a Python project's
   * C extensions or its docs' JavaScript) are rarely where a fix goes and crowd the lexical channels.
   */
  languages?: 'main' | 'all';
  /** leave out test files and folders (see above); default true */
  excludeTests?: boolean;
  /** when given, a file must match at least one of these globs */
  include?: readonly string[];
  /** files matching any of these globs are left out */
  exclude?: readonly string[];
}

export type FileFilter = (path: string) => boolean;

/**
 * Glob → RegExp over repository-relative POSIX paths: `**` any number of folders, `*` within one segment,
 * `?` one char, `{a,b}` alternatives. A glob without `/` matches the file name in any folder.
 */
export function globToRegExp(glob: string): RegExp {
  if (glob.length === 0) throw new Error('empty glob');
  const anchored = glob.includes('/') ? glob.replace(/^\//, '') : `**/${glob}`;
  let re = '';
  for (let i = 0; i < anchored.length; i++) {
    const c = anchored[i];
    if (c === '*') {
      if (anchored[i + 1] === '*') {
        // "**/" matches zero or more folders; a trailing "**" matches the rest
        if (anchored[i + 2] === '/') {
          re += '(?:[^/]+/)*';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const close = anchored.indexOf('}', i);
      if (close < 0) throw new Error(`glob "${glob}": unclosed "{"`);
      const alts = anchored
        .slice(i + 1, close)
        .split(',')
        .map((a) => a.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'));
      re += `(?:${alts.join('|')})`;
      i = close;
    } else {
      re += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

export function isTestPath(path: string): boolean {
  const segments = path.split('/');
  const last = segments.length - 1;
  for (let i = 0; i < last; i++) {
    const segment = segments[i].toLowerCase();
    if (segment.startsWith('test') || segment === '__tests__' || segment === 'spec' || segment === '__mocks__') return true;
  }
  const file = segments[last]!.toLowerCase();
  // how a file names itself a test is its language's own rule (its record's isTestFile)
  return languageForPath(file)?.isTestFile?.(file) ?? false;
}

// folders whose files are someone else's code or the output of a build, in any ecosystem
const VENDORED = new Set(['node_modules', 'vendor', 'third_party', 'third-party', 'bower_components', '.git']);
const BUILD_OUTPUT = new Set(['dist', 'build', 'target', 'out', '.next', 'coverage']);

// code that exercises the project rather than being it, like its tests: benchmarks and demo apps (examples
// stay: they are the project's documentation in code, shipped for users to copy, and issues are filed on them)
const EXERCISES = new Set(['bench', 'benches', 'benchmark', 'benchmarks', 'asv_bench', 'asv_benchmarks', 'demo', 'demos']);

/**
 * Why a file is never indexed, or undefined when it may be: vendored, build output, benchmark or demo
 * code, minified, generated, or tooling — what lives in hidden folders and files (`.yarn/releases/yarn-3.1.1.cjs`, `.github/`,
 * `.eslintrc.js`) and the build tools' configuration (`babel.config.js`, `Gulpfile.mjs`): the state and
 * settings of tools, not the project's code.
 */
export function skipReason(path: string): 'vendored' | 'build-output' | 'minified' | 'generated' | 'tooling' | 'benchmark-or-demo' | undefined {
  const segments = path.toLowerCase().split('/');
  const folders = segments.slice(0, -1);
  if (folders.some((f) => VENDORED.has(f))) return 'vendored';
  if (folders.some((f) => BUILD_OUTPUT.has(f))) return 'build-output';
  if (folders.some((f) => EXERCISES.has(f))) return 'benchmark-or-demo';
  const file = segments[segments.length - 1]!;
  if (segments.some((s) => s.startsWith('.') && s !== '.' && s !== '..')) return 'tooling';
  if (/\.conf(ig)?\.[cm]?[jt]s$|^(gulpfile|gruntfile)\.[cm]?[jt]s$/.test(file)) return 'tooling';
  if (/[.-]min\.[cm]?js$|\.bundle\.[cm]?js$/.test(file)) return 'minified';
  if (/\.pb\.go$|_pb2(_grpc)?\.py$|\.pb\.(cc|h)$|[._]generated\.\w+$|\.g\.dart$/.test(file)) return 'generated';
  return undefined;
}

/** What the filter decided for one file: indexed, or why not. */
export type FileVerdict =
  | 'indexed'
  /** no language locfix indexes (docs, data, build files, lock files) */
  | 'not-source'
  /** source in an indexed language outside the commit's main family (a Python project's C or JavaScript) */
  | 'other-language'
  /** a declaration file (`.d.ts`): an API described, not implemented; indexed only when `extensions` names it */
  | 'declaration'
  | 'test'
  | 'vendored'
  | 'build-output'
  | 'minified'
  | 'generated'
  | 'tooling'
  | 'benchmark-or-demo'
  /** left out by the include/exclude globs */
  | 'excluded';

const DECLARATION_SUFFIXES = INDEXED_LANGUAGES.flatMap((l) => l.declarationSuffixes ?? []);
const isDeclaration = (lowerPath: string) => DECLARATION_SUFFIXES.some((s) => lowerPath.endsWith(s));

export function createFileVerdict(options: FileFilterOptions = {}): (path: string) => FileVerdict {
  const extensions = (options.extensions ?? sourceExtensions()).map((e) => e.toLowerCase());
  const excludeTests = options.excludeTests ?? true;
  const include = (options.include ?? []).map(globToRegExp);
  const exclude = (options.exclude ?? []).map(globToRegExp);
  return (path: string): FileVerdict => {
    const lower = path.toLowerCase();
    const listed = extensions.some((e) => lower.endsWith(e));
    const spec = listed ? undefined : languageForPath(path);
    if (!listed && !(spec?.indexed && spec.extensions.some((e) => lower.endsWith(e)))) {
      // a declaration a language parses on request only (`.pyi` stubs) says why it is left out
      return spec?.indexed && isDeclaration(lower) && !skipReason(path) ? 'declaration' : 'not-source';
    }
    // from here on the file is source code: the most telling reason first
    const skipped = skipReason(path);
    if (skipped) return skipped;
    if (isDeclaration(lower) && !extensions.some((e) => DECLARATION_SUFFIXES.includes(e) && lower.endsWith(e))) return 'declaration';
    if (!listed) return 'other-language';
    if (excludeTests && isTestPath(path)) return 'test';
    if (include.length > 0 && !include.some((r) => r.test(path))) return 'excluded';
    if (exclude.some((r) => r.test(path))) return 'excluded';
    return 'indexed';
  };
}

export function createFileFilter(options: FileFilterOptions = {}): FileFilter {
  const verdict = createFileVerdict(options);
  return (path: string): boolean => verdict(path) === 'indexed';
}

/** How many of a commit's files got each verdict, with a few example paths of each left-out kind. */
export interface FileSelection {
  counts: Partial<Record<FileVerdict, number>>;
  examples: Partial<Record<Exclude<FileVerdict, 'indexed'>, string[]>>;
}

const SELECTION_EXAMPLES = 3;

export function summarizeFileSelection(paths: readonly string[], verdict: (path: string) => FileVerdict): FileSelection {
  const selection: FileSelection = { counts: {}, examples: {} };
  for (const p of paths) {
    const v = verdict(p);
    selection.counts[v] = (selection.counts[v] ?? 0) + 1;
    if (v === 'indexed' || v === 'not-source') continue;
    const list = (selection.examples[v] ??= []);
    if (list.length < SELECTION_EXAMPLES) list.push(p);
  }
  return selection;
}

/**
 * The extensions of the commit's main language family: the one with the most source files that are
 * neither tests nor skipped. Empty when none of the files is in an indexed language.
 */
export function mainLanguageExtensions(paths: readonly string[]): string[] {
  const files = new Map<string, number>();
  for (const p of paths) {
    const spec = languageForPath(p);
    if (!spec?.indexed || skipReason(p) || isTestPath(p) || bundlesOthersCode(p) || isDeclaration(p.toLowerCase())) continue;
    if (!spec.extensions.some((e) => p.toLowerCase().endsWith(e))) continue; // parsed on request only (.pyi)
    files.set(familyOf(spec), (files.get(familyOf(spec)) ?? 0) + 1);
  }
  const best = [...files].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  if (!best) return [];
  return sourceExtensions().filter((e) => {
    const spec = languageForPath(`x${e}`);
    return spec !== undefined && familyOf(spec) === best;
  });
}

// folders that conventionally bundle other projects' sources (astropy's cextern/ holds thousands of C files
// of wcslib, cfitsio and expat): indexed as usual, but they do not vote on the main language
const BUNDLED = new Set(['extern', 'cextern', 'external', 'externals', 'deps']);
const bundlesOthersCode = (path: string) =>
  path
    .toLowerCase()
    .split('/')
    .slice(0, -1)
    .some((f) => BUNDLED.has(f));

/** The filter options for one commit: `extensions` resolved from `languages` and the commit's files. */
export function resolveFileFilter(options: FileFilterOptions, paths: readonly string[]): FileFilterOptions {
  if (options.extensions || options.languages === 'all') return options;
  return { ...options, extensions: mainLanguageExtensions(paths) };
}
