/** A gold patch as SEARCH/REPLACE edits (one per hunk), for scripted models that "write" the reference fix. */
import { parsePatch } from 'diff';
import type { SweInstance } from '../../src/dataset/schema.ts';

export interface GoldEdit {
  path: string;
  search: string[];
  replace: string[];
  /** where the hunk starts in the old file, and how many old lines it covers */
  oldStart: number;
  oldLines: number;
}

export function goldEdits(instance: SweInstance): GoldEdit[] {
  return parsePatch(instance.patch).flatMap((file) =>
    file.hunks.map((h) => {
      const lines = h.lines.filter((l) => !l.startsWith('\\'));
      return {
        path: file.oldFileName!.replace(/^a\//, ''),
        search: lines.filter((l) => l[0] !== '+').map((l) => l.slice(1)),
        replace: lines.filter((l) => l[0] !== '-').map((l) => l.slice(1)),
        oldStart: h.oldStart,
        oldLines: h.oldLines,
      };
    }),
  );
}
