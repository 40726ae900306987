/**
 * The programs the sandbox contract runs in every kind (test/docker/sandbox.test.ts, test/sandbox/bwrap-sandbox.test.ts):
 * what each limit and the network must stop, written once so both kinds face the same probe.
 */

/** Allocates 40 × 32 MiB and prints "allocated" only if nothing stopped it. */
export const MEMORY_HOG: readonly string[] = [
  'python3',
  '-c',
  'chunks = []\nfor i in range(40):\n    chunks.append(bytearray(32 * 1024 * 1024))\nprint("allocated", len(chunks) * 32, "MiB")',
];

/** Forks up to 200 sleeping children; prints "stopped after N BlockingIOError" when the pids limit refuses one. */
export const FORK_EXPLOSION: readonly string[] = [
  'python3',
  '-c',
  [
    'import os, time',
    'n = 0',
    'try:',
    '    for i in range(200):',
    '        if os.fork() == 0:',
    '            os.close(1); os.close(2); time.sleep(20); os._exit(0)',
    '        n += 1',
    '    print("spawned", n)',
    'except OSError as e:',
    '    print("stopped after", n, type(e).__name__)',
  ].join('\n'),
];

/** The count FORK_EXPLOSION reached before the limit, or undefined when it was not stopped. */
export function forksBeforeLimit(output: string): number | undefined {
  const match = /stopped after (\d+) BlockingIOError/.exec(output);
  return match ? Number(match[1]) : undefined;
}

/** Lists the interfaces and routes and tries a host service on `port`: "interfaces [...]", "routes N", "reached"/"unreachable E". */
export function networkProbe(port: number): string {
  return [
    'import os, socket',
    'print("interfaces", sorted(os.listdir("/sys/class/net")))',
    'routes = [l for l in open("/proc/net/route").read().splitlines()[1:] if l.strip()]',
    'print("routes", len(routes))',
    's = socket.socket()',
    's.settimeout(3)',
    'try:',
    `    s.connect(("127.0.0.1", ${port}))`,
    '    print("reached", s.recv(100))',
    'except OSError as e:',
    '    print("unreachable", type(e).__name__)',
  ].join('\n');
}

/** Resolves localhost and the hostname and talks to a server on the loopback: "localhost …", "hostname …", "answer pong". */
export const LOOPBACK_PROBE = [
  'import socket, threading',
  'print("localhost", socket.gethostbyname("localhost"))',
  'print("hostname", socket.gethostbyname(socket.gethostname()))',
  'srv = socket.socket()',
  'srv.bind(("localhost", 0))',
  'srv.listen()',
  'threading.Thread(target=lambda: srv.accept()[0].sendall(b"pong"), daemon=True).start()',
  'c = socket.create_connection(("localhost", srv.getsockname()[1]), timeout=5)',
  'print("answer", c.recv(4).decode())',
].join('\n');

/** In the sandbox, under /probe (not a host path): a package, a program that uses it and writes to both streams, and a shell script: what every kind copies in first. */
export const CONTRACT_FILES = [
  { path: '/probe/pkg/mod.py', content: 'VALUE = 41\n' },
  {
    path: '/probe/run.py',
    content:
      'import sys\nsys.path.insert(0, "/probe/pkg")\nimport mod\nprint("out", mod.VALUE + 1, flush=True)\nprint("err", file=sys.stderr, flush=True)\nsys.exit(3)\n',
  },
  { path: '/probe/run.sh', content: '#!/bin/sh\necho shell-ok\n', mode: 0o755 },
];

/** Runs the contract files in a sandbox: exit code 3, both streams in order, the script runs. */
export async function runContractFiles(sandbox: {
  copyFiles(files: typeof CONTRACT_FILES): Promise<void>;
  exec(command: string | readonly string[], options?: { timeoutMs?: number }): Promise<{ exitCode: number | null; output: string; timedOut: boolean }>;
}): Promise<{ program: { exitCode: number | null; output: string; timedOut: boolean }; script: string }> {
  await sandbox.copyFiles(CONTRACT_FILES);
  const program = await sandbox.exec('python3 /probe/run.py', { timeoutMs: 30_000 });
  return { program, script: (await sandbox.exec(['/probe/run.sh'])).output };
}
