/**
 * Three reduced views of a Python file for LLM prompts.
 *
 * - `blagentSkeleton`: BLAgent's ReadFileSkeleton (§2.4 Phase 1) — classes with bases, decorators,
 *   function/method signatures joined onto one line, first sentence of docstrings; bodies omitted.
 * - `compressedSkeleton`: Agentless' compressed file (`get_skeleton` in agentless/util/compress_file.py,
 *   used with `--compress_assign`) re-implemented on tree-sitter; see its comment for the exact rules.
 * - `prunedView`: BLAgent's Phase 2 (EAR) context — imports, module/class-level assignments, class
 *   headers, every signature, and full bodies only for the functions containing an anchor range.
 *
 * All three take an optional parser; without one they use the shared parser (`await pythonParser()` once).
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { childrenOf, parserOrShared, withParsed } from './parse.ts';
import { COMPOUND_STATEMENTS, compoundBodyStatements, definitionOf, endRow, startRow } from './python-ast.ts';
import { SourceLines } from './source-lines.ts';

// ---------------------------------------------------------------------------------------------------
// shared helpers

/** The ':' token closing a definition's or compound statement's header (the one before its body block). */
function headerColon(node: Node): Node | null {
  let colon: Node | null = null;
  for (const child of childrenOf(node)) {
    if (child.type === 'block') break;
    if (child.type === ':') colon = child;
  }
  return colon;
}

/** Row of the last non-comment token of a node: tree-sitter lets trailing comments into blocks. */
function effectiveEndRow(node: Node): number {
  let current = node;
  for (;;) {
    const children = childrenOf(current).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex);
    const last = children[children.length - 1];
    if (!last) return endRow(current);
    current = last;
  }
}

/** The docstring statement of a block, if its first statement is a bare string. */
function docstringOf(block: Node | null): Node | null {
  if (!block) return null;
  const first = childrenOf(block).find((c) => c.type !== 'comment');
  if (!first || first.type !== 'expression_statement') return null;
  const expressions = childrenOf(first);
  const only = expressions[0];
  return expressions.length === 1 && (only.type === 'string' || only.type === 'concatenated_string') ? only : null;
}

/** Inner text of a (possibly concatenated) string literal without prefix and quotes. */
function stringContent(literal: Node, source: string): string {
  if (literal.type === 'concatenated_string') return childrenOf(literal).map((s) => stringContent(s, source)).join('');
  const parts = childrenOf(literal);
  const open = parts.find((p) => p.type === 'string_start');
  const close = [...parts].reverse().find((p) => p.type === 'string_end');
  if (!open || !close) return source.slice(literal.startIndex, literal.endIndex);
  return source.slice(open.endIndex, close.startIndex);
}

const DOC_SUMMARY_MAX = 100;

