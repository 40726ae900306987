/**
 * BLAgent's Phase 2 (EAR) context of a Python file: imports, module/class-level assignments, class
 * headers, every signature, and full bodies only for the functions containing an anchor range. Takes the
 * parser of the file's language (`parserForPath`); without one, the default language's. A tag-described
 * language gets the compressed file with the anchored functions in full (tagged-skeleton.ts).
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { childrenOf, parserOrDefault, withParsed } from './parse.ts';
import { languageOfParser } from './parsers.ts';
import { COMPOUND_STATEMENTS, compoundBodyStatements, definitionOf, startRow } from './python-ast.ts';
import { headerColon, effectiveEndRow } from './skeleton-parts.ts';
import { SourceLines } from './source-lines.ts';
import { taggedPruned } from './tagged-skeleton.ts';
import type { LineRange, PrunedView } from './types.ts';

export type { LineRange, PrunedView } from './types.ts';

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
  const chosen = parserOrDefault(parser);
  const spec = languageOfParser(chosen);
  if (spec.tags) return withParsed(chosen, source, (tree) => anchorSets.map((anchorRanges) => taggedPruned(tree, spec, source, anchorRanges)));
  return withParsed(chosen, source, (tree) => anchorSets.map((anchorRanges) => prunedViewOfTree(source, tree, anchorRanges, options)));
}

function prunedViewOfTree(source: string, tree: Tree | null, anchorRanges: LineRange[], options: PrunedViewOptions): PrunedView {
  const maxAssignmentLines = options.maxAssignmentLines ?? Number.POSITIVE_INFINITY;
  {
    const lines = new SourceLines(source);
    const entries: Array<{ row: number | null; text: string }> = [];
    const overlaps = (from: number, to: number): boolean => anchorRanges.some((a) => a.startLine <= to + 1 && a.endLine >= from + 1);
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
    (s) => definitionOf(s) !== null || isImportOrAssignment(s) || (COMPOUND_STATEMENTS.has(s.type) && containsDefinitionOrImport(s)),
  );
}
