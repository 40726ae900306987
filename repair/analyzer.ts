/**
 * One tree-sitter pass per distinct file content, shared by the syntax check and the voting normalization.
 *
 * The normal form is a list of lines, one per statement (compound statements: one per clause header), each
 * the statement's tokens joined by single spaces and prefixed by its block depth. What it leaves out is
 * exactly what should not split the vote:
 *  - comments, docstrings (any statement that is only a string literal), blank lines;
 *  - layout: line breaks inside brackets, spacing, backslash continuations, indentation width;
 *  - quote style of plain strings ('a' / "a" / '''a'''), and trailing commas in calls, signatures and
 *    list/dict/set displays.
 * Parentheses go only where they cannot matter (around an atom, or around a whole expression slot such as
 * a return value or a condition); elsewhere they stay: `(a + b) * c` and `a + b * c` differ.
 */
import { LRUCache } from 'lru-cache';
import type { Edit, Parser, Point, Tree } from 'web-tree-sitter';
import { newParser } from '../src/parsing/parsers.ts';
import { commonPrefixLength, commonSuffixLength } from './text.ts';
import { NormalFormBuilder, type StatementCache } from './normal-form.ts';

export interface SourceAnalysis {
  /** ERROR and MISSING nodes */
  errorNodes: number;
  /** empty blocks, unexpected indents, inconsistent dedents: Python rejects them, tree-sitter does not */
  indentationErrors: number;
  /** normal-form lines */
  lines: string[];
  /** normal form of each top-level function and class method (`f`, `C.m`), for the "only adds functions" test */
  functions: Map<string, string>;
}

function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/** The single edit that turns `before` into `after` (common prefix and suffix kept). */
export function editBetween(before: string, after: string): Edit {
  const startIndex = commonPrefixLength(before, after);
  const suffix = commonSuffixLength(before, after, startIndex);
  const oldEndIndex = before.length - suffix;
  const newEndIndex = after.length - suffix;
  return {
    startIndex,
    oldEndIndex,
    newEndIndex,
    startPosition: pointAt(before, startIndex),
    oldEndPosition: pointAt(before, oldEndIndex),
    newEndPosition: pointAt(after, newEndIndex),
  };
}

/**
 * Analyses Python sources with one reusable parser.
 *
 * Repair samples are small edits of the same few files, so the analyzer keeps the last parsed trees and
 * parses a new version incrementally from the closest one (tree-sitter reuses the unchanged subtrees), and
 * it caches per-statement results so that only edited statements are walked. Results are also cached by
 * whole content.
 */
export class PythonAnalyzer {
  private readonly cache: LRUCache<string, SourceAnalysis>;
  private readonly statementCache: StatementCache = new Map();
  private trees: Array<{ source: string; tree: Tree }> = [];

  private constructor(
    private readonly parser: Parser,
    maxCached: number,
    private readonly maxTrees = 4,
    private readonly maxStatements = 100_000,
  ) {
    this.cache = new LRUCache({ max: maxCached });
  }

  static async create(maxCached = 256): Promise<PythonAnalyzer> {
    return new PythonAnalyzer(newParser('python'), maxCached);
  }

  private parse(source: string): Tree {
    let best: { source: string; tree: Tree } | undefined;
    let bestShared = -1;
    for (const t of this.trees) {
      const shared = sharedEdges(t.source, source);
      if (shared > bestShared) {
        best = t;
        bestShared = shared;
      }
    }
    let tree: Tree | null;
    // reuse only when most of the text is shared; an unrelated old tree just slows the parse down
    if (best && bestShared * 2 >= source.length) {
      const old = best.tree.copy();
      old.edit(editBetween(best.source, source));
      tree = this.parser.parse(source, old);
      old.delete();
    } else {
      tree = this.parser.parse(source);
    }
    if (!tree) throw new Error('tree-sitter returned no tree');
    this.trees.push({ source, tree });
    if (this.trees.length > this.maxTrees) this.trees.shift()!.tree.delete();
    return tree;
  }

  analyze(source: string): SourceAnalysis {
    const hit = this.cache.get(source);
    if (hit) return hit;
    if (this.statementCache.size > this.maxStatements) this.statementCache.clear();
    const tree = this.parse(source);
    const builder = new NormalFormBuilder(source, this.statementCache);
    const cursor = tree.walk();
    try {
      builder.statements(cursor, -1, -1);
    } finally {
      cursor.delete();
    }
    const result: SourceAnalysis = {
      errorNodes: builder.errorNodes,
      indentationErrors: builder.indentationErrors,
      lines: builder.lines,
      functions: builder.functions,
    };
    if (result.errorNodes === 0 && tree.rootNode.hasError) result.errorNodes = 1; // never report a broken tree as clean
    this.cache.set(source, result);
    return result;
  }

  dispose(): void {
    this.cache.clear();
    this.statementCache.clear();
    for (const t of this.trees) t.tree.delete();
    this.trees = [];
    this.parser.delete();
  }
}

/** Length of the common prefix plus common suffix of two strings. */
function sharedEdges(a: string, b: string): number {
  const prefix = commonPrefixLength(a, b);
  return prefix + commonSuffixLength(a, b, prefix);
}
