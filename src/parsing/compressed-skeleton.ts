/**
 * Agentless' compressed file (`get_skeleton` in agentless/util/compress_file.py, used with
 * `--compress_assign`) re-implemented on tree-sitter; see `compressedSkeleton` for the exact rules. Takes
 * the parser of the file's language (`parserForPath`); without one, the default language's.
 */
import type { Node, Parser } from 'web-tree-sitter';
import { childrenOf, parserOrDefault, withParsed } from './parse.ts';
import { languageOfParser } from './parsers.ts';
import { COMPOUND_STATEMENTS, compoundBodyStatements, definitionOf, endRow, startRow } from './python-ast.ts';
import { headerColon, effectiveEndRow } from './skeleton-parts.ts';
import { SourceLines } from './source-lines.ts';
import { taggedCompressed } from './tagged-skeleton.ts';

export interface CompressedSkeletonOptions {
  /** keep module-level `name = value` statements (Agentless `keep_constant`, default true) */
  keepConstant?: boolean;
  /** shorten assignments spanning more than `totalLines` lines (`--compress_assign`, default true) */
  compressAssign?: boolean;
  totalLines?: number;
  prefixLines?: number;
  suffixLines?: number;
}

/**
 * Agentless' compressed view (libcst CompressTransformer + compress_assign_stmts, keep_indent=False):
 * - Module level keeps only classes, functions (with their decorators and the comment/blank lines
 *   directly above them) and, with keepConstant, lines whose first statement is a plain assignment
 *   (`x = …`, not `x: T = …` or `x += …`). Imports, docstrings, `if`/`try` blocks and other statements
 *   go, with the comment lines above them. Comment lines before the first statement stay.
 * - A function keeps its decorators and full (multi-line) signature up to the colon; its body becomes a
 *   single unindented `...` line.
 * - A class keeps its header and its body minus bare simple-string statements (docstrings); methods
 *   are reduced as above, nested classes recursively; an emptied body becomes `pass`. Comments closing
 *   a class or function body (indented deeper than the definition) are dropped.
 * - With compressAssign, an assignment spanning more than `totalLines` (30) lines of the compressed
 *   text keeps its first `prefixLines` (10) and last `suffixLines` (10) lines around a `...` line.
 * - Source that does not parse is returned as is (as Agentless does when libcst fails), as is Python 2
 *   code (print/exec statements), which libcst rejects.
 * - libcst quirks kept: a one-line class body (`class A: x = 1`) is printed unindented on the next line
 *   with no line break after it, and then no assignment is shortened (Agentless' re-parse fails).
 * The input is first normalised as Agentless reads files (`agentlessFileText`), so CRLF files and the
 * final newline give the same result; the output ends with a line break exactly when Agentless' does.
 * Checked byte for byte against Agentless' get_skeleton (libcst) on all non-test files of django,
 * requests, pylint and sphinx except files libcst 1.0 cannot parse.
 */
export function compressedSkeleton(fileContent: string, parser?: Parser, options: CompressedSkeletonOptions = {}): string {
  const source = agentlessFileText(fileContent);
  const chosen = parserOrDefault(parser);
  const spec = languageOfParser(chosen);
  // Agentless compresses Python only; other languages keep their text with function bodies elided
  if (spec.tags) return withParsed(chosen, source, (tree) => taggedCompressed(tree, spec, source));
  return withParsed(chosen, source, (tree) => {
    if (!tree || tree.rootNode.hasError || hasPython2Statements(tree.rootNode)) return source;
    const writer = new SkeletonWriter(source, options.keepConstant ?? true);
    writer.renderModule(tree.rootNode);
    return writer.finish({
      compressAssign: options.compressAssign ?? true,
      totalLines: options.totalLines ?? 30,
      prefixLines: options.prefixLines ?? 10,
      suffixLines: options.suffixLines ?? 10,
    });
  });
}

/** The compressed text of one parsed Python module, written line by line (compressedSkeleton's rules). */
class SkeletonWriter {
  private readonly lines: SourceLines;
  private readonly out: string[] = [];
  /** [first, last] output indices of each assignment statement */
  private readonly assignments: Array<[number, number]> = [];
  /** the last line has no line break: the next one continues it (libcst one-line class bodies) */
  private glue = false;
  private oneLineClassBody = false;
  /** text of the last token of the latest one-line class body */
  private lastBodyToken = '';

  constructor(
    private readonly source: string,
    private readonly keepConstant: boolean,
  ) {
    this.lines = new SourceLines(source);
  }

