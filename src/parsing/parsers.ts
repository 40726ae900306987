/**
 * tree-sitter parsers by language. The grammars (prebuilt wasm files inside npm packages, no native build,
 * no download) are loaded when this module is first imported, with a top-level await: any module that
 * can reach a parser has imported this one, so the synchronous parsing helpers never depend on someone
 * having awaited a warm-up first. One shared parser per language per process; `newParser` gives a private
 * one to code that keeps its own (parsers are cheap, but trees must be freed: `tree.delete()`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';
import { LANGUAGES, languageById, languageForPath, type LanguageId } from '../languages/index.ts';
import type { LanguageSpec } from '../languages/types.ts';

const require = createRequire(import.meta.url);

function grammarPath(spec: LanguageSpec): string {
  const pkgJson = require.resolve(`${spec.grammar.packageName}/package.json`);
  return path.join(path.dirname(pkgJson), spec.grammar.wasmFile);
}

await Parser.init();
const grammars = new Map<LanguageId, Language>(await Promise.all(LANGUAGES.map(async (spec) => [spec.id, await Language.load(grammarPath(spec))] as const)));
const shared = new Map<LanguageId, Parser>();
const specOfParser = new WeakMap<Parser, LanguageSpec>();

/** The loaded grammar of a language (queries are compiled against it). */
export function grammarOf(language: LanguageId): Language {
  const grammar = grammars.get(language);
  if (!grammar) throw new Error(`no grammar loaded for language "${language}"`);
  return grammar;
}

/** A parser of its own for `language` (the caller deletes it when done). */
export function newParser(language: LanguageId | LanguageSpec): Parser {
  const spec = typeof language === 'string' ? languageById(language) : language;
  const parser = new Parser();
  parser.setLanguage(grammars.get(spec.id)!);
  specOfParser.set(parser, spec);
  return parser;
}

/** The process-wide parser of `language`. */
export function parserFor(language: LanguageId | LanguageSpec): Parser {
  const id = typeof language === 'string' ? language : language.id;
  let parser = shared.get(id);
  if (!parser) {
    parser = newParser(id);
    shared.set(id, parser);
  }
  return parser;
}

/** The shared parser for a file's language, or undefined when no registered language parses it. */
export function parserForPath(filePath: string): Parser | undefined {
  const spec = languageForPath(filePath);
  return spec ? parserFor(spec) : undefined;
}

/** The language a parser from this module was made for. */
export function languageOfParser(parser: Parser): LanguageSpec {
  const spec = specOfParser.get(parser);
  if (!spec) throw new Error('internal: a tree-sitter parser not made by src/parsing/parsers.ts');
  return spec;
}
