/**
 * Syntax verdict for an edited file: tree-sitter must find no ERROR or MISSING node, the indentation must be
 * one Python accepts (Python only: checked on the tree, see analyzer.ts), and the file must not have become
 * empty. Files of the other parsed languages are checked with their own grammar (error nodes only); a file
 * of no parsed language is left unchecked. When the base file itself already has error nodes (a grammar
 * gap, not the model's fault), the edit only fails if it adds some.
 */
import { languageForPath } from '../src/languages/index.ts';
import { parserFor } from '../src/parsing/parsers.ts';
import { syntaxProblems } from '../src/parsing/syntax.ts';
import type { PythonAnalyzer } from './analyzer.ts';
import type { FileSyntaxResult } from './types.ts';

export function checkSyntax(path: string, before: string, after: string, analyzer: PythonAnalyzer): FileSyntaxResult {
  if (after.trim() === '') return { path, ok: false, errorNodes: 0, baseErrorNodes: 0, detail: 'the edited file is empty' };
  const language = languageForPath(path);
  if (!language) return { path, ok: true, errorNodes: 0, baseErrorNodes: 0, detail: 'unchecked' };
  const problems =
    language.id === 'python'
      ? (text: string) => {
          const a = analyzer.analyze(text);
          return a.errorNodes + a.indentationErrors;
        }
      : (text: string) => syntaxProblems(text, parserFor(language)).length;
  const errorNodes = problems(after);
  if (errorNodes === 0) return { path, ok: true, errorNodes, baseErrorNodes: 0 };
  const baseErrorNodes = problems(before);
  const ok = baseErrorNodes > 0 && errorNodes <= baseErrorNodes;
  return {
    path,
    ok,
    errorNodes,
    baseErrorNodes,
    detail: ok
      ? 'the base file has as many error nodes already'
      : `${errorNodes} syntax problem(s) (ERROR/MISSING nodes, bad indentation) after the edit, ${baseErrorNodes} before`,
  };
}
