/**
 * Gold files of an instance: the files its reference patch touches. SWE-bench patches are `git diff`
 * output, so each file section starts with `diff --git a/<old> b/<new>`; the `---`/`+++` lines (with
 * /dev/null for added/deleted files) and `rename from/to` lines tell what happened to it. The diff itself
 * is read by the shared parser in src/patch.ts.
 */
import { parsePatch } from '../patch.ts';

export type GoldStatus = 'modified' | 'added' | 'deleted' | 'renamed';

export interface GoldFile {
  /** path at the base commit (for added files: the new path, which does not exist at the base) */
  path: string;
  status: GoldStatus;
  /** for renames: the new path */
  newPath?: string;
}

/** Every file the patch touches, in patch order, each once. Throws on a non-empty text with no file section. */
export function goldFilesFromPatch(patch: string): GoldFile[] {
  const out: GoldFile[] = [];
  for (const f of parsePatch(patch)) {
    let entry: GoldFile;
    if (f.isNew && f.newPath) entry = { path: f.newPath, status: 'added' };
    else if (f.isDeleted && f.oldPath) entry = { path: f.oldPath, status: 'deleted' };
    else if (f.oldPath && f.newPath && f.oldPath !== f.newPath) entry = { path: f.oldPath, status: 'renamed', newPath: f.newPath };
    else entry = { path: f.oldPath ?? f.path, status: 'modified' };
    if (!out.some((g) => g.path === entry.path)) out.push(entry);
  }
  if (out.length === 0 && patch.trim()) throw new Error('patch has no "diff --git" file sections');
  return out;
}

/** The paths metrics compare against. */
export function goldPaths(patch: string): string[] {
  return goldFilesFromPatch(patch).map((g) => g.path);
}
