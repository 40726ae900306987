/**
 * LocAgent's entity lookups over the graph, with its formats:
 * - `findEntities`: the entities a keyword names, as LocAgent's global name dictionary has them — a file
 *   by its name or its name without extension, a class or function by the last part of its qualified
 *   name — exactly, then ignoring case; test files left out. An id (`path:Class.method`, a path) is
 *   itself. (Keyword search over contents, LocAgent's BM25 fallback, is the search index's job.)
 * - `entityContent`: `RetrieveEntity`'s block — the entity's lines from the file, numbered
 *   (`  12 | code`, numbers right-aligned to the widest), in a code fence.
 */
import { isTestPath } from '../file-filter.ts';
import type { CodeGraph } from './code-graph.ts';
import type { GraphNode } from './types.ts';

export class EntityIndex {
  private readonly byName = new Map<string, string[]>();
  private readonly byLowerName = new Map<string, string[]>();

  constructor(private readonly graph: CodeGraph) {
    for (const node of graph.nodes()) {
      if (isTestPath(node.path)) continue;
      const names: string[] = [];
      if (node.type === 'file') {
        const file = node.path.slice(node.path.lastIndexOf('/') + 1);
        names.push(file);
        if (file.includes('.')) names.push(file.slice(0, file.lastIndexOf('.')));
      } else if (node.name) {
        names.push(node.name.slice(node.name.lastIndexOf('.') + 1));
      }
      for (const n of names) {
        add(this.byName, n, node.id);
        add(this.byLowerName, n.toLowerCase(), node.id);
      }
    }
  }

  /** the nodes `keyword` names: an id, else an exact name, else the name ignoring case */
  findEntities(keyword: string): GraphNode[] {
    const k = keyword.trim();
    const direct = this.graph.node(k);
    if (direct) return [direct];
    const ids = this.byName.get(k) ?? this.byLowerName.get(k.toLowerCase()) ?? [];
    return ids.map((id) => this.graph.node(id)!);
  }
}

/** The entity's source lines numbered in a code fence (a file: all of it); undefined for a directory. */
export function entityContent(node: GraphNode, fileContent: string): string | undefined {
  if (node.type === 'directory') return undefined;
  const lines = fileContent.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const start = node.startLine ?? 1;
  const end = Math.min(node.endLine ?? lines.length, lines.length);
  const width = String(end).length;
  const body = lines.slice(start - 1, end).map((line, i) => `${String(start + i).padStart(width)} | ${line}`);
  return `\`\`\`\n${body.join('\n')}\n\`\`\``;
}

function add(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key);
  if (!list) map.set(key, [id]);
  else if (!list.includes(id)) list.push(id);
}
