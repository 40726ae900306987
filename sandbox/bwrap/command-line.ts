/**
 * The command lines of a bubblewrap sandbox. In order, each process execs the next:
 *
 * 1. `/bin/sh` (the runtime's): joins the sandbox's cgroups, opens bwrap's options as fd 3 and the seccomp
 *    program as fd 4 (both files of the sandbox's folder and the store: their host paths never reach bwrap's
 *    argv, which the sandbox reads as its /proc/1/cmdline);
 * 2. `unshare`: a private mount namespace (and a network namespace when the network is off);
 * 3. a shell that mounts the image's layers and the sandbox's writable layer as one overlay, `nosuid,nodev`,
 *    and a sysfs of the sandbox's own network namespace;
 * 4. the user namespace (identity.ts): as root, `unshare --user` with root's subordinate ids mapped, after the
 *    mount, so the overlay is mounted by host root as a container engine mounts it; without root it is made in
 *    step 2 and the overlay is mounted inside it (`userxattr`). Either way the namespace may make no further
 *    user namespace (`user.max_user_namespaces` = 0 in it, as bwrap's `--disable-userns` does);
 * 5. `bwrap --args 3`: the overlay as root, fresh PID, IPC, UTS (and network) namespaces, Docker's default
 *    capabilities, /proc with the paths Docker masks masked and /proc/sys read-only, the seccomp filter
 *    (seccomp.ts), and nothing of the host's environment.
 */
import { existsSync } from 'node:fs';
import { type SandboxIdentity, SANDBOX_IDS } from './identity.ts';

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
 * The paths a Docker container sees masked (moby's oci/defaults.go MaskedPaths) or read-only (ReadonlyPaths):
 * files are covered by /dev/null, folders by an empty read-only tmpfs. /proc/sys stays readable (tests read
 * sysctls) but read-only. Only those that exist on this kernel are covered: bwrap refuses a missing target.
 */
const MASKED_FILES = ['/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/sysrq-trigger'];
const MASKED_DIRS = ['/proc/acpi', '/proc/asound', '/proc/scsi', '/proc/bus', '/proc/fs', '/proc/irq', '/sys/firmware', '/sys/devices/virtual/powercap'];

/**
 * The environment and folder of every process outside the sandbox: bwrap's pid 1 keeps both, and the sandbox reads
 * its /proc/1/environ. Before issue 50 that was locfix's whole environment (a model server's API key among it).
 */
export const LAUNCH_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };
export const LAUNCH_CWD = '/';

/**
 * As root, where the overlay is moved once mounted, in the sandbox's private mount namespace: a folder every Linux
 * host has and anyone may traverse. The sandbox's root is an unprivileged id outside and the image store is 0700
 * host root's, so bwrap could not reach the overlay at its place in the store; moved here it can, and the store
 * stays closed. The host's own /tmp is hidden in that namespace only. (Without root the store is the user's own
 * and the overlay stays where it is mounted.)
 */
export const SANDBOX_ROOT_MOUNT = '/tmp';

/**
 * Mounts `$1` (lower layers, top first, ':'-separated) with upper `$2` and work `$3` at `$4`, nosuid and nodev
 * (`$6` adds `userxattr` in a user namespace: overlayfs then keeps its marks in user.* attributes), moves it to
 * `$8` when that is given, and with `$5` = "sysfs" mounts a read-only sysfs of the sandbox's own network namespace
 * on its /sys; `$7` = "closed" closes user namespaces in the one it runs in. Then it runs the rest.
 */
const MOUNT_SCRIPT = [
  'set -e',
  'lower=$1 upper=$2 work=$3 merged=$4 sys=$5 xattr=$6 userns=$7 root=$8',
  'shift 8',
  'mount -t overlay overlay -o "lowerdir=$lower,upperdir=$upper,workdir=$work,nosuid,nodev$xattr" "$merged"',
  'if [ -n "$root" ]; then mount --move "$merged" "$root"; else root=$merged; fi',
  'if [ "$sys" = sysfs ]; then mkdir -p "$root/sys" && mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys"; fi',
  'if [ "$userns" = closed ]; then echo 0 > /proc/sys/user/max_user_namespaces; fi',
  'exec "$@"',
].join('\n');

/** In the mapped user namespace: no further user namespace, then the rest. */
const CLOSE_USERNS_SCRIPT = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';

