/**
 * The voting normal form of a file in any parsed language but Python (Python has its own, analyzer.ts): the
 * file's tokens from its tree-sitter syntax tree, comments left out, each source line's tokens joined by one
 * space and lines without tokens dropped. So two patches that differ only in comments, blank lines, indentation
 * or spacing (`a+b` vs `a + b`) vote together; a different token is a different change. A file of a language
 * locfix does not parse falls back to whitespace-collapsed lines.
 */
import type { Node } from 'web-tree-sitter';
import { parserForPath } from '../src/parsing/parsers.ts';
import type { SourceAnalysis } from './analyzer.ts';

/** Whitespace-collapsed non-blank lines: the form of a file no parser reads. */
function plainAnalysis(source: string): SourceAnalysis {
  const lines = source
    .split('\n')
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '');
  return { errorNodes: 0, indentationErrors: 0, lines, functions: new Map() };
}

export function syntaxAnalysis(filePath: string, source: string): SourceAnalysis {
  const parser = parserForPath(filePath);
  const tree = parser?.parse(source);
  if (!tree) return plainAnalysis(source);
  try {
    const byLine = new Map<number, string[]>();
    let errorNodes = 0;
    const visit = (node: Node): void => {
      if (node.type.includes('comment')) return;
      if (node.isError || node.isMissing) errorNodes += 1;
      if (node.childCount === 0) {
        const text = node.text;
        if (!text.trim()) return;
        const row = node.startPosition.row;
        const tokens = byLine.get(row) ?? [];
        // a token's own text is kept as written (a string's spaces are its content); a token that spans lines (a
        // multi-line string) keeps its line breaks escaped, so the key stays one line per source line
        tokens.push(text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n'));
        byLine.set(row, tokens);
        return;
      }
      for (const child of node.children) if (child) visit(child);
    };
    visit(tree.rootNode);
    const lines = [...byLine.keys()].sort((a, b) => a - b).map((row) => byLine.get(row)!.join(' '));
    return { errorNodes, indentationErrors: 0, lines, functions: new Map() };
  } finally {
    tree.delete();
  }
}
