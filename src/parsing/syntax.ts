/**
 * Where tree-sitter had to recover from broken Python: ERROR nodes (unparseable text) and MISSING
 * nodes (tokens it inserted, e.g. a closing bracket). Outermost ERROR nodes only — what is nested
 * inside one is part of the same problem.
 */
import type { Node, Parser } from 'web-tree-sitter';
import { childrenOf, parserOrDefault, withParsed } from './parse.ts';

export interface SyntaxProblem {
  /** 1-based line where the problem starts */
  line: number;
  kind: 'ERROR' | 'MISSING';
}

export function syntaxProblems(source: string, parser?: Parser): SyntaxProblem[] {
  const chosen = parserOrDefault(parser);
  return withParsed(chosen, source, (tree) => {
    if (!tree) return [{ line: 1, kind: 'ERROR' }];
    const problems: SyntaxProblem[] = [];
    const visit = (node: Node): void => {
      if (node.isMissing) {
        problems.push({ line: node.startPosition.row + 1, kind: 'MISSING' });
        return;
      }
      if (node.type === 'ERROR') {
        problems.push({ line: node.startPosition.row + 1, kind: 'ERROR' });
        return;
      }
      if (!node.hasError) return;
      for (const child of childrenOf(node)) visit(child);
    };
    visit(tree.rootNode);
    const seen = new Set<string>();
    return problems
      .filter((p) => {
        const key = `${p.line}:${p.kind}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .sort((a, b) => a.line - b.line || a.kind.localeCompare(b.kind));
  });
}
