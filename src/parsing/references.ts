/**
 * What a file refers to, for the code graph: the names it calls, the types it extends or implements, the
 * modules it imports — from its language's reference query (`@reference.call` / `.inherits` / `.import`
 * with a `@name` capture; the tags query of a tag-described language, `queries/python.scm` for Python).
 * Names are as written (the last identifier of `a.b.f()`); resolving them to definitions is the graph's job.
 */
import type { Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types.ts';
import { languageQuery } from './tags.ts';

export type ReferenceKind = 'call' | 'inherits' | 'import';

export interface Reference {
  kind: ReferenceKind;
  /** the called name, the base type's name, or the import's module text (quotes stripped) */
  name: string;
  /** 1-based line of the reference */
  line: number;
  /** UTF-16 offset of the reference's start, for attributing it to the innermost enclosing definition */
  index: number;
}

const KINDS: Record<string, ReferenceKind> = { 'reference.call': 'call', 'reference.inherits': 'inherits', 'reference.import': 'import' };

/** The references of a parsed file in source order; none when its language has no reference query. */
export function referencesOfTree(tree: Tree | null, spec: LanguageSpec, source: string): Reference[] {
  const file = spec.references ?? spec.tags;
  if (!tree || !file) return [];
  const out: Reference[] = [];
  const seen = new Set<string>();
  for (const match of languageQuery(spec, file).matches(tree.rootNode)) {
    const reference = match.captures.find((c) => KINDS[c.name] !== undefined);
    const name = match.captures.find((c) => c.name === 'name');
    if (!reference || !name) continue;
    const kind = KINDS[reference.name]!;
    // one node can match two patterns of a kind (a call through a member expression and a bare one)
    const key = `${kind}\0${name.node.startIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const text = source.slice(name.node.startIndex, name.node.endIndex).replace(/^["'`<]+|["'`>]+$/g, '');
    if (text) out.push({ kind, name: text, line: name.node.startPosition.row + 1, index: name.node.startIndex });
  }
  return out.sort((a, b) => a.index - b.index);
}
