/**
 * The neighbourhood the retrieval's graph channel asks for: an entity's `invokes` and `inherits` edges in
 * both directions (`invokes`, `invoked-by`, `inherits`, `inherited-by`), test files left out — a test
 * calling the named function is not where its fix goes.
 */
import { isTestPath } from '../file-filter.ts';
import type { CodeGraph } from './code-graph.ts';

export interface EntityNeighbor {
  id: string;
  path: string;
  relation: 'invokes' | 'invoked-by' | 'inherits' | 'inherited-by';
}

export function entityNeighbors(graph: CodeGraph, entityId: string): EntityNeighbor[] {
  const out: EntityNeighbor[] = [];
  const push = (id: string, relation: EntityNeighbor['relation']) => {
    const node = graph.node(id);
    if (node && node.type !== 'directory' && !isTestPath(node.path)) out.push({ id, path: node.path, relation });
  };
  for (const e of graph.edgesFrom(entityId)) if (e.type === 'invokes' || e.type === 'inherits') push(e.target, e.type);
  for (const e of graph.edgesTo(entityId)) {
    if (e.type === 'invokes') push(e.source, 'invoked-by');
    else if (e.type === 'inherits') push(e.source, 'inherited-by');
  }
  return out;
}
