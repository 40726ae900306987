/**
 * What locfix knows about one programming language's source files, in one record: its tree-sitter grammar,
 * which files are its source files, the syntax-tree node types the structural code walks, and the text rules of
 * the lexical channels (module paths, test files, traceback frames). A record lives in its language's folder
 * (`src/languages/<language>/`), beside the folder's query files, log parsers and environment specs
 * (`./language-folder.ts`).
 *
 * One convention still spans languages outside the folder: the index files of a module folder
 * (`src/index/graph/module-resolver.ts`: `__init__`, `index`, `mod`, `lib`, Rust's `crate`/`self`). A language
 * whose module layout differs there touches that file too.
 */

/** What a definition is: a method is a function whose innermost enclosing definition is a class. */
export type DefinitionKind = 'class' | 'function' | 'method';

export interface GrammarSource {
  /** npm package that ships the grammar's prebuilt wasm */
  packageName: string;
  /** the wasm file inside that package */
  wasmFile: string;
}

/** Node types of the grammar that the structural code (chunks, definitions, skeletons) walks. */
export interface LanguageSyntax {
  /** definition node type → what it defines (methods are functions whose innermost definition is a class) */
  definitions: Readonly<Record<string, Exclude<DefinitionKind, 'method'>>>;
  /** a wrapper around a definition (decorators), and the field holding the definition */
  decorated?: { type: string; field: string };
  /** the field of a definition holding its name, and the one holding its body */
  nameField: string;
  bodyField: string;
  /** the node type of a statement block */
  block: string;
  /** compound statements whose blocks can hold definitions visible at the enclosing scope */
  compoundStatements: ReadonlySet<string>;
}

/** A traceback frame pattern: capture groups 1 = file path, 2 = line, 3 = function (optional). */
export interface FramePattern {
  name: string;
  /** global regex */
  pattern: RegExp;
  /** the frame's text would otherwise be read as code (CPython's quoted `File "…", line N`): blank it before scanning code */
  blankInCode?: boolean;
}

export interface LanguageSpec {
  id: string;
  /** the language's folder (absolute): its query files are read from there */
  folder: string;
  grammar: GrammarSource;
  /** languages of one family share a repository's index (JavaScript with TypeScript, C with C++); default: its id */
  family?: string;
  /** the tags query (a .scm file in its folder) that finds its definitions; languages without one are walked (`syntax`) */
  tags?: string;
  /** the query with its `@reference.call` / `.inherits` / `.import` captures (the code graph); default: `tags` */
  references?: string;
  /**
   * whether the retrieval index takes its files and its rules (stopwords, paths, frames) feed the lexical
   * channels; a language parsed only for definitions and syntax checks is not indexed
   */
  indexed: boolean;
  /** extensions of its source files: indexed, ranked and parsed (lowercase, with dot) */
  extensions: readonly string[];
  /**
   * git's built-in diff driver for it (`python`, `golang`, …; gitattributes(5) "Defining a custom hunk-header"),
   * so a history's hunk headers name the enclosing function or method, not the last unindented line; none: git's
   * default, which finds top-level definitions only
   */
  gitDiffDriver?: string;
  /** further extensions the grammar parses that are not indexed by default (e.g. type stubs) */
  alsoParses?: readonly string[];
  /**
   * endings of declaration files among its extensions (`.d.ts`): they describe an API without
   * implementing it, so like type stubs they are parsed on request but not indexed by default
   */
  declarationSuffixes?: readonly string[];
  /** keywords and names so common in its source that they carry no location signal (left out of lexical search) */
  stopwords: readonly string[];
  /** the info string of a markdown code fence holding this language (prompts show code in fences) */
  fence: string;
  /** node types for the hand-written structural walkers (Python); tag-described languages have none */
  syntax?: LanguageSyntax;
  /**
   * whether a file of this language is a test by its own name (lowercase, no folder): how its ecosystem names tests
   * (Python's test_x.py, Go's x_test.go, x.test.ts); test folders are the same in every language (file-filter.ts)
   */
  isTestFile?(fileName: string): boolean;
  /** the dotted module a source file is imported as ("pkg/mod.py" → "pkg.mod"), undefined when it has none */
  modulePath(path: string): string | undefined;
  /** the name a file's module is called by (its stem, or the package folder of an index file) */
  moduleName(path: string): string | undefined;
  /** repository paths that would define the module `a/b` (`a/b.py`, `a/b/__init__.py`), most specific first */
  moduleFiles(base: string): string[];
  /** paths of its source files as issues mention them ("models.py", "pkg/models.py"), global regex */
  sourcePath: RegExp;
  /** words that end a dotted chain without making it a module path ("py" in "foo.py") */
  fileSuffixWords: readonly string[];
  /** traceback frames as its runtime and test runners print them */
  frames: readonly FramePattern[];
}
