/**
 * The two reduced views of a file in a tag-described language (Go, Rust, Java, C/C++, JS/TS, PHP, Ruby),
 * built from its tags query and the generic shape rules of tagged-structure.ts:
 *
 * - `taggedSkeleton`, BLAgent's ReadFileSkeleton: one line per type, impl block, namespace, function and
 *   method (4 spaces per nesting level), its header joined onto one line with the body elided (`{ ... }`,
 *   or ` ...` for keyword-delimited bodies), the first sentence of its doc comment on the line above.
 * - `taggedCompressed`, Agentless' compressed file for the related-elements prompt: the file as it is,
 *   except that every listed function's and method's body becomes one `...` line (what Agentless' libcst
 *   transformer does to Python, and what multi-language ports of Agentless do with tree-sitter).
 * - `taggedPruned`, BLAgent's EAR view: the compressed file with the anchored functions shown in full.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types.ts';
import type { LineRange, PrunedView } from './types.ts';
import { docSummary, joinedText } from './skeleton-parts.ts';
import { bodyContent, bodyOf, commentText, isComment, leadingComments, outerNode } from './tagged-structure.ts';
import { taggedOutline } from './tags.ts';

const HEADER_MAX = 240;

function commentsWithin(node: Node, from: number, to: number): Node[] {
  const out: Node[] = [];
  const visit = (n: Node): void => {
    if (n.endIndex <= from || n.startIndex >= to) return;
    if (isComment(n)) out.push(n);
    else for (let i = 0; i < n.childCount; i++) visit(n.child(i)!);
  };
  visit(node);
  return out;
}

export function taggedSkeleton(tree: Tree | null, spec: LanguageSpec, source: string, options: { docstrings?: boolean } = {}): string {
  if (!tree) return '';
  const withDocs = options.docstrings ?? true;
  const entries = taggedOutline(tree, spec, source).filter((e) => e.listed);
  const out: string[] = [];
  entries.forEach((entry, i) => {
    const indent = '    '.repeat(entry.depth);
    const outer = outerNode(entry.node);
    if (withDocs) {
      const doc = leadingComments(outer);
      const summary = doc.length > 0 ? docSummary(commentText(doc, source)) : '';
      if (summary) out.push(`${indent}${source.slice(doc[0]!.startIndex).startsWith('#') ? '#' : '//'} ${summary}`);
    }
    const body = bodyOf(entry.node);
    const headerEnd = body ? body.startIndex : entry.node.endIndex;
    let header = joinedText(source, outer.startIndex, headerEnd, commentsWithin(outer, outer.startIndex, headerEnd));
    if (header.length > HEADER_MAX) header = `${header.slice(0, HEADER_MAX - 3)}...`;
    const next = entries[i + 1];
    const holdsListed = next !== undefined && next.node.startIndex < entry.node.endIndex;
    if (!body || holdsListed) out.push(`${indent}${header}`);
    else out.push(`${indent}${header}${body.child(0)?.type === '{' ? ' { ... }' : ' ...'}`);
  });
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

export function taggedCompressed(tree: Tree | null, spec: LanguageSpec, source: string): string {
  return taggedPruned(tree, spec, source, []).text;
}

/**
 * BLAgent's EAR view of such a file: the compressed file, with the bodies of the functions whose lines
 * overlap an anchor range kept in full.
 */
export function taggedPruned(tree: Tree | null, spec: LanguageSpec, source: string, anchors: readonly LineRange[]): PrunedView {
  const lines = source.split('\n');
  /** [first, last] rows (0-based) of elided bodies, outermost only */
  const elided: Array<[number, number]> = [];
  const anchored = (from: number, to: number) => anchors.some((a) => a.startLine <= to + 1 && a.endLine >= from + 1);
  for (const entry of tree ? taggedOutline(tree, spec, source) : []) {
    if (!entry.listed || (entry.kind !== 'function' && entry.kind !== 'method')) continue;
    if (anchored(entry.node.startPosition.row, entry.node.endPosition.row)) continue;
    const body = bodyOf(entry.node);
    const content = body ? bodyContent(body) : [];
    if (content.length === 0) continue;
    const first = content[0]!.startPosition.row;
    const last = content[content.length - 1]!.endPosition.row;
    // a body on its header's or closing line (`{ return 1; }`) stays as it is
    if (first <= entry.node.startPosition.row || entry.node.endPosition.row <= last) continue;
    if (elided.some(([a, b]) => first >= a && last <= b)) continue;
    elided.push([first, last]);
  }
  elided.sort((a, b) => a[0] - b[0]);
  const text: string[] = [];
  const lineNumbers: Array<number | null> = [];
  const keptRanges: LineRange[] = [];
  const keep = (from: number, to: number) => {
    if (to < from) return;
    for (let r = from; r <= to; r++) {
      text.push(lines[r]!);
      lineNumbers.push(r + 1);
    }
    keptRanges.push({ startLine: from + 1, endLine: to + 1 });
  };
  let row = 0;
  for (const [first, last] of elided) {
    keep(row, first - 1);
    text.push(`${/^\s*/.exec(lines[first] ?? '')![0]}...`);
    lineNumbers.push(null);
    row = last + 1;
  }
  keep(row, lines.length - 1);
  return { text: text.join('\n'), lineNumbers, keptRanges };
}
