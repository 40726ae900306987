/**
 * The code graph of one repository commit, with LocAgent's vocabulary (dependency_graph/build_graph.py):
 * nodes are directories, files, classes and functions (methods are functions); edges are `contains`
 * (directory → directory/file, file → its top-level definitions, class → its members), `imports`
 * (file → file), `invokes` (definition or file → the definition it calls) and `inherits` (class → base).
 * Ids follow LocAgent: a directory or file is its repository path, an entity is `path:Qualified.name`.
 */
import type { ReferenceKind } from '../../parsing/references.ts';

export type NodeType = 'directory' | 'file' | 'class' | 'function';
export type EdgeType = 'contains' | 'imports' | 'invokes' | 'inherits';

export interface GraphNode {
  id: string;
  type: NodeType;
  /** the file (or directory) the node is in */
  path: string;
  /** qualified name of a class or function (`Router.route`) */
  name?: string;
  startLine?: number;
  endLine?: number;
}

export interface GraphEdge {
  source: string;
  target: string;
  type: EdgeType;
}

/** How many references of each kind the graph found, and how many it resolved to a node of the repository. */
export type ResolutionStats = Record<ReferenceKind, { total: number; resolved: number }>;
