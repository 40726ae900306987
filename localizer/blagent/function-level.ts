/**
 * BLAgent §3.7: the function-level variant changes only the EAR prompt — the model names
 * `path::Class::method` entities instead of ranking files. This module turns its answer into locfix's
 * outputs: `FileLocalization.functions` (dotted qualified names, as `goldElements` writes them) and a file
 * order derived from the entities.
 */
import type { RepoIndex } from '../../src/index/types.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';

export type EarLevel = 'file' | 'function';

/** The qualified names defined in a file ("Class.method", "function", "Outer.Inner.method"). */
export function qualifiedNamesOf(index: Pick<RepoIndex, 'definitionsInFile'>, path: string): Set<string> {
  return new Set(index.definitionsInFile(path).map((d) => d.qualifiedName));
}

/** Files in order of their first entity, then the shown files no entity named, in their given order. */
export function filesFromEntities(entities: ReadonlyArray<{ path: string }>, shown: readonly string[]): string[] {
  const out: string[] = [];
  for (const e of entities) if (!out.includes(e.path)) out.push(e.path);
  for (const p of shown) if (!out.includes(p)) out.push(p);
  return out;
}

/** Entities best first with a rank-derived score (n for the first, 1 for the last). */
export function functionsOutput(entities: ReadonlyArray<{ path: string; name: string }>): NonNullable<FileLocalization['functions']> {
  return entities.map((e, i) => ({ path: e.path, name: e.name, score: entities.length - i }));
}
