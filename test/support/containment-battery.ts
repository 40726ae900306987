/**
 * The containment battery (issue 50): what hostile code inside a sandbox tries, written once so that every sandbox
 * kind faces the same probes — Docker is the reference — as root and as an unprivileged user. Each case runs a
 * program inside a fresh sandbox and judges its output, and where the attempt would show on the host, the host:
 * `refused` is the only passing outcome, or `limitation` with its reason where a kind says it cannot hold a limit
 * (memory without a cgroup, for bwrap without root), as sandbox/README.md documents.
 *
 * Every probe is harmless when it succeeds: it writes back the value it read, adds a key nobody uses, mounts an
 * empty tmpfs; the battery reports the success as a failure of the kind.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { ExecResult, Sandbox, SandboxLimits, SandboxOptions } from '../../src/sandbox/types.ts';
import { FORK_EXPLOSION, forksBeforeLimit, MEMORY_HOG, networkProbe } from './sandbox-probes.ts';

export type Outcome = { verdict: 'refused' } | { verdict: 'limitation'; why: string } | { verdict: 'escaped'; evidence: string };

export interface BatteryRuntime {
  create(options: SandboxOptions): Promise<Sandbox>;
  /** what holds the memory limit here, when the kind can say (bwrap: cgroup or none) */
  memoryLimit?(): Promise<string>;
  /** where a file the sandbox wrote lies on the host (its writable layer) */
  hostPathOf(sandbox: Sandbox, inside: string): Promise<string>;
}

export interface BatteryContext {
  runtime: BatteryRuntime;
  image: string;
  runId: string;
  /** a token no file or process of the host holds but the ones the battery plants */
  token: string;
  /** host paths no sandbox may see (the checkout, the image store) */
  hostPaths: readonly string[];
}

export interface BatteryCase {
  name: string;
  run(ctx: BatteryContext): Promise<Outcome>;
}

const refused: Outcome = { verdict: 'refused' };
const escaped = (evidence: string): Outcome => ({ verdict: 'escaped', evidence: evidence.slice(0, 2000) });

async function inSandbox(ctx: BatteryContext, command: string | readonly string[], limits?: Partial<SandboxLimits>, timeoutMs = 60_000): Promise<ExecResult> {
  const sandbox = await ctx.runtime.create({ image: ctx.image, runId: ctx.runId, ...(limits ? { limits } : {}) });
  try {
    return await sandbox.exec(command, { timeoutMs });
  } finally {
    await sandbox.dispose();
  }
}

/** A Python probe: prints "DONE" when the call went through, "REFUSED <errno>" when the kernel said no. */
function pythonCall(body: string): string[] {
  return [
    'python3',
    '-c',
    `import ctypes, errno, os\nlibc = ctypes.CDLL(None, use_errno=True)\ntry:\n${body.replace(/^/gm, '    ')}\nexcept OSError as e:\n    print("REFUSED", errno.errorcode.get(e.errno, e.errno))\n`,
  ];
}

/** `libc.<call>(...)`, raising OSError on -1. */
const SYSCALL_HELPER = 'def check(r):\n    if r < 0:\n        n = ctypes.get_errno(); raise OSError(n, os.strerror(n))\n    return r';

function doneOrRefused(result: ExecResult): Outcome {
  if (/^REFUSED /m.test(result.output)) return refused;
  return escaped(result.output);
}

