/**
 * The normal form of Python source that the repair vote compares (see analyzer.ts for what it leaves out):
 * one line per statement, its tokens joined by single spaces and prefixed by its block depth, built from a
 * tree-sitter cursor walk with a per-statement cache keyed by the statement's text.
 */
import type { TreeCursor } from 'web-tree-sitter';

const TRAILING_COMMA_CONTAINERS = new Set(['argument_list', 'parameters', 'list', 'dictionary', 'set']);
const CLOSERS = new Set([')', ']', '}']);
const STRING_TYPES = new Set(['string', 'concatenated_string']);
/** expressions that bind tighter than anything around them: parentheses around them are noise */
const PAREN_FREE_ATOMS = new Set([
  'identifier',
  'attribute',
  'call',
  'subscript',
  'string',
  'concatenated_string',
  'integer',
  'float',
  'true',
  'false',
  'none',
  'list',
  'dictionary',
  'set',
  'tuple',
  'parenthesized_expression',
  'list_comprehension',
  'dictionary_comprehension',
  'set_comprehension',
  'generator_expression',
]);
/** parents in which a parenthesized expression is a whole, comma- or keyword-delimited expression */
const WHOLE_EXPRESSION_SLOTS = new Set([
  'statement',
  'expression_statement',
  'return_statement',
  'assignment',
  'augmented_assignment',
  'if_statement',
  'elif_clause',
  'while_statement',
  'assert_statement',
  'argument_list',
  'keyword_argument',
  'pair',
  'list',
  'set',
  'expression_list',
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

export class NormalFormBuilder {
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
      const defName =
        this.depth <= 1 && (type === 'function_definition' || type === 'decorated_definition' || type === 'class_definition')
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
