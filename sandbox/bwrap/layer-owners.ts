/**
 * What a layer holds before it enters the image store: no setuid or setgid file, and (as root) owners in the
 * sandbox's subordinate range.
 *
 * - **setuid/setgid**: a build step (`--instance-setup`, a repository's `setup.py` run by `pip install -e .`)
 *   runs as root inside and may leave a setuid file; before issue 50 such a file stayed in a 0755 store and
 *   `nobody` ran it on the host as euid 0. Layers are mounted nosuid inside anyway, so the bits serve no one:
 *   they are cleared from every regular file of every layer, imported or built.
 * - **owners**: as root, an imported tree holds host ids (0 for root's files). Sandboxes map their ids 0–65535
 *   to root's subordinate range (identity.ts), so the tree's owners are shifted into that range, or a file of
 *   root's would be nobody's inside. Owners outside 0–65535 become nobody's. A built layer needs no shift: the
 *   sandbox that wrote it already wrote shifted owners.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SANDBOX_IDS, type SandboxIdentity } from './identity.ts';

const SETID_BITS = 0o6000;
const NOBODY = 65_534;

export interface SettledLayer {
  /** regular files whose setuid or setgid bit was cleared */
  setidCleared: string[];
  /** entries whose owner was shifted into the subordinate range */
  shifted: number;
}

/** The id a host id takes in the range starting at `base` (one already in it stays). */
function shiftedId(id: number, base: number): number {
  if (id >= base && id < base + SANDBOX_IDS) return id;
  return base + (id < SANDBOX_IDS ? id : NOBODY);
}

/**
 * Clears setuid/setgid from every regular file under `dir` and, with `shiftInto` a mapped identity, shifts every
 * owner (the folder itself included) into its range. Links are changed, never followed.
 */
export async function settleLayer(dir: string, shiftInto?: SandboxIdentity): Promise<SettledLayer> {
  const settled: SettledLayer = { setidCleared: [], shifted: 0 };
  const mapped = shiftInto?.kind === 'mapped' ? shiftInto : undefined;
  const pending = [dir];
  await settleEntry(dir, dir, mapped, settled);
  while (pending.length) {
    const folder = pending.pop()!;
    for (const entry of await fs.readdir(folder, { withFileTypes: true })) {
      const at = path.join(folder, entry.name);
      await settleEntry(dir, at, mapped, settled);
      if (entry.isDirectory()) pending.push(at);
    }
  }
  return settled;
}

async function settleEntry(root: string, at: string, mapped: Extract<SandboxIdentity, { kind: 'mapped' }> | undefined, settled: SettledLayer): Promise<void> {
  let stat = await fs.lstat(at);
  if (mapped) {
    const uid = shiftedId(stat.uid, mapped.uidBase);
    const gid = shiftedId(stat.gid, mapped.gidBase);
    if (uid !== stat.uid || gid !== stat.gid) {
      await fs.lchown(at, uid, gid);
      settled.shifted++;
      // the kernel clears setuid (and group-executable setgid) on a chown; read what is left
      if (stat.isFile()) stat = await fs.lstat(at);
    }
  }
  if (stat.isFile() && stat.mode & SETID_BITS) {
    await fs.chmod(at, stat.mode & 0o7777 & ~SETID_BITS);
    settled.setidCleared.push(path.relative(root, at));
  }
}
