/**
 * The command lines of a bubblewrap sandbox: `unshare` makes a private mount namespace (and, when not root, a
 * user namespace in which this user is root), a shell mounts the image's layers and the sandbox's writable
 * layer as one overlay there, and `bwrap` takes that overlay as the root of a process in fresh PID, network,
 * IPC and UTS namespaces, with Docker's default capability set and nothing of the host but /dev's basic nodes
 * (and, with the host's network, its /sys).
 */
import os from 'node:os';

/** Docker's default capabilities for a container's root (moby's oci/caps/defaults.go): the same root inside as a container's. */
export const DEFAULT_CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FSETID',
  'FOWNER',
  'MKNOD',
  'NET_RAW',
  'SETGID',
  'SETUID',
  'SETFCAP',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'KILL',
  'AUDIT_WRITE',
] as const;

/**
 * Mounts `$1` (lower layers, top first, ':'-separated) with upper `$2` and work `$3` at `$4`, and with `$5`
 * = "sysfs" a read-only sysfs of the sandbox's own network namespace at `$4/sys` (it lists that namespace's
 * interfaces, not the host's), then runs the rest. `userxattr`: overlayfs keeps its own marks (opaque
 * folders) in user.* attributes, which a user namespace may write, so a layer built without root reads the
 * same with it.
 */
const MOUNT_SCRIPT = [
  'set -e',
  'lower=$1 upper=$2 work=$3 merged=$4 sys=$5',
  'shift 5',
  'mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work,userxattr" "$merged"',
  'if [ "$sys" = sysfs ]; then mkdir -p "$merged/sys" && mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$merged/sys"; fi',
  'exec "$@"',
].join('\n');

export interface OverlayMount {
  /** the image's layers, top first */
  layers: readonly string[];
  upper: string;
  work: string;
  merged: string;
  network: 'none' | 'host';
}

/**
 * `command` with the overlay mounted: `unshare` makes a private mount namespace (a user namespace too unless
 * this process is root; a network namespace too when the network is off, so the sysfs mounted there is the
 * sandbox's), and a shell mounts the overlay before it execs the command.
 */
export function withOverlay(mount: OverlayMount, command: readonly string[], uid = os.userInfo().uid): string[] {
  const user = uid === 0 ? [] : ['--user', '--map-root-user'];
  const net = mount.network === 'none' ? ['--net'] : [];
  const sys = mount.network === 'none' ? 'sysfs' : 'host-sys';
  return [
    'unshare',
    ...user,
    '--mount',
    '--propagation',
    'private',
    ...net,
    '--',
    '/bin/sh',
    '-c',
    MOUNT_SCRIPT,
    'locfix-sandbox',
    mount.layers.join(':'),
    mount.upper,
    mount.work,
    mount.merged,
    sys,
    ...command,
  ];
}

export interface BwrapCommand {
  /** the mounted overlay, the sandbox's root */
  root: string;
  hostname: string;
  env: Readonly<Record<string, string>>;
  workdir: string;
  network: 'none' | 'host';
}

/** bwrap's arguments up to the command. */
export function bwrapArgv(command: BwrapCommand): string[] {
  const argv = ['bwrap', '--bind', command.root, '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/dev/shm'];
  // with the host's network, the host's sysfs (read-only) is the one that matches it
  if (command.network === 'host') argv.push('--ro-bind', '/sys', '/sys');
  argv.push('--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try');
  // a second, empty network namespace: bwrap brings its loopback up (the one `unshare` made keeps it down)
  if (command.network === 'none') argv.push('--unshare-net');
  // the sandbox ends with locfix: no process of it outlives a killed or crashed run
  argv.push('--die-with-parent', '--new-session', '--hostname', command.hostname);
  argv.push('--cap-drop', 'ALL', ...DEFAULT_CAPABILITIES.flatMap((cap) => ['--cap-add', `CAP_${cap}`]));
  argv.push('--clearenv', ...Object.entries(command.env).flatMap(([k, v]) => ['--setenv', k, v]));
  argv.push('--chdir', command.workdir, '--');
  return argv;
}

/** A string runs through `/bin/bash -c` with stderr joined to stdout, as in the Docker kind. */
export function commandArgv(command: string | readonly string[]): string[] {
  return typeof command === 'string' ? ['/bin/bash', '-c', `exec 2>&1\n${command}`] : [...command];
}
