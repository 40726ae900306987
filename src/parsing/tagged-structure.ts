/**
 * The shape of a definition in any tag-described language, read from the syntax tree without naming a
 * language's node types: where its body is, where its header ends, which comments document it, and the
 * statement that wraps it (`export …`, Go's `type … struct`). The chunker and the skeletons of these
 * languages stand on these few rules:
 *
 * - a comment node is one whose type mentions `comment` (comment, line_comment, block_comment);
 * - a definition's body is its `body` field, else the first descendant (a few levels down) that is a
 *   `body` field or a brace-delimited list (`const f = () => {…}`, Go's `struct {…}`);
 * - a body's content is its children minus the opening and closing tokens, with a lone wrapper list
 *   (Go's `statement_list`) unwrapped.
 */
import type { Node } from 'web-tree-sitter';
import { childrenOf } from './parse.ts';

export const isComment = (node: Node): boolean => node.type.includes('comment');

/** Last row a node covers; a line comment that swallows its line break does not reach the next line. */
export function lastRow(node: Node): number {
  const { row, column } = node.endPosition;
  return column === 0 && row > node.startPosition.row ? row - 1 : row;
}

const isBraced = (node: Node): boolean => node.childCount >= 2 && node.child(0)?.type === '{' && node.child(node.childCount - 1)?.type === '}';

/** The body of a definition node, or null (a prototype, `struct S;`, an abstract method). */
export function bodyOf(definition: Node): Node | null {
  const direct = definition.childForFieldName('body');
  if (direct) return direct;
  let level: Node[] = [definition];
  for (let depth = 0; depth < 3 && level.length > 0; depth++) {
    const next: Node[] = [];
    for (const node of level) {
      const body = node.childForFieldName('body');
      if (body && node !== definition) return body;
      for (const child of childrenOf(node)) {
        if (!child.isNamed || isComment(child)) continue;
        if (isBraced(child)) return child;
        next.push(child);
      }
    }
    level = next;
  }
  return null;
}

/** The statements and members inside a body, without its delimiters. */
export function bodyContent(body: Node): Node[] {
  let children = childrenOf(body).filter((c) => c.startIndex !== c.endIndex);
  if (children[0] && !children[0].isNamed) children = children.slice(1);
  if (children.length > 0 && !children[children.length - 1]!.isNamed) children = children.slice(0, -1);
  const named = children.filter((c) => !isComment(c));
  // Go wraps a block's statements in one statement_list node
  if (children.length === 1 && named.length === 1 && named[0]!.type.endsWith('_list') && named[0]!.childCount > 0) return bodyContent(named[0]!);
  return children;
}

/**
 * Last row of a definition's header: the row of its last token before the body (comments skipped), or
 * of the body's opening token; the whole definition when it has no body.
 */
export function headerLastRow(definition: Node, body: Node | null, source: string): number {
  if (!body) return lastRow(definition);
  const opening = body.child(0);
  if (opening && !opening.isNamed) return opening.endPosition.row;
  let at = body.startIndex - 1;
  while (at >= definition.startIndex) {
    if (/\s/.test(source[at]!)) {
      at--;
      continue;
    }
    let token = definition.descendantForIndex(at, at + 1);
    if (!token) return definition.startPosition.row;
    // a comment's own tokens (`//`, doc_comment) count as the comment
    for (let n: Node | null = token; n && n.id !== definition.id; n = n.parent) if (isComment(n)) token = n;
    if (!isComment(token)) return token.endPosition.row;
    at = token.startIndex - 1;
  }
  return definition.startPosition.row;
}

/**
 * The statement a definition is the only content of (`export function f`, Go's `type_declaration` around
 * its `type_spec`, Rust attributes being siblings is not covered): its text starts the definition's header.
 */
export function outerNode(definition: Node): Node {
  let node = definition;
  for (;;) {
    const parent = node.parent;
    if (!parent?.parent) return node; // the root holds everything
    const grand = parent.parent;
    if (bodyOf(grand)?.id === parent.id) return node; // a body holds its members
    const named = childrenOf(parent).filter((c) => c.isNamed && !isComment(c));
    if (named.length !== 1 || named[0]!.id !== node.id) return node;
    node = parent;
  }
}

/** Comments directly above a node (no blank line between), in order: its doc comment. */
export function leadingComments(node: Node): Node[] {
  const out: Node[] = [];
  let expectRow = node.startPosition.row;
  let sibling = node.previousSibling;
  while (sibling && isComment(sibling) && lastRow(sibling) >= expectRow - 1) {
    out.unshift(sibling);
    expectRow = sibling.startPosition.row;
    sibling = sibling.previousSibling;
  }
  return out;
}

/** The text of doc comments without their markers (`///`, `//!`, `/**`, ` * `, `#`). */
export function commentText(comments: readonly Node[], source: string): string {
  return comments
    .map((c) => source.slice(c.startIndex, c.endIndex))
    .join('\n')
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^(?:\/\/[/!]?|\/\*+!?|\*\/|\*(?!\/)|#+)\s?/, '')
        .replace(/\s*\*+\/$/, '')
        .trim(),
    )
    .filter((line) => !line.startsWith('@')) // Javadoc/PHPDoc tags after the summary
    .join('\n');
}
