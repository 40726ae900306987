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
import type { Definition } from '../parsing/types.ts';

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

  for (const f of files) {
    const imported = importsOf.get(f.path) ?? new Set<string>();
    for (const r of f.references) {
      if (r.kind === 'import') continue;
      resolution[r.kind].total++;
      const candidates = (byName.get(r.name) ?? []).filter((d) => (r.kind === 'inherits' ? d.kind === 'class' : true));
      const target =
        pick(candidates.filter((d) => d.path === f.path)) ??
        pick(candidates.filter((d) => imported.has(d.path))) ??
        (candidates.length === 1 ? candidates[0] : undefined);
      if (!target) continue;
      const source = innermost(f.definitions, r.line);
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

/** the innermost definition whose lines hold `line` (the latest-starting one of those that do) */
function innermost(definitions: readonly Definition[], line: number): Definition | undefined {
  let best: Definition | undefined;
  for (const d of definitions) if (d.startLine <= line && line <= d.endLine && (!best || d.startLine >= best.startLine)) best = d;
  return best;
}
