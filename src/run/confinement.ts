/**
 * The confinement rule of run folders: a folder someone hands you is read as data, and nothing it holds may make
 * locfix read (or copy, or show) a file outside it. Two ways out exist, and both are closed here:
 *
 * - **a symbolic link** inside the folder whose target is outside it: `assertConfined` walks the folder once and
 *   refuses it, naming the link and its target (a link that stays inside is fine);
 * - **a path made from data**: an instance id from a selection file or a log folder name joined into a path.
 *   `confinedPath` resolves the path and refuses one that leaves the folder, and ids are checked against the
 *   dataset's id rule (src/dataset/schema.ts) before they name anything.
 *
 * `readConfinedFile` combines both for a single read: the file's real path must be inside the folder's.
 */
import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';

export class ConfinementError extends Error {
  readonly kind = 'outside-run-folder';
  constructor(message: string) {
    super(message);
    this.name = 'ConfinementError';
  }
}

/** Whether `candidate` (absolute, normalized) is `root` or inside it. */
export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** `root` joined with `parts`, refused when the result leaves `root` (a `..`, an absolute part). */
export function confinedPath(root: string, ...parts: string[]): string {
  const resolvedRoot = path.resolve(root);
  const joined = path.resolve(resolvedRoot, ...parts);
  if (!isInside(resolvedRoot, joined)) throw new ConfinementError(`${path.join(...parts)}: leaves the run folder ${resolvedRoot}; refused`);
  return joined;
}

/**
 * Refuses a folder with a symbolic link whose target is outside the folder (or that cannot be resolved to a place
 * inside it). One walk, no link followed: a link to a directory inside the folder is checked but not descended.
 */
export async function assertConfined(root: string): Promise<void> {
  const realRoot = await realpath(root);
  const pending = [realRoot];
  while (pending.length) {
    const dir = pending.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const where = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(where);
      else if (entry.isSymbolicLink()) {
        const target = await realpath(where).catch(() => undefined);
        // a dangling link reads as nothing anyway; one that resolves outside is the way out
        if (target !== undefined && !isInside(realRoot, target))
          throw new ConfinementError(`${where}: a symbolic link out of the run folder (to ${target}); refused`);
      }
    }
  }
}

/** The text of a file inside `root`, or undefined when there is none; refused when its real path is outside `root`. */
export async function readConfinedFile(root: string, ...parts: string[]): Promise<string | undefined> {
  const file = confinedPath(root, ...parts);
  const stat = await lstat(file).catch(() => undefined);
  if (!stat) return undefined;
  const [realRoot, real] = await Promise.all([realpath(root), realpath(file).catch(() => undefined)]);
  if (real === undefined) return undefined;
  if (!isInside(realRoot, real)) throw new ConfinementError(`${file}: resolves to ${real}, outside the run folder; refused`);
  return readFile(real, 'utf8');
}
