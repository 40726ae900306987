/**
 * Memory, CPU and process limits for a bubblewrap sandbox. bwrap itself sets none: it makes namespaces, not
 * cgroups. Where this process may create a cgroup (root, or a subtree delegated to the user), each sandbox
 * gets one, with the same three limits a Docker container gets (memory with swap capped at the same value,
 * a CPU quota, a pids limit), on cgroup v2 or on v1's memory, cpu and pids hierarchies. Where it may not, no
 * memory or CPU limit holds, and the pids limit falls back to RLIMIT_NPROC (set with prlimit), which counts
 * all of this user's processes, the sandbox's among them, and which the kernel ignores for host root.
 * `CgroupLimits.describe()` says which case applies; the runtime logs it and the docs list it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SandboxLimits } from '../../src/sandbox/types.ts';

const CGROUP_ROOT = '/sys/fs/cgroup';
const CFS_PERIOD_US = 100_000;

/** What holds for one sandbox, as text for logs and reports. */
export interface LimitsInEffect {
  memory: string;
  cpu: string;
  pids: string;
}

/** The cgroup folders one sandbox's processes join, and how they are removed. */
export interface SandboxCgroup {
  /** shell lines that move the calling shell (and so everything it execs) into the cgroups */
  joinLines: string[];
  /** a command the sandbox's command runs under (without a cgroup: prlimit's process limit) */
  prefix: string[];
  /** processes in it now, as the pids controller counts them (undefined without a cgroup) */
  processCount(): Promise<number | undefined>;
  remove(): Promise<void>;
  /** its folders (none without a cgroup): recorded with the sandbox, so a sweep can remove what a killed process left */
  dirs: string[];
}

/**
 * Removes cgroup folders a sandbox of a process that is gone left: empty ones only (the kernel refuses a cgroup
 * that still has processes), and only locfix's own (`locfix-*` under the cgroup filesystem), whatever a
 * sandbox's owner file says.
 */
