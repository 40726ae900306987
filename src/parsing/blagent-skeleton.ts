/**
 * BLAgent's ReadFileSkeleton (§2.4 Phase 1) of a Python file: classes with bases, decorators,
 * function/method signatures joined onto one line, first sentence of docstrings; bodies omitted. Takes the
 * parser of the file's language (`parserForPath`); without one, the default language's. A tag-described
 * language gets the same view from its tags query (tagged-skeleton.ts).
 */
import type { Node, Parser } from 'web-tree-sitter';
import { childrenOf, parserOrDefault, withParsed } from './parse.ts';
import { languageOfParser } from './parsers.ts';
import { COMPOUND_STATEMENTS, compoundBodyStatements, definitionOf } from './python-ast.ts';
import { headerColon, docstringOf, stringContent, docSummary, joinedText, signatureNoise } from './skeleton-parts.ts';
import { taggedSkeleton } from './tagged-skeleton.ts';

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
  const chosen = parserOrDefault(parser);
  const spec = languageOfParser(chosen);
  if (spec.tags) return withParsed(chosen, source, (tree) => taggedSkeleton(tree, spec, source, options));
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
      const nested = definition.type === 'class_definition' && body ? childrenOf(body).filter((c) => c.type !== 'comment') : [];
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
