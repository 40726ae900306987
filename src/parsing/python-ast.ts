/** Small helpers over tree-sitter-python nodes shared by the chunker, definitions and skeletons. */
import type { Node } from 'web-tree-sitter';
import { childrenOf } from './parse.ts';

export const startRow = (n: Node): number => n.startPosition.row;
export const endRow = (n: Node): number => n.endPosition.row;

/** The class/function definition a statement is (unwrapping decorators), or null. */
export function definitionOf(node: Node): Node | null {
  if (node.type === 'function_definition' || node.type === 'class_definition') return node;
  if (node.type === 'decorated_definition') return node.childForFieldName('definition');
  return null;
}

export function qualify(scope: string | undefined, name: string): string {
  return scope ? `${scope}.${name}` : name;
}

/** name of a definition node, read from the source (no wasm text round trip) */
export function definitionName(definition: Node, source: string): string {
  const name = definition.childForFieldName('name');
  return name ? source.slice(name.startIndex, name.endIndex) : '?';
}

/** Compound statements whose blocks can hold definitions visible at the enclosing scope. */
export const COMPOUND_STATEMENTS = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'with_statement',
  'for_statement',
  'while_statement',
  'match_statement',
  'case_clause',
]);

/**
 * Statements nested in a compound statement's blocks and clauses, in source order (not descending into
 * nested compound statements — callers recurse).
 */
export function compoundBodyStatements(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of childrenOf(node)) {
    if (child.type === 'block') out.push(...childrenOf(child));
    else if (COMPOUND_STATEMENTS.has(child.type)) out.push(child);
  }
  return out;
}

/** the `block` body of a definition (decorators unwrapped) */
export function bodyOf(definition: Node): Node | null {
  return definition.childForFieldName('body');
}