export async function removeLeftoverCgroups(dirs: readonly string[]): Promise<number> {
  let removed = 0;
  for (const dir of dirs) {
    const resolved = path.resolve(dir);
    if (!resolved.startsWith(`${CGROUP_ROOT}/`) || !path.basename(resolved).startsWith('locfix-')) continue;
    if (
      await fs.rmdir(resolved).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}

async function pidsCurrent(dir: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(dir, 'pids.current'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : Number(text.trim());
}

type Layout = { kind: 'v2'; parent: string } | { kind: 'v1'; parents: { memory: string; cpu: string; pids: string } } | { kind: 'none'; why: string };

/** The path of this process' cgroup in a hierarchy (`0::/a/b` for v2, `4:memory:/a/b` for v1). */
function ownCgroup(controller: string | undefined): string | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const [, controllers, at] = line.split(':');
    if (at === undefined) continue;
    if (controller === undefined ? controllers === '' : controllers.split(',').includes(controller)) return at;
  }
  return undefined;
}

async function writable(dir: string): Promise<boolean> {
  const probe = path.join(dir, `locfix-probe-${randomBytes(4).toString('hex')}`);
  try {
    await fs.mkdir(probe);
    await fs.rmdir(probe);
    return true;
  } catch {
    return false;
  }
}

async function detect(): Promise<Layout> {
  if (existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'))) {
    // v2: a child of our own cgroup, which must delegate the three controllers to its children
    const parent = path.join(CGROUP_ROOT, ownCgroup(undefined) ?? '/');
    const delegated = await fs.readFile(path.join(parent, 'cgroup.subtree_control'), 'utf8').catch(() => '');
    const missing = ['memory', 'cpu', 'pids'].filter((c) => !delegated.split(/\s+/).includes(c));
    if (missing.length) return { kind: 'none', why: `cgroup v2: ${parent} does not delegate ${missing.join(', ')} to its children` };
    if (!(await writable(parent))) return { kind: 'none', why: `cgroup v2: ${parent} is not writable by this user` };
    return { kind: 'v2', parent };
  }
  const parents = {
    memory: path.join(CGROUP_ROOT, 'memory', ownCgroup('memory') ?? '/'),
    cpu: path.join(CGROUP_ROOT, 'cpu', ownCgroup('cpu') ?? '/'),
    pids: path.join(CGROUP_ROOT, 'pids', ownCgroup('pids') ?? '/'),
  };
  for (const [name, dir] of Object.entries(parents)) {
    if (!existsSync(dir)) return { kind: 'none', why: `cgroup v1: no ${name} hierarchy at ${dir}` };
    if (!(await writable(dir))) return { kind: 'none', why: `cgroup v1: ${dir} is not writable by this user` };
  }
  return { kind: 'v1', parents };
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Removes a cgroup folder once its processes are gone (the kernel refuses while any is left). */
async function removeCgroupDir(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await fs.rmdir(dir);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return;
      if (code !== 'EBUSY') throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export class CgroupLimits {
  private layout?: Promise<Layout>;

  /** The layout, probed once. */
  private probe(): Promise<Layout> {
    this.layout ??= detect();
    return this.layout;
  }

  async describe(limits: SandboxLimits): Promise<LimitsInEffect> {
    const layout = await this.probe();
    if (layout.kind === 'none') {
      return {
        memory: `none (${layout.why})`,
        cpu: `none (${layout.why})`,
        pids: `RLIMIT_NPROC ${limits.pidsLimit} (prlimit): processes of this user, the sandbox's among them (not for host root)`,
      };
    }
    const via = layout.kind === 'v2' ? 'cgroup v2' : 'cgroup v1';
    return {
      memory: `${via}: ${limits.memoryBytes} bytes, swap included`,
      cpu: `${via}: ${limits.nanoCpus / 1e9} CPUs`,
      pids: `${via}: ${limits.pidsLimit} processes`,
    };
  }

  /** A cgroup (or, without one, the rlimit lines) for one sandbox. */
  async forSandbox(name: string, limits: SandboxLimits): Promise<SandboxCgroup> {
    const layout = await this.probe();
    if (layout.kind === 'none') {
      // prlimit (util-linux), not the shell's `ulimit -u`: dash, Debian's /bin/sh, has no -u
      const prefix = ['prlimit', `--nproc=${limits.pidsLimit}`, '--'];
      return { joinLines: [], prefix, processCount: async () => undefined, remove: async () => undefined, dirs: [] };
    }
    const quota = Math.max(1000, Math.round((limits.nanoCpus / 1e9) * CFS_PERIOD_US));
    if (layout.kind === 'v2') {
      const dir = path.join(layout.parent, name);
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
      await fs.writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await fs.writeFile(path.join(dir, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`);
      await fs.writeFile(path.join(dir, 'pids.max'), String(limits.pidsLimit));
      return {
        joinLines: [`echo $$ > ${shellQuote(path.join(dir, 'cgroup.procs'))}`],
        prefix: [],
        processCount: () => pidsCurrent(dir),
        remove: () => removeCgroupDir(dir),
        dirs: [dir],
      };
    }
    const dirs = Object.fromEntries(Object.entries(layout.parents).map(([c, parent]) => [c, path.join(parent, name)])) as Record<
      'memory' | 'cpu' | 'pids',
      string
    >;
    for (const dir of Object.values(dirs)) await fs.mkdir(dir);
    await fs.writeFile(path.join(dirs.memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    // memsw exists only with swap accounting; without it there is no swap to cap
    await fs.writeFile(path.join(dirs.memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes)).catch(() => undefined);
    await fs.writeFile(path.join(dirs.cpu, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
    await fs.writeFile(path.join(dirs.cpu, 'cpu.cfs_quota_us'), String(quota));
    await fs.writeFile(path.join(dirs.pids, 'pids.max'), String(limits.pidsLimit));
    return {
      joinLines: Object.values(dirs).map((dir) => `echo $$ > ${shellQuote(path.join(dir, 'cgroup.procs'))}`),
      prefix: [],
      processCount: () => pidsCurrent(dirs.pids),
      remove: async () => {
        await Promise.all(Object.values(dirs).map((dir) => removeCgroupDir(dir)));
      },
      dirs: Object.values(dirs),
    };
  }
}
