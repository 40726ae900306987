/**
 * One long-lived `git cat-file --batch` process per git directory.
 *
 * Spawning git once per file costs ~2 ms each; reading the ~2,500 Python files of a django commit that way
 * is several seconds. A batch process answers a queue of requests over one pipe instead. Requests are
 * written as soon as they arrive (git answers them strictly in order), so many concurrent reads pipeline
 * through the same process.
 *
 * Framing (git-cat-file(1)): for each request line git prints either
 *   `<oid> SP <type> SP <size> LF <size bytes of content> LF`
 * or `<name> SP missing LF` (also `ambiguous`). Content is binary and may contain any byte, so it is read
 * by length, never by searching for newlines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { gitEnv } from './git.ts';

export interface CatFileObject {
  oid: string;
  type: string; // blob | tree | commit | tag
  size: number;
  content: Buffer;
}

interface PendingRequest {
  name: string;
  resolve(value: CatFileObject | undefined): void;
  reject(error: Error): void;
}

export class CatFileError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CatFileError';
  }
}

/** Parser state for the response currently being received. */
type ParseState =
  | { kind: 'header'; partial: Buffer[] }
  | { kind: 'body'; oid: string; type: string; content: Buffer; filled: number }
  | { kind: 'trailer'; object: CatFileObject };

export class CatFileBatch {
  readonly gitDir: string;
  private child: ChildProcessWithoutNullStreams | undefined;
  private queue: PendingRequest[] = [];
  private stderrTail = '';
  private drainWaiters: Array<() => void> = [];

  constructor(gitDir: string) {
    this.gitDir = gitDir;
  }

  /** Number of requests sent and not yet answered. */
  get pending(): number {
    return this.queue.length;
  }

  /** True while a git process is running. */
  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Reads one object by name (an object id, or `<commit>:<path>`). Resolves `undefined` when git reports
   * the object missing or ambiguous.
   */
  read(name: string): Promise<CatFileObject | undefined> {
    // A newline would split the request into two and desynchronize every later answer.
    if (name.length === 0 || /[\n\r]/.test(name)) {
      return Promise.reject(new CatFileError(`invalid object name ${JSON.stringify(name)}`));
    }
    return new Promise((resolve, reject) => {
      const child = this.ensureProcess();
      this.queue.push({ name, resolve, reject });
      child.stdin.write(name + '\n');
    });
  }

  /**
   * Ends the process once every request sent so far is answered. A later read() starts a new process.
   */
  async close(): Promise<void> {
    while (this.child && this.queue.length > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    const child = this.child;
    if (!child) return;
    this.child = undefined; // detached: a read() from now on gets a new process
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('close', () => resolve());
      child.stdin.end();
    });
  }

  private ensureProcess(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('git', ['--git-dir', this.gitDir, 'cat-file', '--batch'], {
      env: gitEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    const parser = new CatFileParser(
      (object) => this.answer((request) => request.resolve(object)),
      (problem) => {
        // Unparseable output means the stream is out of sync: fail what is pending, restart on the next read.
        this.onExit(child, new Error(problem));
        child.kill();
      },
    );
    this.stderrTail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.child === child) parser.push(chunk); // output of a process given up on is ignored
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    child.stdin.on('error', () => {}); // surfaced through 'close' below
    child.on('error', (error) => this.onExit(child, error));
    child.on('close', (code, signal) => this.onExit(child, undefined, code, signal));
    return child;
  }

  private onExit(child: ChildProcessWithoutNullStreams, error?: Error, code?: number | null, signal?: string | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    if (this.queue.length === 0) return;
    // Unanswered requests fail; the next read() starts a fresh process.
    const reason = error
      ? `could not run git cat-file: ${error.message}`
      : `git cat-file exited (${signal ?? `code ${code}`}) with ${this.queue.length} request(s) unanswered` +
        (this.stderrTail.trim() ? `: ${this.stderrTail.trim()}` : '');
    const failed = this.queue;
    this.queue = [];
    for (const request of failed) request.reject(new CatFileError(`${reason} [${this.gitDir}]`, { cause: error }));
    this.notifyDrained();
  }

  private answer(settle: (request: PendingRequest) => void): void {
    const request = this.queue.shift();
    if (request) settle(request);
    if (this.queue.length === 0) this.notifyDrained();
  }

  private notifyDrained(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Incremental parser for `git cat-file --batch` output: feed it stdout chunks as they arrive (split at any
 * byte), it reports each answer in order: the object, or undefined for `missing`/`ambiguous`.
 */
export class CatFileParser {
  private state: ParseState = { kind: 'header', partial: [] };
  private broken = false;

  constructor(
    private readonly onAnswer: (object: CatFileObject | undefined) => void,
    private readonly onDesync: (problem: string) => void,
  ) {}

  push(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length && !this.broken) {
      const state = this.state;
      if (state.kind === 'header') {
        const newline = chunk.indexOf(0x0a, offset);
        if (newline < 0) {
          state.partial.push(chunk.subarray(offset));
          return;
        }
        state.partial.push(chunk.subarray(offset, newline));
        offset = newline + 1;
        this.onHeader(Buffer.concat(state.partial).toString('utf8'));
      } else if (state.kind === 'body') {
        const take = Math.min(state.content.length - state.filled, chunk.length - offset);
        chunk.copy(state.content, state.filled, offset, offset + take);
        state.filled += take;
        offset += take;
        if (state.filled === state.content.length) {
          this.state = { kind: 'trailer', object: { oid: state.oid, type: state.type, size: state.content.length, content: state.content } };
        }
      } else {
        // exactly one LF follows the content
        if (chunk[offset] !== 0x0a) return this.desync(`expected a newline after the content of ${state.object.oid}`);
        offset += 1;
        this.state = { kind: 'header', partial: [] };
        this.onAnswer(state.object);
      }
    }
  }

  private onHeader(header: string): void {
    const parts = header.split(' ');
    const last = parts[parts.length - 1];
    if (parts.length >= 2 && (last === 'missing' || last === 'ambiguous')) {
      this.state = { kind: 'header', partial: [] };
      this.onAnswer(undefined);
      return;
    }
    const [oid, type, sizeText] = parts;
    if (parts.length !== 3 || !/^[0-9a-f]{40,64}$/.test(oid ?? '') || !/^[a-z]+$/.test(type ?? '') || !/^\d+$/.test(sizeText ?? '')) {
      return this.desync(`unexpected cat-file header ${JSON.stringify(header.slice(0, 200))}`);
    }
    const size = Number(sizeText);
    this.state =
      size === 0
        ? { kind: 'trailer', object: { oid: oid!, type: type!, size: 0, content: Buffer.alloc(0) } }
        : { kind: 'body', oid: oid!, type: type!, content: Buffer.allocUnsafe(size), filled: 0 };
  }

  private desync(problem: string): void {
    this.broken = true;
    this.onDesync(problem);
  }
}
