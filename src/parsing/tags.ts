/**
 * Definitions of a file from its language's tags query (`src/languages/<folder>/<language>.scm`), for every
 * language whose structure is described by a query rather than walked by hand. The captures follow
 * tree-sitter's `tags.scm` convention:
 *
 *   @definition.class | .interface  a type (class, struct, trait, interface, enum): a definition and a scope
 *   @definition.impl                an impl block: a definition named by its type, scope of its functions
 *   @definition.module              a namespace/module: a scope only (qualifies names, is not listed)
 *   @definition.function | .method  a function; a method when its scope is a type or it has a @receiver
 *   @name                           the defined name (`A::b` and `A.b` forms qualify it further)
 *   @receiver                       the type a Go-style method belongs to
 *   @reference.import               an import (not a definition; read by the lexical channels)
 *
 * Qualified names join the enclosing scopes with dots, as for Python (`Router.route`, `ns.Foo.bar`).
 * Definitions inside function bodies (closures, local classes) are left out, as for Python.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Query, type Node, type Tree } from 'web-tree-sitter';
import type { LanguageSpec } from '../languages/types.ts';
import { grammarOf } from './parsers.ts';
import type { Definition } from './types.ts';

const queries = new Map<string, Query>();

/** A compiled query file of a language, from the language's folder (one per process and file). */
export function languageQuery(spec: LanguageSpec, queryFile: string): Query {
  const key = `${spec.id}\0${queryFile}`;
  let query = queries.get(key);
  if (!query) {
    const file = path.join(spec.folder, queryFile);
    try {
      query = new Query(grammarOf(spec.id), readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`the query ${queryFile} of ${spec.id} (${file}) does not compile: ${(err as Error).message}`);
    }
    queries.set(key, query);
  }
  return query;
}

/** The compiled tags query of a language (one per process), or undefined when it has none. */
export function tagsQuery(spec: LanguageSpec): Query | undefined {
  return spec.tags ? languageQuery(spec, spec.tags) : undefined;
}

const SCOPE_KINDS = new Set(['class', 'interface', 'impl', 'module']);
const FUNCTION_KINDS = new Set(['function', 'method']);

interface Tagged {
  node: Node;
  kind: string;
  name: string;
  receiver?: string;
}

/** `A::b`, `A\b` and `A.b` → `A.b`; generic arguments and surrounding quotes dropped. */
function cleanName(text: string): string {
  return text
    .replace(/<[^<>]*>/g, '')
    .replace(/::|\\/g, '.')
    .replace(/\s+/g, '')
    .replace(/^\.+/, '');
}

function taggedNodes(tree: Tree, query: Query, source: string): Tagged[] {
  const byNode = new Map<number, Tagged>();
  for (const match of query.matches(tree.rootNode)) {
    const definition = match.captures.find((c) => c.name.startsWith('definition.'));
    const name = match.captures.find((c) => c.name === 'name');
    if (!definition || !name) continue;
    const receiver = match.captures.find((c) => c.name === 'receiver');
    const key = definition.node.id;
    // two patterns can tag one node (a function that is also an export): the first one wins
    if (byNode.has(key)) continue;
    byNode.set(key, {
      node: definition.node,
      kind: definition.name.slice('definition.'.length),
      name: cleanName(source.slice(name.node.startIndex, name.node.endIndex)),
      ...(receiver ? { receiver: source.slice(receiver.node.startIndex, receiver.node.endIndex) } : {}),
    });
  }
  return [...byNode.values()].sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
}

/** One tagged definition of a file with its syntax node, as the structural views (chunks, skeletons) need it. */
export interface OutlineEntry {
  /** the node the query tagged (`@definition.*`) */
  node: Node;
  kind: 'class' | 'function' | 'method' | 'module';
  /** dotted name through the enclosing scopes and receiver (`Router.route`) */
  qualifiedName: string;
  /** enclosing listed scopes (types, impl blocks, namespaces) */
  depth: number;
  /** false for definitions inside a function body, which no view lists */
  listed: boolean;
}

/** Every tagged definition of a parsed file in source order, including namespaces and unlisted local ones. */
export function taggedOutline(tree: Tree | null, spec: LanguageSpec, source: string): OutlineEntry[] {
  const query = tree && tagsQuery(spec);
  if (!tree || !query) return [];
  const out: OutlineEntry[] = [];
  const scopes: Array<{ end: number; qualifiedName: string; kind: string; depth: number }> = [];
  for (const t of taggedNodes(tree, query, source)) {
    while (scopes.length && scopes[scopes.length - 1]!.end <= t.node.startIndex) scopes.pop();
    const enclosing = scopes[scopes.length - 1];
    const depth = enclosing ? enclosing.depth + 1 : 0;
    if (enclosing && FUNCTION_KINDS.has(enclosing.kind)) {
      // inside a function body: not listed, and neither is anything inside it
      scopes.push({ end: t.node.endIndex, kind: 'function', qualifiedName: enclosing.qualifiedName, depth });
      out.push({ node: t.node, kind: 'function', qualifiedName: `${enclosing.qualifiedName}.${t.name}`, depth, listed: false });
      continue;
    }
    const prefix = t.receiver ? cleanName(t.receiver) : enclosing?.qualifiedName;
    const qualifiedName = prefix ? `${prefix}.${t.name}` : t.name;
    scopes.push({ end: t.node.endIndex, kind: t.kind, qualifiedName, depth });
    if (t.kind === 'module') {
      out.push({ node: t.node, kind: 'module', qualifiedName, depth, listed: true });
      continue;
    }
    const inType = t.receiver !== undefined || (enclosing !== undefined && SCOPE_KINDS.has(enclosing.kind) && enclosing.kind !== 'module');
    // a tagged method outside any type (a Ruby `def` at top level) is a function
    const kind = SCOPE_KINDS.has(t.kind) ? 'class' : inType ? 'method' : 'function';
    out.push({ node: t.node, kind, qualifiedName, depth, listed: true });
  }
  return out;
}

/** The definitions of a parsed file, in source order. */
export function tagDefinitions(tree: Tree | null, spec: LanguageSpec, path: string, source: string): Definition[] {
  return taggedOutline(tree, spec, source)
    .filter((e) => e.listed && e.kind !== 'module')
    .map((e) => ({
      path,
      name: e.qualifiedName.slice(e.qualifiedName.lastIndexOf('.') + 1),
      qualifiedName: e.qualifiedName,
      kind: e.kind as Definition['kind'],
      startLine: e.node.startPosition.row + 1,
      endLine: e.node.endPosition.row + 1,
    }));
}
