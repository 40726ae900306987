/**
 * The seccomp filter of every bubblewrap sandbox, given to bwrap as `--seccomp FD` (bwrap loads it just before it
 * runs the command, so its own setup is not filtered). The policy is data, `seccomp/profile.json`: the calls
 * Docker's default profile refuses a container with Docker's default capabilities, each group with its reason.
 * `seccomp/compile.py` compiles it with libseccomp's own Python bindings (Debian: python3-seccomp), the library
 * Docker, Podman and Flatpak build their filters with, so no BPF is assembled here by hand.
 *
 * The compiled program is kept in the image store (`seccomp/<hash>.bpf`, the hash of the profile, the compiler
 * and the machine's architecture), compiled once per store and reused by every sandbox after.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';

const HERE = path.join(import.meta.dirname, 'seccomp');
const PROFILE = path.join(HERE, 'profile.json');
const COMPILER = path.join(HERE, 'compile.py');

export class SeccompUnavailableError extends Error {
  constructor(detail: string) {
    super(
      `the bubblewrap sandbox's seccomp filter cannot be compiled here (${detail}); install libseccomp's Python bindings (Debian: apt-get install python3-seccomp)`,
    );
    this.name = 'SeccompUnavailableError';
  }
}

/** The Python that has libseccomp's bindings: LOCFIX_SECCOMP_PYTHON, else the system's (a pyenv or venv python3 lacks Debian's module). */
function python(): string {
  if (process.env.LOCFIX_SECCOMP_PYTHON) return process.env.LOCFIX_SECCOMP_PYTHON;
  return existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
}

function compile(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(python(), [COMPILER, PROFILE], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 8000) err += chunk.toString();
    });
    child.on('error', (e) => reject(new SeccompUnavailableError(`${python()}: ${e.message}`)));
    child.on('close', (code) => {
      const program = Buffer.concat(out);
      // a BPF program is a whole number of 8-byte instructions, and never empty
      if (code === 0 && program.length > 0 && program.length % 8 === 0) resolve(program);
      else reject(new SeccompUnavailableError(err.trim().split('\n').slice(-2).join('; ') || `${python()} exited with ${code}`));
    });
  });
}

const compiled = new Map<string, Promise<string>>();

/** The compiled filter's file in `cacheDir` (compiled on first use; compiling again when the profile changes). */
export function seccompFilter(cacheDir: string): Promise<string> {
  let pending = compiled.get(cacheDir);
  if (!pending) {
    pending = (async () => {
      const [profile, compiler] = await Promise.all([fs.readFile(PROFILE), fs.readFile(COMPILER)]);
      const key = createHash('sha256').update(profile).update(compiler).update(process.arch).digest('hex').slice(0, 16);
      const file = path.join(cacheDir, `${key}.bpf`);
      if (existsSync(file)) return file;
      const program = await compile();
      await fs.mkdir(cacheDir, { recursive: true, mode: 0o700 });
      const staging = `${file}.${process.pid}.tmp`;
      await fs.writeFile(staging, program, { mode: 0o600 });
      await fs.rename(staging, file);
      return file;
    })();
    pending.catch(() => compiled.delete(cacheDir));
    compiled.set(cacheDir, pending);
  }
  return pending;
}

/** The profile's groups, for documentation and tests: why each call is refused. */
export async function seccompProfile(): Promise<{ groups: Array<{ why: string; syscalls: string[] }> }> {
  return JSON.parse(await fs.readFile(PROFILE, 'utf8')) as { groups: Array<{ why: string; syscalls: string[] }> };
}
