/**
 * The code-graph channel: the commit's code graph (src/index/graph/: files, classes, functions and their
 * contains/imports/invokes/inherits edges) as one more part of the repository index. Like the history
 * channel it is built on first use, not with the others, because most localizers never ask for it: the
 * retrieval localizer's graph weight and LocAgent's tools do. Graphs are built incrementally from the facts
 * of earlier commits (kept in the process's IndexMemo and under `<cacheDir>/graph/`), one per commit, and the
 * last two are kept alive.
 */
import type { RepoSnapshot } from '../../repo/types.ts';
import type { FileFilterOptions } from '../file-filter.ts';
import { entityNeighbors, type EntityNeighbor } from '../graph/neighbors.ts';
import { buildRepoGraph, type RepoGraph } from '../graph/repo-graph.ts';
import { defaultIndexMemo, type IndexMemo } from '../index-memo.ts';
import type { IndexChannel } from './types.ts';

export interface GraphPart {
  /** the commit's code graph, built on the first call */
  graph(): Promise<RepoGraph>;
  /** the graph as retrieval reads it: the invokes/inherits neighbours of an entity, test files left out */
  graphNeighbors(): Promise<{ neighborsOf(entityId: string): readonly EntityNeighbor[] }>;
}

export interface CodeGraphSettings {
  /** facts persist under `<cacheDir>/graph/` */
  cacheDir?: string;
  /** the index's file filter; the graph keeps test files (LocAgent searches them) */
  fileFilter?: FileFilterOptions;
  memo?: IndexMemo;
}

/** The code graph of a snapshot, shared by the index channel and a localizer that asks for the graph alone. */
export function codeGraphOf(snapshot: RepoSnapshot, settings: CodeGraphSettings = {}): Promise<RepoGraph> {
  const memo = settings.memo ?? defaultIndexMemo();
  const key = `${snapshot.repo}@${snapshot.commit}`;
  let graph = memo.graphs.get(key);
  if (!graph) {
    graph = buildRepoGraph(snapshot, {
      ...(settings.cacheDir ? { cacheDir: settings.cacheDir } : {}),
      memo: memo.graphFacts,
      ...(settings.fileFilter ? { fileFilter: { ...settings.fileFilter, excludeTests: false } } : {}),
    });
    graph.catch(() => memo.graphs.delete(key));
    memo.graphs.set(key, graph);
  }
  return graph;
}

export const graphChannel: IndexChannel<GraphPart> = {
  name: 'graph',
  async open({ snapshot, deps, memo }) {
    const settings: CodeGraphSettings = { cacheDir: deps.cacheDir, memo, ...(deps.fileFilter ? { fileFilter: deps.fileFilter } : {}) };
    return {
      async finish() {
        const graph = () => codeGraphOf(snapshot, settings);
        return {
          graph,
          graphNeighbors: async () => {
            const built = (await graph()).graph;
            return { neighborsOf: (entityId: string) => entityNeighbors(built, entityId) };
          },
        };
      },
    };
  },
};