export interface OverlayMount {
  /** the image's layers, top first */
  layers: readonly string[];
  upper: string;
  work: string;
  merged: string;
  network: 'none' | 'host';
}

/** `command` run with the overlay mounted, in the sandbox's user namespace (steps 2–4 above). */
export function withOverlay(mount: OverlayMount, identity: SandboxIdentity, command: readonly string[]): string[] {
  const mapped = identity.kind === 'mapped';
  const net = mount.network === 'none' ? ['--net'] : [];
  const sys = mount.network === 'none' ? 'sysfs' : 'host-sys';
  const userns = mapped
    ? [
        'unshare',
        '--user',
        `--map-users=${identity.uidBase},0,${SANDBOX_IDS}`,
        `--map-groups=${identity.gidBase},0,${SANDBOX_IDS}`,
        '--setuid',
        '0',
        '--setgid',
        '0',
        '--',
        '/bin/sh',
        '-c',
        CLOSE_USERNS_SCRIPT,
        'locfix-userns',
      ]
    : [];
  return [
    'unshare',
    ...(mapped ? [] : ['--user', '--map-root-user']),
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
    mapped ? '' : ',userxattr',
    mapped ? 'mapped-later' : 'closed',
    mapped ? SANDBOX_ROOT_MOUNT : '',
    ...userns,
    ...command,
  ];
}

/** Where bwrap finds the mounted overlay: moved to SANDBOX_ROOT_MOUNT as root, at its mount point otherwise. */
export function overlayRoot(mount: OverlayMount, identity: SandboxIdentity): string {
  return identity.kind === 'mapped' ? SANDBOX_ROOT_MOUNT : mount.merged;
}

export interface BwrapCommand {
  /** the mounted overlay (overlayRoot) */
  root: string;
  hostname: string;
  env: Readonly<Record<string, string>>;
  workdir: string;
  network: 'none' | 'host';
}

/** bwrap's options for `--args 3` (seccomp from fd 4), NUL-separated. */
export function bwrapOptions(command: BwrapCommand, exists: (p: string) => boolean = existsSync): Buffer {
  const argv = ['--bind', command.root, '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/dev/shm'];
  argv.push('--ro-bind', '/proc/sys', '/proc/sys');
  // with the host's network, the host's sysfs (read-only) is the one that matches it
  if (command.network === 'host') argv.push('--ro-bind', '/sys', '/sys');
  for (const file of MASKED_FILES.filter(exists)) argv.push('--ro-bind', '/dev/null', file);
  for (const dir of MASKED_DIRS.filter(exists)) argv.push('--tmpfs', dir, '--remount-ro', dir);
  argv.push('--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try');
  // a second, empty network namespace: bwrap brings its loopback up (the one `unshare` made keeps it down)
  if (command.network === 'none') argv.push('--unshare-net');
  // the sandbox ends with locfix: no process of it outlives a killed or crashed run
  argv.push('--die-with-parent', '--new-session', '--hostname', command.hostname);
  argv.push('--cap-drop', 'ALL', ...DEFAULT_CAPABILITIES.flatMap((cap) => ['--cap-add', `CAP_${cap}`]));
  argv.push('--seccomp', '4');
  argv.push('--clearenv', ...Object.entries(command.env).flatMap(([k, v]) => ['--setenv', k, v]));
  argv.push('--chdir', command.workdir);
  for (const arg of argv) if (arg.includes('\0')) throw new Error(`bwrap sandbox: an option holds a NUL byte: ${JSON.stringify(arg.slice(0, 80))}`);
  return Buffer.from(`${argv.join('\0')}\0`);
}

/** bwrap as the sandbox sees it in /proc/1/cmdline: its options from fd 3, then the command. */
export function bwrapLauncher(command: readonly string[]): string[] {
  return ['bwrap', '--args', '3', '--', ...command];
}

/**
 * The runtime's shell (step 1): joins the cgroups (`joinLines`), opens `$1` as fd 3 and `$2` as fd 4, and
 * execs the rest.
 */
export function launchScript(joinLines: readonly string[]): string {
  return [...joinLines, 'exec 3<"$1" 4<"$2"', 'shift 2', 'exec "$@"'].join('\n');
}

/** A string runs through `/bin/bash -c` with stderr joined to stdout, as in the Docker kind. */
export function commandArgv(command: string | readonly string[]): string[] {
  return typeof command === 'string' ? ['/bin/bash', '-c', `exec 2>&1\n${command}`] : [...command];
}