/** First sentence of a docstring's first paragraph, at most 100 characters. */
export function docSummary(doc: string): string {
  const paragraph: string[] = [];
  for (const raw of doc.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      if (paragraph.length > 0) break;
      continue;
    }
    paragraph.push(line);
  }
  let text = paragraph.join(' ');
  const sentenceEnd = text.search(/[.!?](\s|$)/);
  if (sentenceEnd >= 0) text = text.slice(0, sentenceEnd + 1);
  if (text.length > DOC_SUMMARY_MAX) text = `${text.slice(0, DOC_SUMMARY_MAX - 3).trimEnd()}...`;
  return text.replace(/"""/g, '\\"\\"\\"');
}

/**
 * Source text of [from, to) with comments and the given tokens removed, line breaks (and the indentation
 * after them) collapsed to one space, and no space just inside brackets.
 */
function joinedText(source: string, from: number, to: number, skipped: Node[]): string {
  const ranges = skipped
    .filter((n) => n.startIndex >= from && n.endIndex <= to)
    .map((n) => [n.startIndex, n.endIndex] as const)
    .sort((a, b) => a[0] - b[0]);
  let text = '';
  let at = from;
  for (const [start, end] of ranges) {
    if (start < at) continue;
    text += source.slice(at, start);
    at = end;
  }
  text += source.slice(at, to);
  return text
    .replace(/[ \t]*\\?\r?\n\s*/g, ' ')
    .replace(/([([{]) /g, '$1')
    .replace(/ ([)\]}])/g, '$1')
    .replace(/ +,/g, ',')
    .trimEnd();
}

/** comment nodes and trailing commas of bracketed lists inside a node */
function signatureNoise(node: Node): Node[] {
  const noise: Node[] = [];
  const visit = (n: Node): void => {
    const children = childrenOf(n);
    children.forEach((child, i) => {
      const next = children.slice(i + 1).find((c) => c.type !== 'comment');
      if (child.type === 'comment') noise.push(child);
      else if (child.type === ',' && (next?.type === ')' || next?.type === ']')) {
        if (n.type === 'parameters' || n.type === 'argument_list' || n.type === 'type_parameter') noise.push(child);
      } else if (child.type !== 'block') visit(child);
    });
  };
  visit(node);
  return noise;
}

// ---------------------------------------------------------------------------------------------------
// BLAgent ReadFileSkeleton

export interface BlagentSkeletonOptions {
  /** include the first sentence of docstrings (default true) */
  docstrings?: boolean;
}

/**
 * Format (4 spaces per nesting level, whatever the file uses):
 *
 *     """Module summary."""
 *     @decorator
 *     class Name(Base, metaclass=Meta):
 *         """Class summary."""
 *         def method(self, a: int = 1) -> str:
 *             """Method summary."""
 *         async def other(self): ...
 *     def function(x): ...
 *
 * A definition without docstring and without nested definitions ends in ` ...`. Definitions inside
 * `if`/`try`/… blocks at module or class level are listed at their scope's level; definitions inside
 * function bodies are not listed. Broken code: whatever definitions tree-sitter recognised.
 */
export function blagentSkeleton(source: string, parser?: Parser, options: BlagentSkeletonOptions = {}): string {
  const withDocs = options.docstrings ?? true;
  const chosen = parserOrShared(parser, 'blagentSkeleton');
  return withParsed(chosen, source, (tree) => {
    if (!tree) return '';
    const out: string[] = [];
    const moduleDoc = withDocs ? docstringOf(tree.rootNode) : null;
    if (moduleDoc) {
      const summary = docSummary(stringContent(moduleDoc, source));
      if (summary) out.push(`"""${summary}"""`);
    }
    const emitScope = (statements: Node[], depth: number): void => {
      for (const statement of statements) {
        const definition = definitionOf(statement);
        if (definition) emitDefinition(statement, definition, depth);
        else if (COMPOUND_STATEMENTS.has(statement.type)) emitScope(compoundBodyStatements(statement), depth);
      }
    };
    const emitDefinition = (statement: Node, definition: Node, depth: number): void => {
      const indent = '    '.repeat(depth);
      if (statement.type === 'decorated_definition') {
        for (const decorator of childrenOf(statement).filter((c) => c.type === 'decorator')) {
          out.push(indent + joinedText(source, decorator.startIndex, decorator.endIndex, signatureNoise(decorator)));
        }
      }
      const colon = headerColon(definition);
      const headerEnd = colon ? colon.startIndex : definition.endIndex;
      const header = joinedText(source, definition.startIndex, headerEnd, signatureNoise(definition));
      const body = definition.childForFieldName('body');
      const doc = withDocs ? docstringOf(body) : null;
      const summary = doc ? docSummary(stringContent(doc, source)) : '';
      const nested =
        definition.type === 'class_definition' && body ? childrenOf(body).filter((c) => c.type !== 'comment') : [];
      const hasNestedDefinitions = nested.some((s) => definitionOf(s) || COMPOUND_STATEMENTS.has(s.type));
      if (!summary && !hasNestedDefinitions) {
        out.push(`${indent}${header}: ...`);
        return;
      }
      out.push(`${indent}${header}:`);
      if (summary) out.push(`${indent}    """${summary}"""`);
      const before = out.length;
      emitScope(nested, depth + 1);
      // a class whose if-blocks hold no definitions after all
      if (out.length === before && !summary) out[out.length - 1] += ' ...';
    };
    emitScope(childrenOf(tree.rootNode), 0);
    return out.length > 0 ? `${out.join('\n')}\n` : '';
  });
}

// ---------------------------------------------------------------------------------------------------
// Agentless compressed skeleton

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
  const keepConstant = options.keepConstant ?? true;
  const compressAssign = options.compressAssign ?? true;
  const totalLines = options.totalLines ?? 30;
  const prefixLines = options.prefixLines ?? 10;
  const suffixLines = options.suffixLines ?? 10;
  const chosen = parserOrShared(parser, 'compressedSkeleton');
  return withParsed(chosen, source, (tree) => {
    if (!tree || tree.rootNode.hasError || hasPython2Statements(tree.rootNode)) return source;
    const lines = new SourceLines(source);
    const out: string[] = [];
    /** [first, last] output indices of each assignment statement */
    const assignments: Array<[number, number]> = [];
    /** the last line has no line break: the next one continues it (libcst one-line class bodies) */
    let glue = false;
    let oneLineClassBody = false;
    /** text of the last token of the latest one-line class body */
    let lastBodyToken = '';
    const push = (line: string): void => {
      if (glue) out[out.length - 1] += line;
      else out.push(line);
      glue = false;
    };

    const verbatim = (from: number, to: number): void => {
      for (let r = from; r <= to; r++) push(lines.lineText(r));
    };
    /** header rows of a definition, the last one cut after its colon */
    const headerRows = (statement: Node, definition: Node): void => {
      const colon = headerColon(definition);
      const colonRow = colon ? startRow(colon) : endRow(definition);
      verbatim(startRow(statement), colonRow - 1);
      const cut = colon ? colon.endIndex : definition.endIndex;
      push(source.slice(lines.offsetOf(colonRow), cut));
    };
    /** assignment statements among `nodes` (simple statements) copied verbatim from row `firstRow` */
    const recordAssignments = (nodes: Node[], firstRow: number, outStart: number): void => {
      for (const node of nodes) {
        if (node.type !== 'expression_statement') continue;
        for (const child of childrenOf(node)) {
          if (child.type === 'assignment' && !child.childForFieldName('type')) {
            assignments.push([outStart + startRow(child) - firstRow, outStart + endRow(child) - firstRow]);
          }
        }
      }
    };
    /** rows after `row` owned by the block ending there: comments indented deeper than `indent` */
    const ownedEnd = (node: Node): number => {
      let end = effectiveEndRow(node);
      const indent = lines.indentOf(startRow(node));
      for (let r = end + 1; r < lines.count; r++) {
        const text = lines.lineText(r).trim();
        if (text === '') continue;
        if (!text.startsWith('#')) break;
        if (lines.indentOf(r) > indent) end = r;
        else break;
      }
      return end;
    };

    const renderDefinition = (statement: Node, definition: Node): void => {
      headerRows(statement, definition);
      if (definition.type === 'function_definition') {
        push('...');
        return;
      }
      const body = definition.childForFieldName('body');
      const colon = headerColon(definition);
      const classIndent = lines.lineText(startRow(definition)).match(/^[ \t]*/)?.[0] ?? '';
      const before = out.length;
      let bodyIndent = '    ';
      if (body && colon) {
        const statements = childrenOf(body).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex);
        const first = statements[0];
        if (first && startRow(first) > startRow(colon)) {
          bodyIndent = (lines.lineText(startRow(first)).match(/^[ \t]*/)?.[0] ?? '').slice(classIndent.length) || '    ';
          renderBlock(groupByLine(statements), startRow(colon) + 1, 'class');
        } else if (first) {
          // One-line body `class A: x = 1`: libcst moves its small statements, docstrings included, into
          // an indented block and prints them unindented with no line break after them.
          const last = statements[statements.length - 1];
          push(source.slice(first.startIndex, last.endIndex));
          glue = true;
          oneLineClassBody = true;
          lastBodyToken = source.slice(lastToken(last).startIndex, last.endIndex);
        }
      }
      if (out.length === before) push(`${classIndent}${bodyIndent}pass`);
    };

    /** Statements of the module (`module`) or of a class body (`class`), with their leading lines. */
    const renderBlock = (groups: Node[][], firstLeadingRow: number, level: 'module' | 'class'): void => {
      let leadingFrom = firstLeadingRow;
      for (const group of groups) {
        const first = group[0];
        const last = group[group.length - 1];
        const start = startRow(first);
        const definition = definitionOf(first);
        const keep =
          level === 'module'
            ? definition !== null || (keepConstant && isPlainAssignment(first))
            : !isBareSimpleString(first);
        if (keep) {
          verbatim(leadingFrom, start - 1);
          if (definition && group.length === 1) renderDefinition(first, definition);
          else if (COMPOUND_STATEMENTS.has(first.type) && group.length === 1) renderCompound(first);
          else {
            const outStart = out.length;
            verbatim(start, endRow(last));
            recordAssignments(group, start, outStart);
          }
        }
        leadingFrom = ownedEnd(last) + 1;
      }
      if (level === 'module') verbatim(leadingFrom, lines.count - 1);
    };

    /** A compound statement kept in a class body: verbatim except for the definitions inside it. */
    const renderCompound = (node: Node): void => {
      let from = startRow(node);
      const visit = (statements: Node[]): void => {
        for (const statement of statements) {
          const definition = definitionOf(statement);
          if (definition) {
            const outStart = out.length;
            verbatim(from, startRow(statement) - 1);
            recordSimpleAssignments(node, from, startRow(statement) - 1, outStart);
            renderDefinition(statement, definition);
            from = effectiveEndRow(statement) + 1;
          } else if (COMPOUND_STATEMENTS.has(statement.type)) {
            visit(compoundBodyStatements(statement));
          }
        }
      };
      visit(compoundBodyStatements(node));
      const outStart = out.length;
      const to = effectiveEndRow(node);
      verbatim(from, to);
      recordSimpleAssignments(node, from, to, outStart);
    };
    /** assignments inside a compound statement lying wholly in rows [from, to], copied from `from` */
    const recordSimpleAssignments = (node: Node, from: number, to: number, outStart: number): void => {
      const visit = (n: Node): void => {
        if (n.type === 'assignment' && !n.childForFieldName('type')) {
          if (startRow(n) >= from && endRow(n) <= to) assignments.push([outStart + startRow(n) - from, outStart + endRow(n) - from]);
          return;
        }
        if (definitionOf(n) || endRow(n) < from || startRow(n) > to) return;
        for (const child of childrenOf(n)) visit(child);
      };
      visit(node);
    };

    const groups = groupByLine(childrenOf(tree.rootNode).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex));
    if (groups.length === 0) {
      verbatim(0, lines.count - 1); // comments only: all of it is the module header
    } else {
      verbatim(0, startRow(groups[0][0]) - 1);
      renderBlock(groups, startRow(groups[0][0]), 'module');
    }

    // libcst prints every line with its break, then drops the last one if the file had none
    let code = out.length > 0 ? out.join('\n') + (glue ? '' : '\n') : '';
    if (source.endsWith('\n')) code ||= '\n';
    else if (code.endsWith('\n')) code = code.slice(0, -1);
    // libcst drops the last token blindly, which is not a line break after a one-line class body
    else if (glue && code.endsWith(lastBodyToken)) code = code.slice(0, code.length - lastBodyToken.length);
    // Agentless re-parses the result to shorten assignments; unindented one-line class bodies make that
    // parse fail, and then it keeps the text as it is.
    if (!compressAssign || oneLineClassBody) return code;
    const codeLines = code.split('\n');
    if (code === '' || code.endsWith('\n')) codeLines.pop();
    const removed: Array<[number, number]> = [];
    for (const [first, last] of assignments) {
      if (last - first > totalLines) removed.push([first + prefixLines, last - suffixLines]);
    }
    const result: string[] = [];
    codeLines.forEach((line, i) => {
      if (!removed.some(([s, e]) => s <= i && i <= e)) result.push(line);
      if (removed.some(([s]) => s === i)) result.push('...');
    });
    return result.map((line) => `${line}\n`).join('');
  });
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

// ---------------------------------------------------------------------------------------------------
// BLAgent Phase 2 pruned view

export interface LineRange {
  startLine: number;
  endLine: number;
}

export interface PrunedView {
  /** the view; elided code is a `...` line at the elided code's indentation */
  text: string;
  /** original 1-based line number of each line of `text`, null for elision markers */
  lineNumbers: Array<number | null>;
  /** original line ranges shown, merged */
  keptRanges: LineRange[];
}

export interface PrunedViewOptions {
  /**
   * An assignment longer than this many lines that no anchor touches keeps only its first line, then
   * `...` (like Agentless' compressed assignments: a 200-line table of constants says little about a bug
   * and costs as much as several method bodies). Default: no limit.
   */
  maxAssignmentLines?: number;
}

/**
 * Kept: imports, assignments at module and class level, class headers (with decorators), every
 * function/method signature (decorators up to the colon line), the clause headers of module/class-level
 * `if`/`try`/… blocks, and in full: every function or method whose lines (decorators included) overlap
 * an anchor range, plus any other statement overlapping one. Everything else — other bodies, docstrings,
 * comments between statements, other statements — is elided; consecutive elided statements share one
 * `...` marker.
 */
export function prunedView(source: string, anchorRanges: LineRange[], parser?: Parser, options: PrunedViewOptions = {}): PrunedView {
  return prunedViews(source, [anchorRanges], parser, options)[0]!;
}

/** `prunedView` for several anchor sets from one parse (the EAR budget guard tries fewer anchors). */
export function prunedViews(source: string, anchorSets: LineRange[][], parser?: Parser, options: PrunedViewOptions = {}): PrunedView[] {
  const chosen = parserOrShared(parser, 'prunedView');
  return withParsed(chosen, source, (tree) => anchorSets.map((anchorRanges) => prunedViewOfTree(source, tree, anchorRanges, options)));
}

function prunedViewOfTree(source: string, tree: Tree | null, anchorRanges: LineRange[], options: PrunedViewOptions): PrunedView {
  const maxAssignmentLines = options.maxAssignmentLines ?? Number.POSITIVE_INFINITY;
  {
    const lines = new SourceLines(source);
    const entries: Array<{ row: number | null; text: string }> = [];
    const overlaps = (from: number, to: number): boolean =>
      anchorRanges.some((a) => a.startLine <= to + 1 && a.endLine >= from + 1);
    const keepRows = (from: number, to: number): void => {
      for (let r = from; r <= to; r++) entries.push({ row: r, text: lines.lineText(r) });
    };
    const indentText = (row: number): string => lines.lineText(row).match(/^[ \t]*/)?.[0] ?? '';
    let pendingMarker: string | null = null;
    const elide = (row: number): void => {
      pendingMarker ??= `${indentText(row)}...`;
    };
    const flush = (): void => {
      if (pendingMarker !== null) entries.push({ row: null, text: pendingMarker });
      pendingMarker = null;
    };

    const visitScope = (statements: Node[]): void => {
      for (const statement of statements) {
        if (statement.type === 'comment' || statement.startIndex === statement.endIndex) continue;
        const from = startRow(statement);
        const to = effectiveEndRow(statement);
        const definition = definitionOf(statement);
        if (definition) {
          const colon = headerColon(definition);
          const headerEnd = colon ? startRow(colon) : to;
          if (definition.type === 'function_definition') {
            flush();
            if (overlaps(from, to) || headerEnd >= to) {
              keepRows(from, to);
            } else {
              keepRows(from, headerEnd);
              elide(headerEnd + 1 <= to ? firstCodeRow(headerEnd + 1, to) : to);
              flush();
            }
          } else {
            flush();
            keepRows(from, headerEnd);
            const body = definition.childForFieldName('body');
            if (body && startRow(body) > headerEnd) visitScope(childrenOf(body));
            else if (headerEnd < to) keepRows(headerEnd + 1, to);
            flush();
          }
        } else if (overlaps(from, to)) {
          flush();
          keepRows(from, to);
        } else if (isImportOrAssignment(statement)) {
          flush();
          if (to - from + 1 > maxAssignmentLines && !statement.type.startsWith('import') && statement.type !== 'future_import_statement') {
            keepRows(from, from);
            elide(firstCodeRow(from + 1, to));
            flush();
          } else {
            keepRows(from, to);
          }
        } else if (COMPOUND_STATEMENTS.has(statement.type) && containsDefinitionOrImport(statement)) {
          visitCompound(statement);
        } else {
          elide(from);
        }
      }
    };
    /** clause headers kept, clause bodies visited as scopes */
    const visitCompound = (node: Node): void => {
      flush();
      const colon = headerColon(node);
      const headerEnd = colon ? startRow(colon) : startRow(node);
      keepRows(startRow(node), headerEnd);
      for (const child of childrenOf(node)) {
        if (child.type === 'block') {
          if (startRow(child) > headerEnd) visitScope(childrenOf(child));
        } else if (COMPOUND_STATEMENTS.has(child.type)) {
          visitCompound(child);
        }
      }
      flush();
    };
    const firstCodeRow = (from: number, to: number): number => {
      for (let r = from; r <= to; r++) if (!lines.isBlank(r)) return r;
      return to;
    };

    if (tree) visitScope(childrenOf(tree.rootNode));
    flush();
    const lineNumbers = entries.map((e) => (e.row === null ? null : e.row + 1));
    const keptRanges: LineRange[] = [];
    for (const line of lineNumbers) {
      if (line === null) continue;
      const last = keptRanges[keptRanges.length - 1];
      if (last && last.endLine === line - 1) last.endLine = line;
      else keptRanges.push({ startLine: line, endLine: line });
    }
    return { text: entries.length > 0 ? `${entries.map((e) => e.text).join('\n')}\n` : '', lineNumbers, keptRanges };
  }
}

function isImportOrAssignment(statement: Node): boolean {
  if (
    statement.type === 'import_statement' ||
    statement.type === 'import_from_statement' ||
    statement.type === 'future_import_statement' ||
    statement.type === 'type_alias_statement'
  ) {
    return true;
  }
  if (statement.type !== 'expression_statement') return false;
  const first = childrenOf(statement)[0];
  return first?.type === 'assignment' || first?.type === 'augmented_assignment';
}

function containsDefinitionOrImport(node: Node): boolean {
  return compoundBodyStatements(node).some(
    (s) =>
      definitionOf(s) !== null ||
      isImportOrAssignment(s) ||
      (COMPOUND_STATEMENTS.has(s.type) && containsDefinitionOrImport(s)),
  );
}
