/**
 * tree-sitter grammars, loaded once per process.
 *
 * Grammars are wasm files shipped inside npm packages (`tree-sitter-python` ships
 * `tree-sitter-python.wasm`), so parsing needs no native build and no download. Adding a language is one
 * entry in GRAMMARS.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, type Tree } from 'web-tree-sitter';
import { parseSource } from './parse.ts';

const require = createRequire(import.meta.url);

export type LanguageId = 'python';

interface GrammarSpec {
  /** npm package that ships the grammar */
  packageName: string;
  /** wasm file inside that package */
  wasmFile: string;
  /** file extensions this grammar parses */
  extensions: readonly string[];
}

export const GRAMMARS: Record<LanguageId, GrammarSpec> = {
  python: { packageName: 'tree-sitter-python', wasmFile: 'tree-sitter-python.wasm', extensions: ['.py', '.pyi'] },
};

let initPromise: Promise<void> | undefined;
const languages = new Map<LanguageId, Promise<Language>>();

function grammarPath(spec: GrammarSpec): string {
  const pkgJson = require.resolve(`${spec.packageName}/package.json`);
  return path.join(path.dirname(pkgJson), spec.wasmFile);
}

export async function loadLanguage(id: LanguageId): Promise<Language> {
  initPromise ??= Parser.init();
  await initPromise;
  let lang = languages.get(id);
  if (!lang) {
    lang = Language.load(grammarPath(GRAMMARS[id]));
    languages.set(id, lang);
  }
  return lang;
}

export function languageForPath(filePath: string): LanguageId | undefined {
  const ext = path.extname(filePath).toLowerCase();
  for (const [id, spec] of Object.entries(GRAMMARS) as [LanguageId, GrammarSpec][]) {
    if (spec.extensions.includes(ext)) return id;
  }
  return undefined;
}

/**
 * A parser bound to one language. Parsers are cheap but not free; callers that parse many files should
 * create one and reuse it. Remember to `tree.delete()` when done with large trees (wasm memory).
 */
export async function createParser(id: LanguageId = 'python'): Promise<Parser> {
  // loadLanguage runs Parser.init(); the Parser constructor throws if called before it.
  const language = await loadLanguage(id);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/** Parses `source` and hands the tree to `fn`, freeing the wasm memory afterwards. */
export async function withTree<T>(source: string, fn: (tree: Tree) => T, id: LanguageId = 'python'): Promise<T> {
  const parser = await createParser(id);
  const tree = parseSource(parser, source);
  if (!tree) throw new Error(`tree-sitter returned no tree for ${id} source`);
  try {
    return fn(tree);
  } finally {
    tree.delete();
    parser.delete();
  }
}
