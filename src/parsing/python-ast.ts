/**
 * Helpers over Python syntax trees shared by the chunker, definitions and skeletons. The node types come
 * from the Python language record (languages/python.ts); these walkers are the structural code that is
 * still shaped by Python's grammar (blocks, decorators, compound statements).
 */
import type { Node } from 'web-tree-sitter';
import { python } from '../languages/python/python.ts';
import { childrenOf } from './parse.ts';

const { syntax } = python;

export const startRow = (n: Node): number => n.startPosition.row;
export const endRow = (n: Node): number => n.endPosition.row;

/** Compound statements whose blocks can hold definitions visible at the enclosing scope. */
export const COMPOUND_STATEMENTS = syntax.compoundStatements;

/** What a definition node defines ('class' or 'function'), or undefined when it is no definition. */
export function definitionKind(definition: Node): 'class' | 'function' | undefined {
  return syntax.definitions[definition.type];
}

/** The class/function definition a statement is (unwrapping decorators), or null. */
export function definitionOf(node: Node): Node | null {
  if (syntax.definitions[node.type]) return node;
  if (syntax.decorated && node.type === syntax.decorated.type) return node.childForFieldName(syntax.decorated.field);
  return null;
}

export function qualify(scope: string | undefined, name: string): string {
  return scope ? `${scope}.${name}` : name;
}

/** name of a definition node, read from the source (no wasm text round trip) */
export function definitionName(definition: Node, source: string): string {
  const name = definition.childForFieldName(syntax.nameField);
  return name ? source.slice(name.startIndex, name.endIndex) : '?';
}

/**
 * Statements nested in a compound statement's blocks and clauses, in source order (not descending into
 * nested compound statements — callers recurse).
 */
export function compoundBodyStatements(node: Node): Node[] {
  const out: Node[] = [];
  for (const child of childrenOf(node)) {
    if (child.type === syntax.block) out.push(...childrenOf(child));
    else if (COMPOUND_STATEMENTS.has(child.type)) out.push(child);
  }
  return out;
}

/** the body block of a definition (decorators unwrapped) */
export function bodyOf(definition: Node): Node | null {
  return definition.childForFieldName(syntax.bodyField);
}
