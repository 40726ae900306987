/**
 * What a bubblewrap sandbox needs before its first command: who its root is (identity.ts), the compiled seccomp
 * filter (seccomp.ts), images whose layers hold that identity's ids, and its folder: the writable layer and
 * overlayfs' work folder owned by the sandbox's root (as root, a subordinate id: it writes them through the
 * overlay), and the standard /etc/hosts written into the writable layer from the host, so no command has to run
 * for it.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { loopbackHostsFile } from '../common/loopback-hosts.ts';
import { ownersLabel, sandboxIdentity, sandboxRoot, type SandboxIdentity } from './identity.ts';
import { ImageStoreError, type RootfsStore, type StoredImage } from './image-store.ts';
import { seccompFilter } from './seccomp.ts';

export interface LaunchSettings {
  identity: SandboxIdentity;
  /** the compiled seccomp program's file */
  seccomp: string;
}

/** The identity and the filter of a store's sandboxes; a missing subordinate range, newuidmap or libseccomp is said here. */
export async function launchSettings(store: RootfsStore): Promise<LaunchSettings> {
  const identity = sandboxIdentity();
  if (identity.kind === 'mapped' && !['/usr/bin/newuidmap', '/bin/newuidmap'].some((p) => existsSync(p)))
    throw new ImageStoreError(
      'as root, the bubblewrap sandbox maps ids with newuidmap and newgidmap, which are not installed (Debian: apt-get install uidmap)',
    );
  await store.ensurePrivate();
  return { identity, seccomp: await seccompFilter(store.seccompDir) };
}

/**
 * Refuses an image whose layers hold another identity's ids: a layer imported before issue 50 holds host ids
 * (0 for root's files), which a sandbox whose root is a subordinate id could not write, and silently so.
 */
export function assertOwners(images: readonly StoredImage[], identity: SandboxIdentity): void {
  const wanted = ownersLabel(identity);
  for (const image of images) {
    // a store written without root before owners were recorded holds that user's ids: what a rootless sandbox maps
    if (image.owners === wanted || (image.owners === undefined && identity.kind === 'single')) continue;
    throw new ImageStoreError(
      `image ${image.name} holds ${image.owners ? `the ids of ${image.owners}` : 'host ids (imported before sandboxes ran in a user namespace)'}, ` +
        `and this process' sandboxes run as ${wanted}: import it again (locfix images import) and rebuild what is built on it`,
    );
  }
}

/**
 * Makes the sandbox folder's upper/, work/ and merged/, owned by the sandbox's root, and writes /etc/hosts into
 * the writable layer under a copy of the image's /etc. Returns false when the image has no /etc folder to copy
 * (the caller then writes the file from inside).
 */
export async function prepareSandboxFolder(dir: string, identity: SandboxIdentity, layers: readonly string[], hostname: string): Promise<boolean> {
  const root = sandboxRoot(identity);
  for (const d of ['upper', 'work', 'merged']) await fs.mkdir(path.join(dir, d), { mode: 0o755 });
  if (identity.kind === 'mapped') for (const d of ['upper', 'work']) await fs.chown(path.join(dir, d), root.uid, root.gid);
  let etc: { mode: number; uid: number; gid: number } | undefined;
  for (const layer of layers) {
    const stat = await fs.lstat(path.join(layer, 'etc')).catch(() => undefined);
    if (stat) {
      etc = stat.isDirectory() ? stat : undefined;
      break;
    }
  }
  if (!etc) return false;
  const upperEtc = path.join(dir, 'upper', 'etc');
  await fs.mkdir(upperEtc, { mode: etc.mode & 0o7777 });
  await fs.chmod(upperEtc, etc.mode & 0o7777);
  await fs.lchown(upperEtc, etc.uid, etc.gid);
  const hosts = path.join(upperEtc, 'hosts');
  await fs.writeFile(hosts, loopbackHostsFile(hostname), { mode: 0o644, flag: 'wx' });
  await fs.lchown(hosts, root.uid, root.gid);
  return true;
}
