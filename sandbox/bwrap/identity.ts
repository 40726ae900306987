/**
 * Who a bubblewrap sandbox's root is on the host. Always a user namespace, so that root inside holds its
 * capabilities over the sandbox's own namespaces and none over the host's:
 *
 * - **as root** (this machine, CI, most cluster nodes): the sandbox's ids 0–65535 map to root's subordinate
 *   range from /etc/subuid and /etc/subgid (written by `newuidmap`/`newgidmap`, shadow's maintained setuid
 *   helpers, as rootless Podman does). Root inside is an unprivileged uid outside: it owns nothing of the host,
 *   shares no keyring with host root, and sysctls and /proc entries that check for global root refuse it. The
 *   image store's layers are owned by that range (an import shifts them), so files inside keep their owners.
 * - **without root**: this user's one uid maps to root inside (`unshare --map-root-user`), as before.
 *
 * Before issue 50 root ran its sandboxes with no user namespace at all: a model patch's conftest.py set
 * `kernel.core_pattern` and had the kernel run its script as host root.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** the ids a sandbox sees: 0–65535, as a container's */
export const SANDBOX_IDS = 65_536;

export type SandboxIdentity =
  /** root: the sandbox's ids are host ids uidBase… and gidBase… */
  | { kind: 'mapped'; uidBase: number; gidBase: number }
  /** not root: this uid and gid are root inside, and no other id exists there */
  | { kind: 'single'; uid: number; gid: number };

export class SubordinateIdsError extends Error {
  constructor(detail: string) {
    super(
      `the bubblewrap sandbox runs root's sandboxes as root's subordinate ids, and ${detail}. ` +
        `Give root a range of ${SANDBOX_IDS} (usermod --add-subuids 524288-589823 --add-subgids 524288-589823 root) and install newuidmap (Debian: uidmap); ` +
        'scripts/setup-bwrap.sh does both',
    );
    this.name = 'SubordinateIdsError';
  }
}

/** The first range of `user` (name or uid) in a subordinate-id file with at least SANDBOX_IDS ids, or undefined. */
export function subordinateBase(fileText: string, user: { name: string; uid: number }): number | undefined {
  for (const line of fileText.split('\n')) {
    const [owner, start, count] = line.trim().split(':');
    if (owner !== user.name && owner !== String(user.uid)) continue;
    const base = Number(start);
    if (Number.isSafeInteger(base) && base > 0 && Number(count) >= SANDBOX_IDS) return base;
  }
  return undefined;
}

function readRange(file: string, user: { name: string; uid: number }): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new SubordinateIdsError(`${file} cannot be read`);
  }
  const base = subordinateBase(text, user);
  if (base === undefined) throw new SubordinateIdsError(`${file} gives ${user.name} no range of ${SANDBOX_IDS} ids`);
  return base;
}

/** The identity of this process' sandboxes (root's range read from /etc/subuid and /etc/subgid). */
export function sandboxIdentity(files = { subuid: '/etc/subuid', subgid: '/etc/subgid' }): SandboxIdentity {
  const user = os.userInfo();
  if (user.uid !== 0) return { kind: 'single', uid: user.uid, gid: user.gid };
  const who = { name: user.username, uid: 0 };
  return { kind: 'mapped', uidBase: readRange(files.subuid, who), gidBase: readRange(files.subgid, who) };
}

/** How the image store records whose ids its layers hold: compared before a layer is mounted. */
export function ownersLabel(identity: SandboxIdentity): string {
  return identity.kind === 'mapped' ? `subids:${identity.uidBase}:${identity.gidBase}` : `user:${identity.uid}:${identity.gid}`;
}

/** The host uid and gid of root inside the sandbox: the owner of the folders the sandbox writes. */
export function sandboxRoot(identity: SandboxIdentity): { uid: number; gid: number } {
  return identity.kind === 'mapped' ? { uid: identity.uidBase, gid: identity.gidBase } : { uid: identity.uid, gid: identity.gid };
}