  renderModule(root: Node): void {
    const groups = groupByLine(childrenOf(root).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex));
    if (groups.length === 0) {
      this.verbatim(0, this.lines.count - 1); // comments only: all of it is the module header
    } else {
      this.verbatim(0, startRow(groups[0][0]) - 1);
      this.renderBlock(groups, startRow(groups[0][0]), 'module');
    }
  }

  /** The text as libcst prints it, then Agentless' shortening of long assignments. */
  finish(options: { compressAssign: boolean; totalLines: number; prefixLines: number; suffixLines: number }): string {
    // libcst prints every line with its break, then drops the last one if the file had none
    let code = this.out.length > 0 ? this.out.join('\n') + (this.glue ? '' : '\n') : '';
    if (this.source.endsWith('\n')) code ||= '\n';
    else if (code.endsWith('\n')) code = code.slice(0, -1);
    // libcst drops the last token blindly, which is not a line break after a one-line class body
    else if (this.glue && code.endsWith(this.lastBodyToken)) code = code.slice(0, code.length - this.lastBodyToken.length);
    // Agentless re-parses the result to shorten assignments; unindented one-line class bodies make that
    // parse fail, and then it keeps the text as it is.
    if (!options.compressAssign || this.oneLineClassBody) return code;
    const codeLines = code.split('\n');
    if (code === '' || code.endsWith('\n')) codeLines.pop();
    const removed: Array<[number, number]> = [];
    for (const [first, last] of this.assignments) {
      if (last - first > options.totalLines) removed.push([first + options.prefixLines, last - options.suffixLines]);
    }
    const result: string[] = [];
    codeLines.forEach((line, i) => {
      if (!removed.some(([s, e]) => s <= i && i <= e)) result.push(line);
      if (removed.some(([s]) => s === i)) result.push('...');
    });
    return result.map((line) => `${line}\n`).join('');
  }

  private push(line: string): void {
    if (this.glue) this.out[this.out.length - 1] += line;
    else this.out.push(line);
    this.glue = false;
  }

  private verbatim(from: number, to: number): void {
    for (let r = from; r <= to; r++) this.push(this.lines.lineText(r));
  }

  /** header rows of a definition, the last one cut after its colon */
  private headerRows(statement: Node, definition: Node): void {
    const colon = headerColon(definition);
    const colonRow = colon ? startRow(colon) : endRow(definition);
    this.verbatim(startRow(statement), colonRow - 1);
    const cut = colon ? colon.endIndex : definition.endIndex;
    this.push(this.source.slice(this.lines.offsetOf(colonRow), cut));
  }

  /** assignment statements among `nodes` (simple statements) copied verbatim from row `firstRow` */
  private recordAssignments(nodes: Node[], firstRow: number, outStart: number): void {
    for (const node of nodes) {
      if (node.type !== 'expression_statement') continue;
      for (const child of childrenOf(node)) {
        if (child.type === 'assignment' && !child.childForFieldName('type')) {
          this.assignments.push([outStart + startRow(child) - firstRow, outStart + endRow(child) - firstRow]);
        }
      }
    }
  }

  /** the last row owned by the block of `node`: with the comments after it indented deeper than it */
  private ownedEnd(node: Node): number {
    let end = effectiveEndRow(node);
    const indent = this.lines.indentOf(startRow(node));
    for (let r = end + 1; r < this.lines.count; r++) {
      const text = this.lines.lineText(r).trim();
      if (text === '') continue;
      if (!text.startsWith('#')) break;
      if (this.lines.indentOf(r) > indent) end = r;
      else break;
    }
    return end;
  }

  private renderDefinition(statement: Node, definition: Node): void {
    this.headerRows(statement, definition);
    if (definition.type === 'function_definition') {
      this.push('...');
      return;
    }
    const body = definition.childForFieldName('body');
    const colon = headerColon(definition);
    const classIndent = this.lines.lineText(startRow(definition)).match(/^[ \t]*/)?.[0] ?? '';
    const before = this.out.length;
    let bodyIndent = '    ';
    if (body && colon) {
      const statements = childrenOf(body).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex);
      const first = statements[0];
      if (first && startRow(first) > startRow(colon)) {
        bodyIndent = (this.lines.lineText(startRow(first)).match(/^[ \t]*/)?.[0] ?? '').slice(classIndent.length) || '    ';
        this.renderBlock(groupByLine(statements), startRow(colon) + 1, 'class');
      } else if (first) {
        // One-line body `class A: x = 1`: libcst moves its small statements, docstrings included, into
        // an indented block and prints them unindented with no line break after them.
        const last = statements[statements.length - 1];
        this.push(this.source.slice(first.startIndex, last.endIndex));
        this.glue = true;
        this.oneLineClassBody = true;
        this.lastBodyToken = this.source.slice(lastToken(last).startIndex, last.endIndex);
      }
    }
    if (this.out.length === before) this.push(`${classIndent}${bodyIndent}pass`);
  }

  /** Statements of the module (`module`) or of a class body (`class`), with their leading lines. */
  private renderBlock(groups: Node[][], firstLeadingRow: number, level: 'module' | 'class'): void {
    let leadingFrom = firstLeadingRow;
    for (const group of groups) {
      const first = group[0];
      const last = group[group.length - 1];
      const start = startRow(first);
      const definition = definitionOf(first);
      const keep = level === 'module' ? definition !== null || (this.keepConstant && isPlainAssignment(first)) : !isBareSimpleString(first);
      if (keep) {
        this.verbatim(leadingFrom, start - 1);
        if (definition && group.length === 1) this.renderDefinition(first, definition);
        else if (COMPOUND_STATEMENTS.has(first.type) && group.length === 1) this.renderCompound(first);
        else {
          const outStart = this.out.length;
          this.verbatim(start, endRow(last));
          this.recordAssignments(group, start, outStart);
        }
      }
      leadingFrom = this.ownedEnd(last) + 1;
    }
    if (level === 'module') this.verbatim(leadingFrom, this.lines.count - 1);
  }

  /** A compound statement kept in a class body: verbatim except for the definitions inside it. */
  private renderCompound(node: Node): void {
    let from = startRow(node);
    const visit = (statements: Node[]): void => {
      for (const statement of statements) {
        const definition = definitionOf(statement);
        if (definition) {
          const outStart = this.out.length;
          this.verbatim(from, startRow(statement) - 1);
          this.recordSimpleAssignments(node, from, startRow(statement) - 1, outStart);
          this.renderDefinition(statement, definition);
          from = effectiveEndRow(statement) + 1;
        } else if (COMPOUND_STATEMENTS.has(statement.type)) {
          visit(compoundBodyStatements(statement));
        }
      }
    };
    visit(compoundBodyStatements(node));
    const outStart = this.out.length;
    const to = effectiveEndRow(node);
    this.verbatim(from, to);
    this.recordSimpleAssignments(node, from, to, outStart);
  }

  /** assignments inside a compound statement lying wholly in rows [from, to], copied from `from` */
  private recordSimpleAssignments(node: Node, from: number, to: number, outStart: number): void {
    const visit = (n: Node): void => {
      if (n.type === 'assignment' && !n.childForFieldName('type')) {
        if (startRow(n) >= from && endRow(n) <= to) this.assignments.push([outStart + startRow(n) - from, outStart + endRow(n) - from]);
        return;
      }
      if (definitionOf(n) || endRow(n) < from || startRow(n) > to) return;
      for (const child of childrenOf(n)) visit(child);
    };
    visit(node);
  }
}

