/**
 * Builds the code graph of one commit from per-file facts (file-facts.ts). Resolution follows LocAgent's
 * idea — a call or base class is resolved by name — made more careful about which definition of a common
 * name is meant:
 * 1. a definition of that name in the same file;
 * 2. else one in a file this file imports;
 * 3. else the only definition of that name in the repository (LocAgent's global fallback, kept to
 *    unambiguous names: `get` defined in 200 files says nothing).
 * A reference is attributed to the innermost class or function whose lines hold it, else to its file.
 * Calls resolve to functions or classes (calling a class constructs it), bases to classes.
 */
import { CodeGraph } from './code-graph.ts';
import type { FileFacts } from './file-facts.ts';
import { ModuleResolver } from './module-resolver.ts';
import type { ResolutionStats } from './types.ts';
import type { Definition } from '../../parsing/types.ts';

export interface BuiltGraph {
  graph: CodeGraph;
  resolution: ResolutionStats;
}

export const entityId = (d: Pick<Definition, 'path' | 'qualifiedName'>): string => `${d.path}:${d.qualifiedName}`;

export function buildCodeGraph(files: readonly FileFacts[]): BuiltGraph {
  const graph = new CodeGraph();
  const resolution: ResolutionStats = { call: { total: 0, resolved: 0 }, inherits: { total: 0, resolved: 0 }, import: { total: 0, resolved: 0 } };
  const paths = files.map((f) => f.path).sort();

  // directories and files
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      graph.addNode({ id: dir, type: 'directory', path: dir });
      if (i > 1) graph.addEdge(parts.slice(0, i - 1).join('/'), dir, 'contains');
    }
    graph.addNode({ id: path, type: 'file', path });
    if (parts.length > 1) graph.addEdge(parts.slice(0, -1).join('/'), path, 'contains');
  }

  // classes and functions, each contained by its enclosing definition or its file
  const byName = new Map<string, Definition[]>();
  for (const f of files) {
    const known = new Set<string>();
    for (const d of f.definitions) {
      const id = entityId(d);
      graph.addNode({ id, type: d.kind === 'class' ? 'class' : 'function', path: d.path, name: d.qualifiedName, startLine: d.startLine, endLine: d.endLine });
      const parent = d.qualifiedName.includes('.') ? d.qualifiedName.slice(0, d.qualifiedName.lastIndexOf('.')) : undefined;
      graph.addEdge(parent && known.has(parent) ? `${d.path}:${parent}` : d.path, id, 'contains');
      known.add(d.qualifiedName);
      const list = byName.get(d.name);
      if (list) list.push(d);
      else byName.set(d.name, [d]);
    }
  }

  // imports first: they decide which files a name may come from
  const resolver = new ModuleResolver(paths);
  const importsOf = new Map<string, Set<string>>();
  for (const f of files) {
    const targets = new Set<string>();
    for (const r of f.references) {
      if (r.kind !== 'import') continue;
      resolution.import.total++;
      const resolved = resolver.resolve(f.path, r.name);
      if (resolved.length > 0) resolution.import.resolved++;
      for (const t of resolved) {
        graph.addEdge(f.path, t, 'imports');
        targets.add(t);
      }
    }
    importsOf.set(f.path, targets);
  }

  const candidatesByName = indexByName(byName);
  for (const f of files) {
    const imported = importsOf.get(f.path) ?? new Set<string>();
    const ownerOf = innermostByLine(f.definitions);
    for (const r of f.references) {
      if (r.kind === 'import') continue;
      resolution[r.kind].total++;
      const named = candidatesByName.get(r.name);
      if (!named) continue;
      const scope = r.kind === 'inherits' ? named.classes : named.all;
      const target = pick(scope.byPath.get(f.path) ?? []) ?? pick(inFiles(scope, imported)) ?? (scope.list.length === 1 ? scope.list[0] : undefined);
      if (!target) continue;
      const source = ownerOf(r.line);
      const sourceId = source ? entityId(source) : f.path;
      if (sourceId === entityId(target)) continue; // recursion says nothing about where else to look
      resolution[r.kind].resolved++;
      graph.addEdge(sourceId, entityId(target), r.kind === 'call' ? 'invokes' : 'inherits');
    }
  }
  return { graph, resolution };
}

/** one definition when the choice is clear: a single candidate, or a single class among them */
function pick(candidates: readonly Definition[]): Definition | undefined {
  if (candidates.length <= 1) return candidates[0];
  const classes = candidates.filter((d) => d.kind === 'class');
  return classes.length === 1 ? classes[0] : undefined;
}

interface Candidates {
  list: Definition[];
  byPath: Map<string, Definition[]>;
}

/** definitions of each name, all of them and classes only, each also by file (a common name has hundreds) */
function indexByName(byName: ReadonlyMap<string, Definition[]>): Map<string, { all: Candidates; classes: Candidates }> {
  const group = (list: Definition[]): Candidates => {
    const byPath = new Map<string, Definition[]>();
    for (const d of list) {
      const same = byPath.get(d.path);
      if (same) same.push(d);
      else byPath.set(d.path, [d]);
    }
    return { list, byPath };
  };
  const out = new Map<string, { all: Candidates; classes: Candidates }>();
  for (const [name, list] of byName) out.set(name, { all: group(list), classes: group(list.filter((d) => d.kind === 'class')) });
  return out;
}

/** the candidates defined in one of `files` (walking whichever side is smaller) */
function inFiles(candidates: Candidates, files: ReadonlySet<string>): Definition[] {
  const out: Definition[] = [];
  if (files.size < candidates.byPath.size) {
    for (const path of files) out.push(...(candidates.byPath.get(path) ?? []));
  } else {
    for (const [path, list] of candidates.byPath) if (files.has(path)) out.push(...list);
  }
  return out;
}

/**
 * line → the innermost definition whose lines hold it (the latest-starting one, the later listed on a tie),
 * as a table filled once per file instead of a scan of every definition per reference
 */
function innermostByLine(definitions: readonly Definition[]): (line: number) => Definition | undefined {
  const owner: Array<Definition | undefined> = [];
  const ordered = definitions.map((d, i) => ({ d, i })).sort((a, b) => a.d.startLine - b.d.startLine || a.i - b.i);
  for (const { d } of ordered) for (let line = d.startLine; line <= d.endLine; line++) owner[line] = d;
  return (line) => owner[line];
}
