/** The shown files of a hierarchy stage: content plus the symbols location answers resolve against. */
import { extractFileSymbols } from '../../src/parsing/definitions.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import type { FileSymbolsView } from './locations.ts';

export interface ShownSource extends FileSymbolsView {
  content: string;
}

/** Line count as Agentless sees it (`splitlines()`: a final newline adds no line). */
export function lineCountOf(content: string): number {
  if (content === '') return 0;
  const n = content.split('\n').length;
  return content.endsWith('\n') ? n - 1 : n;
}

export function sourceView(path: string, content: string): ShownSource {
  const symbols = extractFileSymbols(path, content);
  return { path, content, lineCount: lineCountOf(content), definitions: symbols.definitions, assignments: symbols.assignments };
}

/** Reads `paths` at the snapshot; files missing there are returned in `missing` (not an error). */
export async function loadSources(snapshot: RepoSnapshot, paths: readonly string[]): Promise<{ sources: ShownSource[]; missing: string[] }> {
  const contents = await snapshot.readFiles(paths);
  const sources: ShownSource[] = [];
  const missing: string[] = [];
  for (const p of paths) {
    const c = contents.get(p);
    if (c === undefined) missing.push(p);
    else sources.push(sourceView(p, c));
  }
  return { sources, missing };
}
