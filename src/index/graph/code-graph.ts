/** The graph itself: nodes by id, edges indexed both ways, each (source, target, type) once. */
import type { EdgeType, GraphEdge, GraphNode, NodeType } from './types.ts';

export class CodeGraph {
  private readonly nodeById = new Map<string, GraphNode>();
  private readonly outgoing = new Map<string, GraphEdge[]>();
  private readonly incoming = new Map<string, GraphEdge[]>();
  private readonly edgeKeys = new Set<string>();

  addNode(node: GraphNode): void {
    if (!this.nodeById.has(node.id)) this.nodeById.set(node.id, node);
  }

  /** Adds the edge unless it is there already or an end is unknown; true when added. */
  addEdge(source: string, target: string, type: EdgeType): boolean {
    if (source === target || !this.nodeById.has(source) || !this.nodeById.has(target)) return false;
    const key = `${type}\0${source}\0${target}`;
    if (this.edgeKeys.has(key)) return false;
    this.edgeKeys.add(key);
    const edge: GraphEdge = { source, target, type };
    push(this.outgoing, source, edge);
    push(this.incoming, target, edge);
    return true;
  }

  node(id: string): GraphNode | undefined {
    return this.nodeById.get(id);
  }

  nodes(type?: NodeType): GraphNode[] {
    const all = [...this.nodeById.values()];
    return type ? all.filter((n) => n.type === type) : all;
  }

  /** Edges leaving `id` (downstream), optionally of one type. */
  edgesFrom(id: string, type?: EdgeType): readonly GraphEdge[] {
    const edges = this.outgoing.get(id) ?? [];
    return type ? edges.filter((e) => e.type === type) : edges;
  }

  /** Edges entering `id` (upstream), optionally of one type. */
  edgesTo(id: string, type?: EdgeType): readonly GraphEdge[] {
    const edges = this.incoming.get(id) ?? [];
    return type ? edges.filter((e) => e.type === type) : edges;
  }

  counts(): { nodes: Record<NodeType, number>; edges: Record<EdgeType, number> } {
    const nodes: Record<NodeType, number> = { directory: 0, file: 0, class: 0, function: 0 };
    for (const n of this.nodeById.values()) nodes[n.type]++;
    const edges: Record<EdgeType, number> = { contains: 0, imports: 0, invokes: 0, inherits: 0 };
    for (const list of this.outgoing.values()) for (const e of list) edges[e.type]++;
    return { nodes, edges };
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
