/**
 * Pieces of Python source the reduced views share: header colons, docstrings and their summaries,
 * signatures joined onto one line, the end of a node without its trailing comments.
 */
import type { Node } from 'web-tree-sitter';
import { childrenOf } from './parse.ts';
import { endRow } from './python-ast.ts';

/** The ':' token closing a definition's or compound statement's header (the one before its body block). */
export function headerColon(node: Node): Node | null {
  let colon: Node | null = null;
  for (const child of childrenOf(node)) {
    if (child.type === 'block') break;
    if (child.type === ':') colon = child;
  }
  return colon;
}

/** Row of the last non-comment token of a node: tree-sitter lets trailing comments into blocks. */
export function effectiveEndRow(node: Node): number {
  let current = node;
  for (;;) {
    const children = childrenOf(current).filter((c) => c.type !== 'comment' && c.startIndex !== c.endIndex);
    const last = children[children.length - 1];
    if (!last) return endRow(current);
    current = last;
  }
}

/** The docstring statement of a block, if its first statement is a bare string. */
export function docstringOf(block: Node | null): Node | null {
  if (!block) return null;
  const first = childrenOf(block).find((c) => c.type !== 'comment');
  if (first?.type !== 'expression_statement') return null;
  const expressions = childrenOf(first);
  const only = expressions[0];
  return expressions.length === 1 && (only.type === 'string' || only.type === 'concatenated_string') ? only : null;
}

/** Inner text of a (possibly concatenated) string literal without prefix and quotes. */
export function stringContent(literal: Node, source: string): string {
  if (literal.type === 'concatenated_string')
    return childrenOf(literal)
      .map((s) => stringContent(s, source))
      .join('');
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
export function joinedText(source: string, from: number, to: number, skipped: Node[]): string {
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
export function signatureNoise(node: Node): Node[] {
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
