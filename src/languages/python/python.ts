/** Python: tree-sitter-python, CPython and pytest tracebacks, dotted module paths with package `__init__.py`. */
import { folderOf } from '../language-folder.ts';
import type { LanguageSpec, LanguageSyntax } from '../types.ts';

const PACKAGE_INDEX = '__init__';

export const python: LanguageSpec & { syntax: LanguageSyntax } = {
  id: 'python',
  folder: folderOf(import.meta.url),
  indexed: true,
  grammar: { packageName: 'tree-sitter-python', wasmFile: 'tree-sitter-python.wasm' },
  // definitions come from the walker (syntax below); calls, bases and imports from this query
  references: 'python.scm',
  extensions: ['.py'],
  gitDiffDriver: 'python',
  // type stubs repeat the signatures of the implementation; they are parsed on request, not indexed
  alsoParses: ['.pyi'],
  // a *file* named test… is a test in Python (test_x.py, tests.py); elsewhere it can be source (Carbon's
  // Traits/Test.php is the setTestNow trait), and those ecosystems name tests by suffix
  isTestFile: (file) => file.startsWith('test'),
  declarationSuffixes: ['.pyi'],
  // biome-ignore format: a word list reads better wrapped than one word a line
  stopwords: [
    'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else',
    'except', 'false', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'none',
    'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'true', 'try', 'while', 'with', 'yield',
    // ubiquitous in Python source, carry no location signal
    'self', 'cls', 'py', 'args', 'kwargs',
  ],
  fence: 'python',
  syntax: {
    definitions: { function_definition: 'function', class_definition: 'class' },
    decorated: { type: 'decorated_definition', field: 'definition' },
    nameField: 'name',
    bodyField: 'body',
    block: 'block',
    compoundStatements: new Set([
      'if_statement',
      'elif_clause',
      'else_clause',
      'try_statement',
      'except_clause',
      'except_group_clause',
      'finally_clause',
      'with_statement',
      'for_statement',
      'while_statement',
      'match_statement',
      'case_clause',
    ]),
  },
  modulePath(path) {
    if (!path.endsWith('.py') && !path.endsWith('.pyi')) return undefined;
    let p = path.slice(0, path.lastIndexOf('.'));
    if (p.endsWith(`/${PACKAGE_INDEX}`)) p = p.slice(0, -`/${PACKAGE_INDEX}`.length);
    if (!p || p.includes('.')) return undefined;
    return p.split('/').join('.');
  },
  moduleName(path) {
    const slash = path.lastIndexOf('/');
    const stem = path.slice(slash + 1).replace(/\.pyi?$/, '');
    const name = stem === PACKAGE_INDEX ? path.slice(path.lastIndexOf('/', slash - 1) + 1, slash) : stem;
    return name && !name.startsWith('__') ? name : undefined;
  },
  moduleFiles: (base) => [`${base}.py`, `${base}/${PACKAGE_INDEX}.py`],
  sourcePath: /(?:[A-Za-z0-9_.~-]+\/)*[A-Za-z0-9_-]+\.(?:py|pyx|pyi)\b/g,
  fileSuffixWords: ['py', 'pyx', 'pyi'],
  frames: [
    // File "x.py", line 12, in f
    { name: 'cpython', pattern: /File "([^"\n]+)", line (\d+)(?:, in ([^\s\n]+))?/g, blankInCode: true },
    // x.py:12: in f   and   x.py:12: SomeError   (pytest long and short tracebacks)
    { name: 'pytest', pattern: /(?:^|\s)((?:[\w.~-]+\/)*[\w-]+\.py):(\d+):(?: in (\w+))?/gm },
  ],
};