/**
 * A file's text as Agentless hands it to get_skeleton: read with universal newlines, split like
 * Python's str.splitlines() (which also breaks at \v, \f, \x1c-\x1e, \x85, U+2028, U+2029) and
 * joined with '\n', so without a final line break.
 */
export function agentlessFileText(content: string): string {
  const parts = content.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.join('\n');
}

/** statements sharing a line (`a = 1; b = 2`) form one group, as libcst's SimpleStatementLine */
function groupByLine(statements: Node[]): Node[][] {
  const groups: Node[][] = [];
  let lastEnd = -1;
  for (const statement of statements) {
    if (statement.type === ';') continue;
    if (groups.length > 0 && startRow(statement) <= lastEnd) groups[groups.length - 1].push(statement);
    else groups.push([statement]);
    lastEnd = Math.max(lastEnd, endRow(statement));
  }
  return groups;
}

/** the last libcst token of a statement: a leaf, or a whole plain string literal */
function lastToken(node: Node): Node {
  let current = node;
  for (;;) {
    if (current.type === 'string') {
      const start = childrenOf(current).find((c) => c.type === 'string_start');
      if (!start || !/f/i.test(start.text)) return current;
    }
    const children = childrenOf(current).filter((c) => c.type !== 'comment');
    const last = children[children.length - 1];
    if (!last) return current;
    current = last;
  }
}

function isPlainAssignment(statement: Node): boolean {
  if (statement.type !== 'expression_statement') return false;
  const first = childrenOf(statement)[0];
  return first?.type === 'assignment' && !first.childForFieldName('type');
}

/** libcst SimpleString statement: one string literal, not f-string, not implicitly concatenated */
function isBareSimpleString(statement: Node): boolean {
  if (statement.type !== 'expression_statement') return false;
  const first = childrenOf(statement)[0];
  if (first?.type !== 'string') return false;
  const start = childrenOf(first).find((c) => c.type === 'string_start');
  return !start || !/f/i.test(start.text);
}

function hasPython2Statements(root: Node): boolean {
  return root.descendantsOfType(['print_statement', 'exec_statement']).length > 0;
}
