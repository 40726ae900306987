/** Parsing with a tree-sitter parser and freeing the tree afterwards; node helpers shared by the structural code. */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { parserFor } from './parsers.ts';

/**
 * Parses `source`; node indices and columns are UTF-16 code units of `source`, rows count '\n'.
 * The caller deletes the tree. (Feeding the source in windows through an input callback was measured
 * as no faster than passing the string once the wasm code is warm.)
 */
export function parseSource(parser: Parser, source: string): Tree | null {
  return parser.parse(source);
}

/** children without the nulls web-tree-sitter's typings allow */
export function childrenOf(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

/** The language the structural helpers assume when a caller passes no parser: the one locfix started with. */
export const DEFAULT_LANGUAGE = 'python';

/** `parser` if given, else the shared parser of the default language. */
export function parserOrDefault(parser: Parser | undefined): Parser {
  return parser ?? parserFor(DEFAULT_LANGUAGE);
}

/** Parses with `parser`, hands the tree to `fn`, frees it afterwards. */
export function withParsed<T>(parser: Parser, source: string, fn: (tree: Tree | null) => T): T {
  const tree = parseSource(parser, source);
  try {
    return fn(tree);
  } finally {
    tree?.delete();
  }
}
