/**
 * Git-style unified diffs of edited files, and a batched `git apply --check` against the base contents.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';

const execFileAsync = promisify(execFile);

/** `diff --git` section for one file; '' when the contents are equal. */
export function fileDiff(filePath: string, before: string, after: string): string {
  if (before === after) return '';
  const patch = structuredPatch(`a/${filePath}`, `b/${filePath}`, before, after, undefined, undefined, { context: 3 });
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
 * `git apply --check` for every distinct patch, in one temporary directory holding only the base files the
 * patches touch (no repository checkout needed). Runs a few checks at a time.
 */
export const gitApplyCheck: PatchChecker = async (base, patches) => {
  const distinct = [...new Set(patches.filter((p) => p !== ''))];
  const results = new Map<string, PatchCheck>();
  if (distinct.length > 0) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-apply-check-'));
    try {
      for (const [file, content] of base) {
        if (path.isAbsolute(file) || file.split('/').includes('..')) throw new Error(`unsafe path in base snapshot: ${file}`);
        await fs.mkdir(path.join(dir, path.dirname(file)), { recursive: true });
        await fs.writeFile(path.join(dir, file), content);
      }
      let next = 0;
      const worker = async () => {
        while (next < distinct.length) {
          const i = next++;
          const patchFile = path.join(dir, `.check-${i}.patch`);
          await fs.writeFile(patchFile, distinct[i]);
          try {
            // GIT_DIR points nowhere so that an enclosing repository (if tmp is inside one) is never used
            await execFileAsync('git', ['apply', '--check', patchFile], {
              cwd: dir,
              env: { ...process.env, GIT_DIR: path.join(dir, '.no-git'), GIT_CEILING_DIRECTORIES: dir },
            });
            results.set(distinct[i], { ok: true });
          } catch (err) {
            const e = err as { stderr?: string; message: string };
            results.set(distinct[i], { ok: false, message: (e.stderr || e.message).trim() });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(8, distinct.length) }, worker));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  return patches.map((p) => (p === '' ? { ok: true } : results.get(p)!));
};
