import type { Node, Parser, Tree } from 'web-tree-sitter';
import { createParser } from './languages.ts';

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

let sharedParser: Promise<Parser> | undefined;
let readyParser: Parser | undefined;

/**
 * The process-wide Python parser used by this folder's functions when no parser is passed. Awaiting it
 * once also makes the synchronous helpers (extractDefinitions, skeletons, syntaxProblems) usable without
 * a parser argument.
 */
export function pythonParser(): Promise<Parser> {
  sharedParser ??= createParser('python').then((parser) => (readyParser = parser));
  return sharedParser;
}

/** `parser` if given, else the shared parser; throws if neither exists yet. */
export function parserOrShared(parser: Parser | undefined, caller: string): Parser {
  const chosen = parser ?? readyParser;
  if (!chosen) {
    throw new Error(`${caller}: no tree-sitter parser yet — pass one, or \`await pythonParser()\` once before calling it`);
  }
  return chosen;
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
