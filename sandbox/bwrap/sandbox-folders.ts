/**
 * The sandbox folders of an image store and what each records of its owner (owner.json): a sweep finds what a
 * killed process left, and an image removal sees which images live sandboxes use.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** What a sandbox folder records of its owner, so a later sweep finds what a killed process left. */
export interface SandboxOwner {
  runId?: string;
  host: string;
  pid: number;
  /** the image and the images it is built on: none of them may be removed while this sandbox lives */
  images?: string[];
  /** its cgroup folders, removed by a sweep once its processes are gone */
  cgroups?: string[];
}

/** The sandbox folders of the store with their owners (a folder without a readable owner is not one of ours yet). */
export async function sandboxFolders(sandboxesDir: string): Promise<Array<{ dir: string; owner: SandboxOwner }>> {
  const found: Array<{ dir: string; owner: SandboxOwner }> = [];
  for (const name of await fs.readdir(sandboxesDir).catch(() => [] as string[])) {
    if (!name.startsWith('sandbox-')) continue;
    const dir = path.join(sandboxesDir, name);
    const owner = await fs
      .readFile(path.join(dir, 'owner.json'), 'utf8')
      .then((t) => JSON.parse(t) as SandboxOwner)
      .catch(() => undefined);
    if (owner) found.push({ dir, owner });
  }
  return found;
}
