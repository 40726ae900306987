/**
 * What the chunker needs to know about a language's syntax tree, behind one small interface: which nodes
 * are comments and strings, which statement is a definition (and its qualified name), and how a
 * definition or compound statement splits into a header and the statements of its body. Python's is
 * walked by hand (python-ast.ts); every tag-described language shares one built on its tags query and the
 * generic shape rules of tagged-structure.ts.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types.ts';
import { childrenOf } from './parse.ts';
import { definitionOf, endRow, qualify, startRow } from './python-ast.ts';
import { bodyContent, bodyOf, headerLastRow, isComment, lastRow, outerNode } from './tagged-structure.ts';
import { type OutlineEntry, taggedOutline } from './tags.ts';

export interface DefinitionInfo {
  /** the definition's node type (`function_definition`, `method_declaration`, …) */
  kind: string;
  /** its qualified name (`Class.method`, `Server.Run`) */
  symbol: string;
}

export interface NodeParts {
  /** node type of the header's owner */
  headerKind: string;
  /** last row of the header (decorators, signature, `{`) */
  headerEnd: number;
  /** statements of the body, with comments, for the chunker's units */
  body: Node[];
  /** further clauses after the body (elif/else/except/finally) */
  after: Node[];
  /** set when the node is a definition: the scope its body opens */
  definition?: DefinitionInfo;
}

export interface ChunkSyntax {
  isComment(node: Node): boolean;
  /** a string literal: its children are quotes and escapes, never line boundaries */
  isString(node: Node): boolean;
  /** last row of a node as the chunker counts it */
  endRow(node: Node): number;
  /** the definition a statement is, with its name qualified by the enclosing scope */
  definitionAt(node: Node, scope: string | undefined): DefinitionInfo | undefined;
  /** header and body of a definition or compound statement, or null when it has none to split */
  parts(node: Node, scope: string | undefined): NodeParts | null;
}

function pythonDefinitionAt(node: Node, scope: string | undefined): DefinitionInfo | undefined {
  const definition = definitionOf(node);
  if (!definition) return undefined;
  return { kind: definition.type, symbol: qualify(scope, definition.childForFieldName('name')?.text ?? '?') };
}

export const pythonChunkSyntax: ChunkSyntax = {
  isComment: (node) => node.type === 'comment',
  isString: (node) => node.type === 'string',
  endRow,
  definitionAt: pythonDefinitionAt,
  parts(node, scope) {
    const definition = definitionOf(node);
    const owner = definition ?? node;
    const children = childrenOf(owner);
    const blockIndex = children.findIndex((c) => c.type === 'block');
    if (blockIndex <= 0) return null;
    const block = children[blockIndex]!;
    let headerEnd = startRow(node);
    for (let i = 0; i < blockIndex; i++) {
      if (children[i]!.type !== 'comment') headerEnd = Math.max(headerEnd, endRow(children[i]!));
    }
    if (startRow(block) <= headerEnd) return null; // body on the header's line
    // comments between the header and the body are children of the definition, not of the block
    const body = children.slice(0, blockIndex).filter((c) => c.type === 'comment' && startRow(c) > headerEnd);
    body.push(...childrenOf(block));
    const info = definition ? pythonDefinitionAt(node, scope) : undefined;
    return { headerKind: owner.type, headerEnd, body, after: children.slice(blockIndex + 1), ...(info ? { definition: info } : {}) };
  },
};

/** The chunk syntax of a tag-described language for one parsed file (its tags query runs once). */
export function taggedChunkSyntax(tree: Tree, spec: LanguageSpec, source: string): ChunkSyntax {
  const byNode = new Map<number, OutlineEntry>();
  for (const entry of taggedOutline(tree, spec, source)) {
    byNode.set(entry.node.id, entry);
    const outer = outerNode(entry.node);
    if (!byNode.has(outer.id)) byNode.set(outer.id, entry);
  }
  const info = (entry: OutlineEntry): DefinitionInfo => ({ kind: entry.node.type, symbol: entry.qualifiedName });
  return {
    isComment,
    isString: (node) => node.type.includes('string') && !node.type.includes('_list'),
    endRow: lastRow,
    definitionAt(node) {
      const entry = byNode.get(node.id);
      return entry ? info(entry) : undefined;
    },
    parts(node) {
      // only definitions split into header + members; other statements descend child by child
      const entry = byNode.get(node.id);
      if (!entry) return null;
      const owner = entry.node;
      const body = bodyOf(owner);
      if (!body) return null;
      const headerEnd = Math.max(startRow(node), headerLastRow(owner, body, source));
      const content = childrenOf(owner).filter((c) => c.endIndex <= body.startIndex && isComment(c) && startRow(c) > headerEnd);
      content.push(...bodyContent(body));
      if (content.length === 0 || startRow(content[0]!) <= headerEnd) return null; // a one-line body
      return { headerKind: owner.type, headerEnd, body: content, after: [], definition: info(entry) };
    },
  };
}
