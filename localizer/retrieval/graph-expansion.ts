/**
 * The graph channel: files one step along the code graph from what the issue names. The definitions the
 * definition boost credited (the classes and functions an issue names, with their weights) are the
 * seeds; their neighbours by `invokes` and `inherits`, either direction — callers, callees, base classes,
 * subclasses — are where a fix often is when the named entity is where the symptom shows. Each seed's
 * weight is spread over its neighbours' distinct files (weight / n^spread, as for a name defined in n
 * files); a seed's own file gets nothing here (the definition boost credits it already).
 */
import type { DefinitionEvidence } from './definition-boost.ts';

export interface GraphNeighbor {
  /** the neighbour entity's id (`path:Qualified.name`) and file */
  id: string;
  path: string;
  /** `invokes`, `invoked-by`, `inherits` or `inherited-by` */
  relation: string;
}

export interface GraphLookup {
  /** the invokes/inherits neighbours of an entity (`path:Qualified.name`), test files left out */
  neighborsOf(entityId: string): readonly GraphNeighbor[];
}

export interface GraphEvidence {
  path: string;
  /** the seed entity and the neighbour that brought the file in */
  from: string;
  to: string;
  relation: string;
  weight: number;
}

export function graphScores(
  seeds: readonly DefinitionEvidence[],
  graph: GraphLookup,
  settings: { definitionSpreadExponent: number; maxDefiningFiles: number },
): { scores: Map<string, number>; evidence: GraphEvidence[] } {
  const scores = new Map<string, number>();
  const evidence: GraphEvidence[] = [];
  for (const seed of seeds) {
    const from = `${seed.path}:${seed.qualifiedName}`;
    const byFile = new Map<string, GraphNeighbor>();
    for (const n of graph.neighborsOf(from)) if (n.path !== seed.path && !byFile.has(n.path)) byFile.set(n.path, n);
    if (byFile.size === 0 || byFile.size > settings.maxDefiningFiles) continue;
    const weight = seed.weight / Math.pow(byFile.size, settings.definitionSpreadExponent);
    for (const [path, n] of byFile) {
      scores.set(path, (scores.get(path) ?? 0) + weight);
      evidence.push({ path, from, to: n.id, relation: n.relation, weight });
    }
  }
  return { scores, evidence };
}
