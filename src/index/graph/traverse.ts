/**
 * LocAgent's TraverseGraph (`explore_tree_structure`; dependency_graph/traverse_graph.py,
 * traverse_tree_structure), so prompts and traces compare:
 * - depth-first from the start entity, up to `hops` edges away (-1 means 20);
 * - `downstream` follows edges out of a node, `upstream` edges into it (printed as `<type>-by`), `both`
 *   takes both directions at the start entity and keeps each branch's direction after that;
 * - node-type and edge-type filters apply to the neighbour and the edge; test files are left out;
 * - each edge is printed once; a node reached again is printed but not expanded again;
 * - output: the start id, then one line per edge, `├── ` / `└── ` + `<edge type> ── ` + node id, children
 *   indented under their parent by `│` or a space plus the connector's width.
 */
import { isTestPath } from '../file-filter.ts';
import type { CodeGraph } from './code-graph.ts';
import type { EdgeType, NodeType } from './types.ts';

export type Direction = 'downstream' | 'upstream' | 'both';

export interface TraverseOptions {
  direction?: Direction;
  /** edges from the start entity; -1: 20 (LocAgent's "unlimited"); default 2 */
  hops?: number;
  nodeTypes?: readonly NodeType[];
  edgeTypes?: readonly EdgeType[];
}

const isTestNode = (id: string) => isTestPath(id.split(':', 1)[0]!);

export function traverseTree(graph: CodeGraph, root: string, options: TraverseOptions = {}): string {
  if (!graph.node(root)) return '';
  const direction = options.direction ?? 'downstream';
  const hops = options.hops === undefined ? 2 : options.hops === -1 ? 20 : options.hops;
  const lines: string[] = [];
  const expanded = new Set<string>();
  const printedEdges = new Set<string>();
  const nodeOk = (id: string) => !options.nodeTypes || options.nodeTypes.includes(graph.node(id)!.type);
  const edgeOk = (type: EdgeType) => !options.edgeTypes || options.edgeTypes.includes(type);

  const visit = (id: string, prefix: string, isLast: boolean, level: number, label: string | undefined, along: 'downstream' | 'upstream' | undefined): void => {
    if (level > hops) return;
    let childPrefix: string;
    if (label === undefined) {
      lines.push(id);
      childPrefix = '';
    } else {
      const connector = `${isLast ? '└── ' : '├── '}${label} ── `;
      lines.push(`${prefix}${connector}${id}`);
      childPrefix = prefix + (isLast ? ' ' : '│') + ' '.repeat(connector.length - 1);
    }
    if (expanded.has(id)) return;
    expanded.add(id);
    const next: Array<{ id: string; label: string; along: 'downstream' | 'upstream' }> = [];
    const atRoot = label === undefined;
    if (along === 'downstream' || (atRoot && (direction === 'downstream' || direction === 'both'))) {
      for (const e of graph.edgesFrom(id)) {
        const key = `${e.source}\0${e.type}\0${e.target}`;
        if (!edgeOk(e.type) || !nodeOk(e.target) || isTestNode(e.target) || printedEdges.has(key)) continue;
        printedEdges.add(key);
        next.push({ id: e.target, label: e.type, along: 'downstream' });
      }
    }
    if (along === 'upstream' || (atRoot && (direction === 'upstream' || direction === 'both'))) {
      for (const e of graph.edgesTo(id)) {
        const key = `${e.source}\0${e.type}\0${e.target}`;
        if (!edgeOk(e.type) || !nodeOk(e.source) || isTestNode(e.source) || printedEdges.has(key)) continue;
        printedEdges.add(key);
        next.push({ id: e.source, label: `${e.type}-by`, along: 'upstream' });
      }
    }
    next.forEach((n, i) => visit(n.id, childPrefix, i === next.length - 1, level + 1, n.label, n.along));
  };
  visit(root, '', false, 0, undefined, undefined);
  return lines.join('\n');
}
