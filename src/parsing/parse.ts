import type { Parser, Tree } from 'web-tree-sitter';

/**
 * Characters handed to tree-sitter per input callback. `parser.parse(string)` answers every callback with
 * the whole remaining string, which web-tree-sitter measures and copies each time; on a 100 kB file that
 * made parsing 3–4× slower than feeding it windows of this size (measured on django/db/models/query.py).
 */
const INPUT_WINDOW = 1024;

/** Parses `source` (positions and indices stay in UTF-16 code units of `source`). Caller deletes the tree. */
export function parseSource(parser: Parser, source: string): Tree | null {
  return parser.parse((index: number) => (index < source.length ? source.slice(index, index + INPUT_WINDOW) : ''));
}
