/**
 * Agentless 1.5's file-level combination (agentless/fl/combine.py): the first `topN` files of the model's
 * list and the first `topN` of the retrieval list are counted in a Counter, model's first, and ranked by
 * `most_common()` — by count, ties in first-insertion order (Python's sort is stable), i.e. model order,
 * then retrieval order.
 */
export interface CombinedFile {
  path: string;
  /** in how many of the two truncated lists the file appears (1 or 2) */
  count: number;
  /** 1-based rank in the model's list / the retrieval list, when in the truncated list */
  llmRank?: number;
  retrievalRank?: number;
}

export function combineFileLists(llmFiles: readonly string[], retrievedFiles: readonly string[], topN = 3): CombinedFile[] {
  const entries = new Map<string, CombinedFile>();
  llmFiles.slice(0, topN).forEach((path, i) => {
    const e = entries.get(path) ?? { path, count: 0 };
    e.count += 1;
    e.llmRank ??= i + 1;
    entries.set(path, e);
  });
  retrievedFiles.slice(0, topN).forEach((path, i) => {
    const e = entries.get(path) ?? { path, count: 0 };
    e.count += 1;
    e.retrievalRank ??= i + 1;
    entries.set(path, e);
  });
  // Array.prototype.sort is stable: equal counts keep insertion order
  return [...entries.values()].sort((a, b) => b.count - a.count);
}
