/**
 * AST-aware, line-aligned, path-augmented chunking of source files (BLAgent §2.1). What it knows of a
 * language's tree comes through a ChunkSyntax (chunk-syntax.ts): Python's walked by hand, every other
 * language's from its tags query, so the rules below hold for all of them (`block` and `decorated_definition`
 * are Python's words; a brace language's header ends with its `{` line).
 *
 * Rules, in the order they apply:
 * - A chunk is a run of whole lines; lines are never split.
 * - The statements of a scope (module, class body, function body, if/try/... clause) are units. Comments
 *   directly above a statement belong to it (so do the blank lines between them), decorators belong to
 *   their definition (tree-sitter's `decorated_definition`), several statements on one line are one unit.
 * - Consecutive units are merged greedily while the merged run of lines stays ≤ maxChars.
 * - A unit larger than maxChars is split recursively at its finest AST boundary: a definition or compound
 *   statement into its header (decorators, signature, `if cond:` …) plus the statements of its body and
 *   its further clauses (elif/else/except/finally); any other node into its children, descending until
 *   the children fall on different lines. The header always stays with the first sub-chunk.
 * - When only a unit's leading comments make it too big, the comments become their own chunk(s) and the
 *   code stays whole; comments closing a split block stay with its last piece.
 * - What cannot be split that way — ERROR regions of broken code, a long multi-line string — is grouped
 *   by lines. A single line longer than maxChars becomes one chunk of its own, and a header that is
 *   itself over budget (say 50 lines of stacked decorators) is emitted with the first body line.
 *
 * `kind`: the node types of the chunk's units, comma-separated in order — `function_definition` /
 * `class_definition` for definitions, the split node's type for pieces of it (header and body
 * statements), `module` for module-level statements, `ERROR` for broken regions. `symbol`: the
 * qualified name of the one definition a chunk consists of, else of the innermost definition being
 * split (`Class.method`, `A.B.f`), else absent.
 *
 * Each chunk's `text` is `# file: <repository-relative path>` on the first line, then the code lines
 * ('\n' line breaks, CRs dropped). `maxChars` counts the code only (UTF-16 code units, line breaks
 * included), not the path line.
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { type ChunkSyntax, pythonChunkSyntax, taggedChunkSyntax } from './chunk-syntax.ts';
import { languageForPath } from '../languages/index.ts';
import { childrenOf, parseSource, parserOrDefault } from './parse.ts';
import { parserForPath } from './parsers.ts';
import { startRow } from './python-ast.ts';
import { SourceLines } from './source-lines.ts';
import type { CodeChunk } from './types.ts';

export const DEFAULT_MAX_CHUNK_CHARS = 1500;

/**
 * Changes whenever the same input can produce different chunks; caches of chunks (src/index) should
 * include it in their key.
 */
export const CHUNKER_VERSION = 3;

export interface ChunkOptions {
  /** upper bound on a chunk's code size in characters; default 1500 */
  maxChars?: number;
}

/** first line of every chunk's text (path augmentation) */
export function chunkPathLine(path: string): string {
  return `# file: ${path}`;
}

/** a run of rows (0-based, inclusive) with what it holds */
interface Unit {
  start: number;
  end: number;
  /** syntax nodes of the unit; empty for a plain line */
  nodes: Node[];
  kind: string;
  /** qualified name when the unit is exactly one class or function definition */
  symbol?: string;
}

interface Scope {
  /** qualified name of the innermost enclosing definition */
  qualifiedName?: string;
  /** kind given to non-definition units of this scope */
  containerKind: string;
}

interface Prefix {
  start: number;
  end: number;
  kinds: string[];
}

interface Pending {
  start: number;
  end: number;
  kinds: string[];
  unitCount: number;
  hasHeader: boolean;
  singleSymbol?: string;
}

const row = startRow;

class ChunkBuilder {
  readonly chunks: CodeChunk[] = [];
  private readonly pathLine: string;

  constructor(
    private readonly lines: SourceLines,
    private readonly path: string,
    private readonly maxChars: number,
    private readonly syntax: ChunkSyntax = pythonChunkSyntax,
  ) {
    this.pathLine = chunkPathLine(path);
  }

  /** Statements (and their leading comments) of a scope as units. */
  statementUnits(children: Node[], scope: Scope): Unit[] {
    const units: Unit[] = [];
    let commentStart = -1;
    let commentEnd = -1;
    for (const child of children) {
      if (child.startIndex === child.endIndex) continue; // MISSING tokens
      const start = row(child);
      const end = this.syntax.endRow(child);
      const last = units[units.length - 1];
      if (this.syntax.isComment(child)) {
        if (last && start <= last.end) continue; // trailing comment on a statement's line
        if (commentStart < 0) commentStart = start;
        commentEnd = end;
        continue;
      }
      if (last && commentStart < 0 && start <= last.end) {
        // another statement on the same line (`x = 1; y = 2`, the `;` token)
        last.end = Math.max(last.end, end);
        last.nodes.push(child);
        last.kind = scope.containerKind;
        last.symbol = undefined;
        continue;
      }
      const unit: Unit = { start: commentStart >= 0 ? commentStart : start, end, nodes: [child], kind: scope.containerKind };
      const definition = this.syntax.definitionAt(child, scope.qualifiedName);
      if (definition) {
        unit.kind = definition.kind;
        unit.symbol = definition.symbol;
      } else if (child.type === 'ERROR') {
        unit.kind = 'ERROR';
      }
      units.push(unit);
      commentStart = -1;
    }
    if (commentStart >= 0) {
      // comments closing a scope stay with its last statement
      const last = units[units.length - 1];
      if (last) last.end = Math.max(last.end, commentEnd);
      else units.push({ start: commentStart, end: commentEnd, nodes: [], kind: scope.containerKind });
    }
    return units;
  }

