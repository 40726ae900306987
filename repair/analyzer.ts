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
 * Parentheses are kept: `(a + b) * c` and `a + b * c` have the same tokens otherwise.
 */
import type { Parser, TreeCursor } from 'web-tree-sitter';
import { createParser } from '../src/parsing/languages.ts';

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

class NormalFormBuilder {
  readonly lines: string[] = [];
  readonly functions = new Map<string, string>();
  errorNodes = 0;
  indentationErrors = 0;
  private tokens: string[] = [];
  private depth = 0;
  private className: string | undefined;

  constructor(private readonly source: string) {}

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
        if (c.nodeType !== 'comment') {
          count++;
          const start = c.startPosition;
          if (start.row !== prevEndRow && start.row !== ownerRow) {
            if (column === undefined) {
              column = start.column;
              if (column <= ownerColumn) this.indentationErrors++;
            } else if (start.column !== column) this.indentationErrors++;
          }
          prevEndRow = c.endPosition.row;
        }
        this.statement(c);
      } while (c.gotoNextSibling());
      c.gotoParent();
    }
    if (count === 0 && ownerRow >= 0) this.indentationErrors++;
  }

  /** A child of `module` or `block`. */
  statement(c: TreeCursor): void {
    const type = c.nodeType;
    if (type === 'comment') return;
    if (type === 'expression_statement' && this.isDocstring(c)) return;
    this.flush();
    const first = this.lines.length;
    const defName = this.depth <= 1 && (type === 'function_definition' || type === 'decorated_definition' || type === 'class_definition')
      ? this.definitionName(c)
      : undefined;
    const enclosingClass = this.className;
    if (defName?.kind === 'class' && this.depth === 0) this.className = defName.name;
    this.node(c);
    this.flush();
    this.className = enclosingClass;
    if (defName?.kind === 'function') {
      const key = this.depth === 0 ? defName.name : this.className ? `${this.className}.${defName.name}` : undefined;
      if (key) this.functions.set(key, this.lines.slice(first).map((l) => l.slice(this.depth)).join('\n'));
    }
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

  private node(c: TreeCursor): void {
    const type = c.nodeType;
    if (type === 'ERROR' || c.nodeIsMissing) this.errorNodes++;
    if (type === 'comment') return;
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
      do this.node(c);
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

  private countErrors(c: TreeCursor): void {
    if (!c.gotoFirstChild()) return;
    do {
      if (c.nodeType === 'ERROR' || c.nodeIsMissing) this.errorNodes++;
      this.countErrors(c);
    } while (c.gotoNextSibling());
    c.gotoParent();
  }
}

/** Analyses Python sources with one reusable parser and a cache keyed by content. */
export class PythonAnalyzer {
  private readonly cache = new Map<string, SourceAnalysis>();

  private constructor(
    private readonly parser: Parser,
    private readonly maxCached: number,
  ) {}

  static async create(maxCached = 256): Promise<PythonAnalyzer> {
    return new PythonAnalyzer(await createParser('python'), maxCached);
  }

  analyze(source: string): SourceAnalysis {
    const hit = this.cache.get(source);
    if (hit) return hit;
    const tree = this.parser.parse(source);
    if (!tree) throw new Error('tree-sitter returned no tree');
    let result: SourceAnalysis;
    try {
      const builder = new NormalFormBuilder(source);
      const cursor = tree.walk();
      try {
        builder.statements(cursor, -1, -1);
      } finally {
        cursor.delete();
      }
      // a top-level ERROR/MISSING node is visited through statement() → node(), so it is counted there
      result = { errorNodes: builder.errorNodes, indentationErrors: builder.indentationErrors, lines: builder.lines, functions: builder.functions };
      if (result.errorNodes === 0 && tree.rootNode.hasError) result.errorNodes = 1; // never report a broken tree as clean
    } finally {
      tree.delete();
    }
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(source, result);
    return result;
  }

  dispose(): void {
    this.cache.clear();
    this.parser.delete();
  }
}
