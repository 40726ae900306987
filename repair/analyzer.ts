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
import type { Edit, Parser, Point, Tree, TreeCursor } from 'web-tree-sitter';
import { newParser } from '../src/parsing/parsers.ts';
import { commonPrefixLength, commonSuffixLength } from './text.ts';

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

const TRAILING_COMMA_CONTAINERS = new Set(['argument_list', 'parameters', 'list', 'dictionary', 'set']);
const CLOSERS = new Set([')', ']', '}']);
const STRING_TYPES = new Set(['string', 'concatenated_string']);
/** expressions that bind tighter than anything around them: parentheses around them are noise */
const PAREN_FREE_ATOMS = new Set([
  'identifier', 'attribute', 'call', 'subscript', 'string', 'concatenated_string', 'integer', 'float', 'true', 'false', 'none',
  'list', 'dictionary', 'set', 'tuple', 'parenthesized_expression', 'list_comprehension', 'dictionary_comprehension',
  'set_comprehension', 'generator_expression',
]);
/** parents in which a parenthesized expression is a whole, comma- or keyword-delimited expression */
const WHOLE_EXPRESSION_SLOTS = new Set([
  'statement', 'expression_statement', 'return_statement', 'assignment', 'augmented_assignment', 'if_statement', 'elif_clause',
  'while_statement', 'assert_statement', 'argument_list', 'keyword_argument', 'pair', 'list', 'set', 'expression_list',
]);