  /** Greedy merge of consecutive units; oversized ones are split recursively. */
  pack(units: Unit[], prefix: Prefix | null, scope: Scope): void {
    const max = this.maxChars;
    let cur: Pending | null = prefix ? { start: prefix.start, end: prefix.end, kinds: [...prefix.kinds], unitCount: 0, hasHeader: true } : null;
    for (const unit of units) {
      if (cur) {
        if (this.lines.size(cur.start, unit.end) <= max) {
          addUnit(cur, unit);
          continue;
        }
        if (cur.unitCount === 0) {
          // Only a header so far: it must stay with the first piece of this unit.
          const header: Prefix = { start: cur.start, end: cur.end, kinds: cur.kinds };
          if (!this.split(unit, header, scope)) {
            addUnit(cur, unit);
            this.emit(cur, scope);
          }
          cur = null;
          continue;
        }
        this.emit(cur, scope);
        cur = null;
      }
      if (this.lines.size(unit.start, unit.end) <= max || !this.split(unit, null, scope)) {
        cur = { start: unit.start, end: unit.end, kinds: [], unitCount: 0, hasHeader: false };
        addUnit(cur, unit);
      }
    }
    if (cur) this.emit(cur, scope);
  }

  /** Splits an oversized unit into chunks; false when it is a single line (kept whole by the caller). */
  private split(unit: Unit, prefix: Prefix | null, scope: Scope): boolean {
    const nodeStart = unit.nodes.length > 0 ? row(unit.nodes[0]) : unit.start;
    if (unit.start < nodeStart && this.lines.size(nodeStart, unit.end) <= this.maxChars) {
      // Only its leading comments make the unit too big: they go first, the code stays whole.
      let commentEnd = nodeStart - 1;
      while (commentEnd > unit.start && this.lines.isBlank(commentEnd)) commentEnd--;
      const comments: Unit = { start: unit.start, end: commentEnd, nodes: [], kind: unit.kind };
      this.pack([comments, { ...unit, start: nodeStart }], prefix, scope);
      return true;
    }
    const structured = unit.nodes.length === 1 && unit.nodes[0].type !== 'ERROR' ? this.splitCompound(unit, scope) : null;
    if (structured) {
      const header: Prefix = {
        start: prefix?.start ?? structured.headerStart,
        end: structured.headerEnd,
        kinds: [...(prefix?.kinds ?? []), structured.headerKind],
      };
      this.pack(structured.units, header, structured.scope);
      return true;
    }
    const innerScope: Scope = { qualifiedName: scope.qualifiedName, containerKind: unit.kind };
    const generic = unit.nodes.length > 0 && unit.kind !== 'ERROR' ? this.splitChildren(unit, innerScope) : null;
    if (generic) {
      this.pack(generic, prefix, innerScope);
      return true;
    }
    if (unit.end === unit.start) return false;
    // ERROR regions and unsplittable multi-line tokens: group by lines
    const lineUnits: Unit[] = [];
    for (let r = unit.start; r <= unit.end; r++) {
      if (!this.lines.isBlank(r)) lineUnits.push({ start: r, end: r, nodes: [], kind: unit.kind });
    }
    this.pack(lineUnits, prefix, innerScope);
    return true;
  }

  /** Header + body statements (+ further clauses) of a definition or compound statement. */
  private splitCompound(unit: Unit, scope: Scope): { headerStart: number; headerEnd: number; headerKind: string; units: Unit[]; scope: Scope } | null {
    const node = unit.nodes[0];
    const parts = this.syntax.parts(node, scope.qualifiedName);
    if (!parts) return null;
    const innerScope: Scope = parts.definition
      ? { qualifiedName: parts.definition.symbol, containerKind: parts.definition.kind }
      : { qualifiedName: scope.qualifiedName, containerKind: node.type };
    const units = this.statementUnits(parts.body, innerScope);
    units.push(...this.statementUnits(parts.after, innerScope));
    if (units.length === 0) return null;
    extendLast(units, unit.end);
    return { headerStart: unit.start, headerEnd: parts.headerEnd, headerKind: parts.headerKind, units, scope: innerScope };
  }