export const CONTAINMENT_CASES: readonly BatteryCase[] = [
  {
    // the host escape of issue 50: kernel.core_pattern names a program the kernel runs as host root
    name: 'write /proc/sys (kernel.core_pattern, its own value written back)',
    run: async (ctx) =>
      doneOrRefused(
        await inSandbox(
          ctx,
          pythonCall(
            'value = open("/proc/sys/kernel/core_pattern").read()\nwith open("/proc/sys/kernel/core_pattern", "w") as f:\n    f.write(value)\nprint("DONE")',
          ),
        ),
      ),
  },
  {
    name: 'add a key to a kernel keyring (and see it on the host)',
    run: async (ctx) => {
      const description = `locfix-battery-${ctx.token}`;
      const result = await inSandbox(
        ctx,
        pythonCall(
          `${SYSCALL_HELPER}\nlibc.syscall.restype = ctypes.c_long\ncheck(libc.syscall(248, b"user", b"${description}", b"v", 1, ctypes.c_int(-4)))\nprint("DONE")`,
        ),
      );
      const hostKeys = readFileSync('/proc/keys', 'utf8');
      if (hostKeys.includes(description)) return escaped(`the key is in the host's /proc/keys: ${hostKeys.split('\n').find((l) => l.includes(description))}`);
      return doneOrRefused(result);
    },
  },
  {
    name: 'make a user namespace (unshare -U)',
    run: async (ctx) => doneOrRefused(await inSandbox(ctx, pythonCall(`${SYSCALL_HELPER}\ncheck(libc.unshare(0x10000000))\nprint("DONE")`))),
  },
  {
    name: 'mount a filesystem',
    run: async (ctx) =>
      doneOrRefused(await inSandbox(ctx, pythonCall(`${SYSCALL_HELPER}\ncheck(libc.mount(b"none", b"/mnt", b"tmpfs", 0, None))\nprint("DONE")`))),
  },
  {
    // a host file, the host's environment (a model server's key lives there), host paths in pid 1's command line
    name: 'read host files, the host environment, host paths',
    run: async (ctx) => {
      const secretFile = `/tmp/locfix-battery-secret-${ctx.token}`;
      execFileSync('/bin/sh', ['-c', `umask 077; echo "FILE-${ctx.token}" > ${secretFile}`]);
      process.env[`LOCFIX_BATTERY_${ctx.token}`] = `ENV-${ctx.token}`;
      try {
        const result = await inSandbox(
          ctx,
          `cat ${secretFile} 2>/dev/null; env; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; tr '\\0' ' ' < $p/environ; echo; done 2>/dev/null`,
        );
        const leaks = [`FILE-${ctx.token}`, `ENV-${ctx.token}`, ...ctx.hostPaths].filter((s) => result.output.includes(s));
        return leaks.length ? escaped(`seen inside: ${leaks.join(', ')}`) : refused;
      } finally {
        delete process.env[`LOCFIX_BATTERY_${ctx.token}`];
        execFileSync('rm', ['-f', secretFile]);
      }
    },
  },
  {
    name: "reach a service on the host's 127.0.0.1",
    run: async (ctx) => {
      const server = net.createServer((socket) => socket.end('host-service'));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const port = (server.address() as net.AddressInfo).port;
        const result = await inSandbox(ctx, ['python3', '-c', networkProbe(port)]);
        return /^reached/m.test(result.output) || result.output.includes('host-service') ? escaped(result.output) : refused;
      } finally {
        server.close();
      }
    },
  },
  {
    name: 'see host processes',
    run: async (ctx) => {
      const marker = `locfix-battery-proc-${ctx.token}`;
      const host = spawn('/bin/sh', ['-c', 'sleep 120', marker], { stdio: 'ignore' });
      try {
        const result = await inSandbox(ctx, "cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' '; echo; ls -d /proc/[0-9]* | wc -l");
        return result.output.includes(marker) ? escaped(`the host's process ${marker} is listed inside`) : refused;
      } finally {
        host.kill('SIGKILL');
      }
    },
  },
  {
    name: 'fork bomb (200 children under a limit of 32)',
    run: async (ctx) => {
      const result = await inSandbox(ctx, FORK_EXPLOSION, { pidsLimit: 32 });
      const reached = forksBeforeLimit(result.output);
      return reached !== undefined && reached < 32 ? refused : escaped(result.output);
    },
  },
  {
    name: 'fill memory (1.25 GiB under a limit of 256 MiB)',
    run: async (ctx) => {
      const holds = (await ctx.runtime.memoryLimit?.()) ?? "cgroup v2 (the engine's)";
      if (!/^cgroup v/.test(holds)) return { verdict: 'limitation', why: holds };
      const result = await inSandbox(ctx, MEMORY_HOG, { memoryBytes: 256 * 1024 ** 2 });
      return /allocated/.test(result.output) ? escaped(result.output) : refused;
    },
  },
  {
    name: 'outlive the timeout (a background process)',
    run: async (ctx) => {
      const marker = `locfix-battery-late-${ctx.token}`;
      const result = await inSandbox(ctx, `/bin/sh -c 'sleep 300' ${marker} & sleep 300`, undefined, 1_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // pgrep itself, not through a shell: a shell's own command line would hold the marker
      const left = spawnSync('pgrep', ['-f', marker]).stdout.toString().trim();
      if (left) return escaped(`still running on the host after the timeout: pid ${left}`);
      return result.timedOut ? refused : escaped(`the command was not timed out: ${JSON.stringify(result)}`);
    },
  },
  {
    name: 'write outside its own layer (the image, the next sandbox)',
    run: async (ctx) => {
      await inSandbox(ctx, `echo x > /etc/battery-${ctx.token} && echo x > /usr/bin/battery-${ctx.token}`);
      const next = await inSandbox(ctx, `ls /etc/battery-${ctx.token} /usr/bin/battery-${ctx.token} 2>/dev/null; true`);
      return next.output.includes(ctx.token) ? escaped(`a later sandbox of the image sees: ${next.output}`) : refused;
    },
  },
  {
    // a build step or a test left a setuid root shell: no other user of the host may reach it, let alone run it
    name: 'leave a setuid file for another host user (root only: nobody tries it)',
    run: async (ctx) => {
      if (process.getuid?.() !== 0) return { verdict: 'limitation', why: 'needs root to try it as another user' };
      const sandbox = await ctx.runtime.create({ image: ctx.image, runId: ctx.runId });
      try {
        const inside = `/usr/local/bin/suid-${ctx.token}`;
        const made = await sandbox.exec(`cp /bin/sh ${inside} && chmod 4755 ${inside} && ls -l ${inside}`);
        if (made.exitCode !== 0) return escaped(`could not make the probe: ${made.output}`);
        const host = await ctx.runtime.hostPathOf(sandbox, inside);
        const tried = reachableBy(NOBODY, host);
        return tried === 'unreachable' ? refused : escaped(`nobody reaches ${host}`);
      } finally {
        await sandbox.dispose();
      }
    },
  },
];

const NOBODY = 65_534;

/** Whether host user `uid` reaches `file` (root only: it switches to that user with setpriv). */
export function reachableBy(uid: number, file: string): 'reachable' | 'unreachable' {
  const said = execFileSync('setpriv', [
    '--reuid',
    String(uid),
    '--regid',
    String(uid),
    '--clear-groups',
    '/bin/sh',
    '-c',
    'test -e "$0" && echo reachable || echo unreachable',
    file,
  ]);
  return said.toString().trim() === 'reachable' ? 'reachable' : 'unreachable';
}

/** A fresh token for one battery run. */
export function batteryToken(): string {
  return randomBytes(6).toString('hex');
}

export async function runBattery(ctx: BatteryContext, cases: readonly BatteryCase[] = CONTAINMENT_CASES): Promise<Array<{ name: string } & Outcome>> {
  const results: Array<{ name: string } & Outcome> = [];
  for (const c of cases) results.push({ name: c.name, ...(await c.run(ctx)) });
  return results;
}
