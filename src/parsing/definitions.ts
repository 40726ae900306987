/**
 * Classes, functions and methods a file defines (Python walked here, other languages through their tags
 * query, see tags.ts), with qualified names and line ranges — the
 * "which files define identifier X" index of retrieval and the name → range resolution of the
 * function-level localizers.
 *
 * What counts: definitions at module level and in class bodies, also inside compound statements there
 * (`if TYPE_CHECKING:`, `try:` …). Definitions inside function bodies (closures, local helper classes)
 * are left out, as Agentless' repository structure does: nobody asks to edit `wrapper` of a decorator by
 * name, and they would flood the index with common names. A function is a `method` when its innermost
 * enclosing definition is a class. Ranges include decorators, not comments above them.
 */
import type { Node, Parser, Tree } from 'web-tree-sitter';
import { childrenOf, parserOrDefault, withParsed } from './parse.ts';
import { languageForPath } from '../languages/index.ts';
import { parserForPath } from './parsers.ts';
import { tagDefinitions } from './tags.ts';
import { COMPOUND_STATEMENTS, compoundBodyStatements, definitionKind, definitionName, definitionOf, endRow, qualify, startRow } from './python-ast.ts';
import type { Definition, ModuleAssignment } from './types.ts';

export interface FileSymbols {
  definitions: Definition[];
  /** names bound by module-level assignments (`X = …`, `a, b = …`, `X: int = …`), in source order */
  assignments: ModuleAssignment[];
}

/** Definitions and module-level assigned names from one parse. Never throws on broken source. */
export function extractFileSymbols(path: string, source: string, parser?: Parser): FileSymbols {
  const chosen = parser ?? parserForPath(path) ?? parserOrDefault(undefined);
  return withParsed(chosen, source, (tree) => symbolsOfTree(tree, path, source));
}

/** Symbols from an existing parse of `source` (the caller owns and deletes the tree). */
export function symbolsOfTree(tree: Tree | null, path: string, source: string): FileSymbols {
  // a language described by a tags query: its definitions come from the query (module assignments are Python's)
  const spec = languageForPath(path);
  if (spec?.tags) return { definitions: tagDefinitions(tree, spec, path, source), assignments: [] };
  const symbols: FileSymbols = { definitions: [], assignments: [] };
  if (tree) collect(childrenOf(tree.rootNode), undefined, false, true, path, source, symbols);
  return symbols;
}

export function extractDefinitions(path: string, source: string, parser?: Parser): Definition[] {
  return extractFileSymbols(path, source, parser).definitions;
}

function collect(statements: Node[], scope: string | undefined, inClass: boolean, atModule: boolean, path: string, source: string, out: FileSymbols): void {
  for (const statement of statements) {
    const definition = definitionOf(statement);
    if (definition) {
      const name = definitionName(definition, source);
      const qualifiedName = qualify(scope, name);
      const isClass = definitionKind(definition) === 'class';
      out.definitions.push({
        path,
        name,
        qualifiedName,
        kind: isClass ? 'class' : inClass ? 'method' : 'function',
        startLine: startRow(statement) + 1,
        endLine: endRow(statement) + 1,
      });
      const body = definition.childForFieldName('body');
      if (isClass && body) collect(childrenOf(body), qualifiedName, true, false, path, source, out);
    } else if (COMPOUND_STATEMENTS.has(statement.type)) {
      collect(compoundBodyStatements(statement), scope, inClass, atModule, path, source, out);
    } else if (atModule && statement.type === 'expression_statement') {
      for (const child of childrenOf(statement)) {
        if (child.type === 'assignment') assignedNames(child, source, statement, path, out.assignments);
      }
    }
  }
}

function assignedNames(assignment: Node, source: string, statement: Node, path: string, out: ModuleAssignment[]): void {
  const left = assignment.childForFieldName('left');
  if (left) {
    for (const name of targetNames(left, source)) {
      out.push({ path, name, startLine: startRow(statement) + 1, endLine: endRow(statement) + 1 });
    }
  }
  const right = assignment.childForFieldName('right');
  if (right?.type === 'assignment') assignedNames(right, source, statement, path, out); // a = b = 1
}

/** plain names bound by an assignment target (attributes and subscripts bind none) */
function targetNames(target: Node, source: string): string[] {
  switch (target.type) {
    case 'identifier':
      return [source.slice(target.startIndex, target.endIndex)];
    case 'pattern_list':
    case 'tuple_pattern':
    case 'list_pattern':
    case 'list_splat_pattern':
    case 'parenthesized_list_splat':
      return childrenOf(target).flatMap((c) => targetNames(c, source));
    default:
      return [];
  }
}