/** Canonical spelling of a string literal token: plain strings lose their quote style. */
export function canonicalString(text: string): string {
  const m = /^([rRuUbB]{0,2})('''|"""|'|")([\s\S]*)\2$/.exec(text);
  let out = text;
  if (m && !/[\\'"]/.test(m[3])) {
    const prefix = m[1].toLowerCase().replace('u', '');
    out = m[3].includes('\n') ? `${prefix}"""${m[3]}"""` : `${prefix}"${m[3]}"`;
  }
  return out.replace(/\r?\n/g, '\\n');
}

/** What one statement contributed, reusable wherever the same statement text recurs at the same depth. */
interface StatementEntry {
  /** normal-form lines, depth prefix of the statement itself removed */
  lines: string[];
  errorNodes: number;
  indentationErrors: number;
  /** functions/methods recorded inside the statement (keys are final: a class carries its own name) */
  nested: Array<[string, string]>;
  /** the statement is itself a function definition of this name (its key depends on where it sits) */
  ownFunction?: string;
}

export type StatementCache = Map<string, StatementEntry>;

class NormalFormBuilder {
  readonly lines: string[] = [];
  readonly functions = new Map<string, string>();
  errorNodes = 0;
  indentationErrors = 0;
  private tokens: string[] = [];
  private depth = 0;
  private className: string | undefined;
  private readonly functionLog: Array<[string, string]> = [];

  /**
   * @param cache statement results by (depth, column, type, text): edited versions of one file share all
   *   unchanged statements, so only the edited ones are walked again
   */
  constructor(
    private readonly source: string,
    private readonly cache: StatementCache,
  ) {}

  private recordFunction(key: string, text: string): void {
    this.functions.set(key, text);
    this.functionLog.push([key, text]);
  }

  private recordOwnFunction(name: string, lines: readonly string[]): void {
    const key = this.depth === 0 ? name : this.className ? `${this.className}.${name}` : undefined;
    if (key) this.recordFunction(key, lines.join('\n'));
  }

  private text(c: TreeCursor): string {
    return this.source.slice(c.startIndex, c.endIndex);
  }

  private flush(): void {
    if (this.tokens.length > 0) {
      this.lines.push(' '.repeat(this.depth) + this.tokens.join(' '));
      this.tokens = [];
    }
  }

  /**
   * The statements under the cursor's node (module or block). tree-sitter accepts empty blocks, unexpected
   * indents and inconsistent dedents that Python rejects, so those are checked here: a block needs a
   * statement, statements starting a line line up with the first one, and sit right of the owning header
   * (module level: column 0).
   */
  statements(c: TreeCursor, ownerRow: number, ownerColumn: number): void {
    let count = 0;
    let column: number | undefined = ownerRow < 0 ? 0 : undefined;
    let prevEndRow = -1;
    if (c.gotoFirstChild()) {
      do {
        let startColumn = -1;
        if (c.nodeType !== 'comment') {
          count++;
          const start = c.startPosition;
          startColumn = start.column;
          if (start.row !== prevEndRow && start.row !== ownerRow) {
            if (column === undefined) {
              column = start.column;
              if (column <= ownerColumn) this.indentationErrors++;
            } else if (start.column !== column) this.indentationErrors++;
          }
          prevEndRow = c.endPosition.row;
        }
        this.statement(c, startColumn);
      } while (c.gotoNextSibling());
      c.gotoParent();
    }
    if (count === 0 && ownerRow >= 0) this.indentationErrors++;
  }

  /** A child of `module` or `block`. */
  statement(c: TreeCursor, startColumn: number): void {
    const type = c.nodeType;
    if (type === 'comment') return;
    this.flush();
    const key = `${this.depth}|${startColumn}|${type}|${this.source.slice(c.startIndex, c.endIndex)}`;
    const hit = this.cache.get(key);
    if (hit) {
      const prefix = ' '.repeat(this.depth);
      for (const l of hit.lines) this.lines.push(prefix + l);
      this.errorNodes += hit.errorNodes;
      this.indentationErrors += hit.indentationErrors;
      for (const [k, t] of hit.nested) this.recordFunction(k, t);
      if (hit.ownFunction) this.recordOwnFunction(hit.ownFunction, hit.lines);
      return;
    }
    const first = this.lines.length;
    const errors0 = this.errorNodes;
    const indentation0 = this.indentationErrors;
    const log0 = this.functionLog.length;
    let ownFunction: string | undefined;
    if (!(type === 'expression_statement' && this.isDocstring(c))) {
      const defName = this.depth <= 1 && (type === 'function_definition' || type === 'decorated_definition' || type === 'class_definition')
        ? this.definitionName(c)
        : undefined;
      const enclosingClass = this.className;
      if (defName?.kind === 'class' && this.depth === 0) this.className = defName.name;
      this.node(c, 'statement');
      this.flush();
      this.className = enclosingClass;
      if (defName?.kind === 'function') ownFunction = defName.name;
    }
    const entry: StatementEntry = {
      lines: this.lines.slice(first).map((l) => l.slice(this.depth)),
      errorNodes: this.errorNodes - errors0,
      indentationErrors: this.indentationErrors - indentation0,
      nested: this.functionLog.slice(log0),
      ...(ownFunction ? { ownFunction } : {}),
    };
    if (ownFunction) this.recordOwnFunction(ownFunction, entry.lines);
    this.cache.set(key, entry);
  }

  private definitionName(c: TreeCursor): { kind: 'function' | 'class'; name: string } | undefined {
    let node = c.currentNode;
    if (node.type === 'decorated_definition') {
      const def = node.childForFieldName('definition');
      if (!def) return undefined;
      node = def;
    }
    const name = node.childForFieldName('name')?.text;
    if (!name) return undefined;
    if (node.type === 'function_definition') return { kind: 'function', name };
    if (node.type === 'class_definition') return { kind: 'class', name };
    return undefined;
  }

  private isDocstring(c: TreeCursor): boolean {
    if (!c.gotoFirstChild()) return false;
    let strings = 0;
    let others = 0;
    do {
      if (c.nodeType === 'comment') continue;
      if (STRING_TYPES.has(c.nodeType)) strings++;
      else others++;
    } while (c.gotoNextSibling());
    c.gotoParent();
    return strings === 1 && others === 0;
  }

  private node(c: TreeCursor, parentType: string): void {
    const type = c.nodeType;
    if (type === 'ERROR' || c.nodeIsMissing) this.errorNodes++;
    if (type === 'comment') return;
    if (type === 'parenthesized_expression' && this.redundantParentheses(c, parentType)) {
      c.gotoFirstChild();
      do if (c.nodeIsNamed) this.node(c, parentType);
      while (c.gotoNextSibling());
      c.gotoParent();
      return;
    }
    if (type === 'block') {
      this.flush();
      const owner = c.currentNode.parent!.startPosition;
      this.depth++;
      this.statements(c, owner.row, owner.column);
      this.depth--;
      return;
    }
    if (type === 'string') {
      // f-string interpolations may hide ERROR nodes; count them before flattening the literal
      if (c.currentNode.hasError) this.countErrors(c);
      this.tokens.push(canonicalString(this.text(c)));
      return;
    }
    const before = this.tokens.length;
    if (c.gotoFirstChild()) {
      do this.node(c, type);
      while (c.gotoNextSibling());
      c.gotoParent();
      if (TRAILING_COMMA_CONTAINERS.has(type)) {
        const n = this.tokens.length;
        if (n - before >= 2 && CLOSERS.has(this.tokens[n - 1]) && this.tokens[n - 2] === ',') this.tokens.splice(n - 2, 1);
      }
    } else if (c.nodeIsMissing) {
      this.tokens.push(`<missing ${type}>`);
    } else {
      const t = this.text(c);
      if (t !== '') this.tokens.push(t.replace(/\r?\n/g, '\\n'));
    }
  }

  /**
   * Parentheses that cannot change the meaning: around an atom (`(x)`, `(f(a))`), or filling a whole
   * expression slot (`return (a + b)`, `if (a and b):`, `f((a + b))`). Around an operand of an operator
   * they stay: `(a + b) * c`.
   */
  private redundantParentheses(c: TreeCursor, parentType: string): boolean {
    if (!c.gotoFirstChild()) return false;
    let inner: string | undefined;
    let named = 0;
    do {
      if (c.nodeIsNamed && c.nodeType !== 'comment') {
        named++;
        inner = c.nodeType;
      }
    } while (c.gotoNextSibling());
    c.gotoParent();
    return named === 1 && (PAREN_FREE_ATOMS.has(inner!) || WHOLE_EXPRESSION_SLOTS.has(parentType));
  }

  private countErrors(c: TreeCursor): void {
    if (!c.gotoFirstChild()) return;
    do {
      if (c.nodeType === 'ERROR' || c.nodeIsMissing) this.errorNodes++;
      this.countErrors(c);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }
}

/** Row/column (UTF-16 code units, as web-tree-sitter counts them) of an index in `text`. */
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
  private readonly cache = new Map<string, SourceAnalysis>();
  private readonly statementCache: StatementCache = new Map();
  private trees: Array<{ source: string; tree: Tree }> = [];

  private constructor(
    private readonly parser: Parser,
    private readonly maxCached: number,
    private readonly maxTrees = 4,
    private readonly maxStatements = 100_000,
  ) {}

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
    const result: SourceAnalysis = { errorNodes: builder.errorNodes, indentationErrors: builder.indentationErrors, lines: builder.lines, functions: builder.functions };
    if (result.errorNodes === 0 && tree.rootNode.hasError) result.errorNodes = 1; // never report a broken tree as clean
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
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
