/**
 * Git-style unified diffs of edited files, and a batched `git apply --check` against the base contents.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from 'diff';
import { commonEdges } from './text.ts';

const execFileAsync = promisify(execFile);

/**
 * Unified-diff hunks of `before` → `after`, computed on the changed window only: the common leading and
 * trailing lines (less `context` of them) are cut off before diffing and the hunk positions shifted back.
 * Repair edits touch a few lines of files with thousands, so this keeps diffing proportional to the edit.
 */
export function diffHunks(before: string, after: string, context = 3): StructuredPatchHunk[] {
  const b = before.split('\n');
  const a = after.split('\n');
  const { prefix, suffix } = commonEdges(b, a);
  const lo = Math.max(0, prefix - context);
  const cut = Math.max(0, suffix - context);
  const window = (lines: string[]) => {
    const end = lines.length - cut;
    // a window that stops before the end of the file consists of whole lines
    return lines.slice(lo, end).join('\n') + (end < lines.length ? '\n' : '');
  };
  const patch = structuredPatch('a', 'b', window(b), window(a), undefined, undefined, { context });
  for (const h of patch.hunks) {
    h.oldStart += lo;
    h.newStart += lo;
  }
  return patch.hunks;
}

/** `diff --git` section for one file; '' when the contents are equal. */
export function fileDiff(filePath: string, before: string, after: string): string {
  if (before === after) return '';
  const hunks = diffHunks(before, after);
  const patch = { oldFileName: `a/${filePath}`, newFileName: `b/${filePath}`, oldHeader: undefined, newHeader: undefined, hunks };
  return `diff --git a/${filePath} b/${filePath}\n${formatPatch(patch, FILE_HEADERS_ONLY)}`;
}

/** One patch over several files, sections in path order (as git orders them). */
export function unifiedDiff(changes: ReadonlyArray<{ path: string; before: string; after: string }>): string {
  return [...changes]
    .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
    .map((c) => fileDiff(c.path, c.before, c.after))
    .join('');
}

export interface PatchCheck {
  ok: boolean;
  message?: string;
}

/** Checks patches against base file contents; one result per input patch, in order. */
export type PatchChecker = (base: ReadonlyMap<string, string>, patches: readonly string[]) => Promise<PatchCheck[]>;

/**
 * Rewrites the file paths in a patch's headers to lie under `prefix/` (hunk bodies untouched: hunk line
 * counts tell header lines from content lines that merely look like headers).
 */
export function prefixPatchPaths(patch: string, prefix: string): string {
  const lines = patch.split('\n');
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith('\\')) continue;
      if (line[0] !== '+') oldLeft--;
      if (line[0] !== '-') newLeft--;
      continue;
    }
    const hunk = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
    } else if (line.startsWith('diff --git a/')) {
      lines[i] = line.replace(/^diff --git a\/(.*) b\/(.*)$/, `diff --git a/${prefix}/$1 b/${prefix}/$2`);
    } else if (line.startsWith('--- a/') || line.startsWith('+++ b/')) {
      lines[i] = `${line.slice(0, 6)}${prefix}/${line.slice(6)}`;
    }
  }
  return lines.join('\n');
}

async function gitApplyCheckIn(dir: string, patchFile: string): Promise<PatchCheck> {
  try {
    // GIT_DIR points nowhere so that an enclosing repository (if tmp is inside one) is never used
    await execFileAsync('git', ['apply', '--check', patchFile], {
      cwd: dir,
      env: { ...process.env, GIT_DIR: path.join(dir, '.no-git'), GIT_CEILING_DIRECTORIES: dir },
    });
    return { ok: true };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { ok: false, message: (e.stderr || e.message).trim() };
  }
}

/**
 * `git apply --check` for every distinct patch against the base contents, batched: each patch gets its own
 * copy of the base files under `p<i>/`, all patches are rewritten into those folders and checked by ONE
 * git process. Only when that fails are the patches checked one by one, to tell which ones are at fault.
 */
export const gitApplyCheck: PatchChecker = async (base, patches) => {
  const distinct = [...new Set(patches.filter((p) => p !== ''))];
  const results = new Map<string, PatchCheck>();
  if (distinct.length > 0) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-apply-check-'));
    try {
      for (const file of base.keys()) {
        if (path.isAbsolute(file) || file.split('/').includes('..')) throw new Error(`unsafe path in base snapshot: ${file}`);
      }
      await Promise.all(
        distinct.map(async (_p, i) => {
          for (const [file, content] of base) {
            await fs.mkdir(path.join(dir, `p${i}`, path.dirname(file)), { recursive: true });
            await fs.writeFile(path.join(dir, `p${i}`, file), content);
          }
        }),
      );
      const combined = path.join(dir, 'all.patch');
      await fs.writeFile(combined, distinct.map((p, i) => prefixPatchPaths(p, `p${i}`)).join(''));
      if ((await gitApplyCheckIn(dir, combined)).ok) {
        for (const p of distinct) results.set(p, { ok: true });
      } else {
        for (const [i, p] of distinct.entries()) {
          const file = path.join(dir, `one-${i}.patch`);
          await fs.writeFile(file, prefixPatchPaths(p, `p${i}`));
          const check = await gitApplyCheckIn(dir, file);
          results.set(p, check.ok ? check : { ok: false, message: check.message?.replaceAll(`p${i}/`, '') });
        }
      }
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  return patches.map((p) => (p === '' ? { ok: true } : results.get(p)!));
};