  /**
   * Children of the unit's nodes as line-disjoint units, descending (coarse to fine) only while all
   * children share lines, e.g. `x = {` … `}` → the dictionary's entries.
   */
  private splitChildren(unit: Unit, scope: Scope): Unit[] | null {
    let elements = unit.nodes;
    for (;;) {
      const groups: Node[][] = [];
      let groupEnd = -1;
      for (const element of elements) {
        if (element.startIndex === element.endIndex) continue;
        if (groups.length > 0 && row(element) <= groupEnd) groups[groups.length - 1].push(element);
        else groups.push([element]);
        groupEnd = Math.max(groupEnd, this.syntax.endRow(element));
      }
      if (groups.length >= 2) {
        const units = groups.map((group): Unit => {
          const first = group[0];
          const definition = group.length === 1 ? this.syntax.definitionAt(first, scope.qualifiedName) : undefined;
          return {
            start: row(first),
            end: Math.max(...group.map((n) => this.syntax.endRow(n))),
            nodes: group,
            kind: definition ? definition.kind : first.type === 'ERROR' && group.length === 1 ? 'ERROR' : scope.containerKind,
            symbol: definition?.symbol,
          };
        });
        units[0].start = Math.min(units[0].start, unit.start); // leading comments of the unit
        extendLast(units, unit.end);
        return units;
      }
      if (groups.length === 0) return null;
      const next: Node[] = [];
      let expanded = false;
      for (const element of groups[0]) {
        // a string's children are its quotes, escapes and interpolations, not line boundaries
        if (this.syntax.endRow(element) > row(element) && element.childCount > 0 && element.type !== 'ERROR' && !this.syntax.isString(element)) {
          next.push(...childrenOf(element));
          expanded = true;
        } else {
          next.push(element);
        }
      }
      if (!expanded) return null;
      elements = next;
    }
  }

  private emit(pending: Pending, scope: Scope): void {
    const symbol = !pending.hasHeader && pending.unitCount === 1 && pending.singleSymbol ? pending.singleSymbol : scope.qualifiedName;
    const chunk: CodeChunk = {
      path: this.path,
      startLine: pending.start + 1,
      endLine: pending.end + 1,
      text: `${this.pathLine}\n${this.lines.text(pending.start, pending.end)}`,
      kind: pending.kinds.join(','),
    };
    if (symbol !== undefined) chunk.symbol = symbol;
    this.chunks.push(chunk);
  }
}

/** Comments closing a scope were attached to the unit's end; its last piece keeps them. */
function extendLast(units: Unit[], end: number): void {
  const last = units[units.length - 1];
  if (last.end < end) last.end = end;
}

function addUnit(pending: Pending, unit: Unit): void {
  pending.end = unit.end;
  if (!pending.kinds.includes(unit.kind)) pending.kinds.push(unit.kind);
  pending.unitCount++;
  pending.singleSymbol = pending.unitCount === 1 ? unit.symbol : undefined;
}

/** Chunks by lines only; the fallback when parsing itself fails. */
function lineChunks(lines: SourceLines, path: string, maxChars: number): CodeChunk[] {
  const builder = new ChunkBuilder(lines, path, maxChars);
  const units: Unit[] = [];
  for (let r = 0; r < lines.count; r++) {
    if (!lines.isBlank(r)) units.push({ start: r, end: r, nodes: [], kind: 'module' });
  }
  builder.pack(units, null, { containerKind: 'module' });
  return builder.chunks;
}

/**
 * Chunks one file with a caller-owned parser (reuse one Parser across many files). Never throws on bad
 * source: syntax errors become ERROR regions grouped by lines.
 */
export function chunkFileSync(parser: Parser, path: string, source: string, opts: ChunkOptions = {}): CodeChunk[] {
  const maxChars = checkedMaxChars(opts);
  if (source.length === 0) return [];
  const tree = parseSource(parser, source);
  try {
    return chunkTree(tree, path, source, maxChars);
  } finally {
    tree?.delete();
  }
}

export function checkedMaxChars(opts: ChunkOptions): number {
  const maxChars = opts.maxChars ?? DEFAULT_MAX_CHUNK_CHARS;
  if (!(maxChars > 0)) throw new Error(`chunkFile: maxChars must be a positive number, got ${maxChars}`);
  return maxChars;
}

/** Chunks from an existing parse of `source` (the caller owns and deletes the tree). */
export function chunkTree(tree: Tree | null, path: string, source: string, maxChars: number): CodeChunk[] {
  const lines = new SourceLines(source);
  if (lines.count === 0) return [];
  if (!tree) return lineChunks(lines, path, maxChars);
  try {
    const spec = languageForPath(path);
    const syntax = spec?.tags ? taggedChunkSyntax(tree, spec, source) : pythonChunkSyntax;
    const builder = new ChunkBuilder(lines, path, maxChars, syntax);
    const scope: Scope = { containerKind: 'module' };
    builder.pack(builder.statementUnits(childrenOf(tree.rootNode), scope), null, scope);
    return builder.chunks;
  } catch {
    // A tree shape this code did not foresee must not lose the file.
    return lineChunks(lines, path, maxChars);
  }
}

export async function chunkFile(path: string, source: string, opts: ChunkOptions = {}): Promise<CodeChunk[]> {
  return chunkFileSync(parserForPath(path) ?? parserOrDefault(undefined), path, source, opts);
}
