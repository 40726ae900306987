/**
 * Minimal git process helpers. Only plumbing commands are used on mirrors, and every call names the git
 * directory explicitly, so nothing depends on the current directory or on a work tree.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

export class GitCommandError extends Error {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(args: readonly string[], exitCode: number | null, stderr: string, cause?: unknown) {
    const detail = stderr.trim().split('\n').slice(-3).join(' | ') || (cause instanceof Error ? cause.message : '');
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'})${detail ? `: ${detail}` : ''}`, cause === undefined ? undefined : { cause });
    this.name = 'GitCommandError';
    this.args = args;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export interface RunGitOptions {
  /** working directory (defaults to the current one; mirrors are addressed with --git-dir instead) */
  cwd?: string;
  /** bytes written to stdin */
  input?: string | Buffer;
  /** exit codes that are not failures (e.g. 1 for `rev-parse --verify --quiet`) */
  okExitCodes?: readonly number[];
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** Git never prompts (no terminal here) and never reads the user's pager or editor. */
export function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C' };
}

export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitCommandError(args, null, '', error)));
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
      if (exitCode === 0 || options.okExitCodes?.includes(exitCode)) {
        resolve({ stdout: Buffer.concat(out), stderr, exitCode });
      } else {
        reject(new GitCommandError(args, code, stderr));
      }
    });
    child.stdin.on('error', () => {}); // git may exit before reading stdin; the exit code reports the failure
    child.stdin.end(options.input ?? '');
  });
}

/** stderr kept of a streamed command: its last lines say why it failed */
const STDERR_KEPT = 64 * 1024;

/**
 * Runs git and hands its output on line by line (without the newline), never holding more than one line: a
 * history's patches can be larger than memory. A line longer than `maxLineBytes` (a minified file's) is handed on
 * cut to that length. `onLine` returning false stops reading and ends git; `onLine` throwing ends git and rejects
 * with its error. Fails as runGit does.
 */
export function streamGitLines(args: readonly string[], onLine: (line: string) => boolean | undefined, maxLineBytes = 64 * 1024): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let stopped = false;
    let stderr = '';
    let failure: unknown;
    const emit = () => {
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      pendingBytes = 0;
      let more: boolean | undefined;
      try {
        more = onLine(line);
      } catch (err) {
        // thrown inside a stream handler it would escape as an uncaught exception: end git and reject instead
        failure = err;
        more = false;
      }
      if (more === false) {
        stopped = true;
        child.kill();
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      let start = 0;
      while (!stopped && start < chunk.length) {
        const nl = chunk.indexOf(10, start);
        const end = nl < 0 ? chunk.length : nl;
        const room = maxLineBytes - pendingBytes;
        if (room > 0) {
          const part = chunk.subarray(start, Math.min(end, start + room));
          pending.push(part);
          pendingBytes += part.length;
        }
        if (nl < 0) break;
        emit();
        start = nl + 1;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.on('error', (error) => reject(new GitCommandError(args, null, '', error)));
    child.on('close', (code) => {
      if (!stopped && pendingBytes > 0) emit();
      if (failure !== undefined) return reject(failure);
      if (stopped) return resolve();
      if (code === 0) resolve();
      else reject(new GitCommandError(args, code, stderr));
    });
  });
}

/** A commit as datasets and configs name one: 7 to 40 hex digits (a full SHA-1 or an abbreviation). */
const COMMIT_HASH = /^[0-9a-f]{7,40}$/i;

/**
 * `value` when it is a commit hash, else an error naming `where` it came from. Checked at every entry point where
 * data names a commit, so no value from a dataset, a config or a model reaches git as an option or a revision
 * expression; the commands add `--end-of-options` besides.
 */
export function assertCommitHash(value: unknown, where: string): string {
  if (typeof value === 'string' && COMMIT_HASH.test(value)) return value;
  throw new Error(`${where}: ${JSON.stringify(String(value)).slice(0, 80)} is not a commit hash (7 to 40 hex digits)`);
}

/** True when `dir` looks like a git directory (bare repository or a `.git` folder). */
export async function isGitDir(dir: string): Promise<boolean> {
  try {
    const [head, objects] = await Promise.all([fs.stat(path.join(dir, 'HEAD')), fs.stat(path.join(dir, 'objects'))]);
    return head.isFile() && objects.isDirectory();
  } catch {
    return false;
  }
}

/** Accepts a bare repository, a `.git` folder, or a work tree that contains `.git`; returns the git dir. */
export async function findGitDir(candidate: string): Promise<string | undefined> {
  const abs = path.resolve(candidate);
  if (await isGitDir(abs)) return abs;
  const dotGit = path.join(abs, '.git');
  if (await isGitDir(dotGit)) return dotGit;
  return undefined;
}
