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

  /** `--batch-check`: answers carry type and size only (content is empty) */
  readonly checkOnly: boolean;

  constructor(gitDir: string, options: { checkOnly?: boolean } = {}) {
    this.gitDir = gitDir;
    this.checkOnly = options.checkOnly ?? false;
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
    const child = spawn('git', ['--git-dir', this.gitDir, 'cat-file', this.checkOnly ? '--batch-check' : '--batch'], {
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
      this.checkOnly,
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
    /** `--batch-check` output: a header line per answer, no content */
    private readonly headersOnly = false,
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
    if (this.headersOnly) {
      this.state = { kind: 'header', partial: [] };
      this.onAnswer({ oid: oid!, type: type!, size, content: Buffer.alloc(0) });
      return;
    }
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

/** A regular file of a commit, as `git ls-tree -r -l` lists it. */
export interface ListedFile {
  path: string;
  blob: string;
  size: number;
}

interface RawTreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** Entries of a binary tree object: `<mode> SP <name> NUL <raw object id>` repeated. */
export function parseTreeObject(content: Buffer, oidBytes = 20): RawTreeEntry[] {
  const entries: RawTreeEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const space = content.indexOf(0x20, at);
    const nul = content.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 1 + oidBytes > content.length) throw new CatFileError('malformed tree object');
    entries.push({
      mode: content.toString('latin1', at, space),
      name: content.toString('utf8', space + 1, nul),
      oid: content.toString('hex', nul + 1, nul + 1 + oidBytes),
    });
    at = nul + 1 + oidBytes;
  }
  return entries;
}

/**
 * Lists a commit's regular files (what `git ls-tree -r -l --full-tree` prints, in the same order) through
 * long-lived cat-file processes instead of one `git ls-tree` process per commit. Trees and blob sizes are
 * memoized by object id: commits of one repository share most of their trees, so the next commit reads
 * only the trees on the paths to changed files and asks sizes only of new blobs. (Spawning git from a
 * process with a multi-GB heap costs tens of milliseconds before git even starts; ls-tree -l on a django
 * commit takes ~130 ms.)
 */
export class TreeLister {
  /** tree id → its direct entries (small: a changed file adds only the trees on its path) */
  private readonly trees = new Map<string, Promise<RawTreeEntry[]>>();
  private readonly sizes = new Map<string, number>();

  constructor(
    private readonly objects: CatFileBatch,
    private readonly headers: CatFileBatch,
  ) {
    if (!headers.checkOnly) throw new Error('TreeLister needs a --batch-check CatFileBatch for blob sizes');
  }

  /** drops the memoized trees and sizes (the repository is done with) */
  clear(): void {
    this.trees.clear();
    this.sizes.clear();
  }

  async listFiles(commit: string): Promise<ListedFile[]> {
    const root = await this.objects.read(`${commit}^{tree}`);
    if (root?.type !== 'tree') throw new CatFileError(`${commit} is not a commit or tree in ${this.objects.gitDir}`);
    const oidBytes = root.oid.length / 2;
    if (!this.trees.has(root.oid)) this.trees.set(root.oid, Promise.resolve(parseTreeObject(root.content, oidBytes)));
    const out: ListedFile[] = [];
    await this.walk(root.oid, '', oidBytes, out);
    return out;
  }

  /** appends the files under a tree in ls-tree order; reads of subtrees and sizes are pipelined */
  private async walk(oid: string, prefix: string, oidBytes: number, out: ListedFile[]): Promise<void> {
    const entries = await this.entriesOf(oid, oidBytes);
    const parts = await Promise.all(
      entries.map(async (e): Promise<ListedFile[]> => {
        if (e.mode === '40000') {
          const sub: ListedFile[] = [];
          await this.walk(e.oid, `${prefix}${e.name}/`, oidBytes, sub);
          return sub;
        }
        if (!e.mode.startsWith('100')) return []; // symlinks (120000) and submodules (160000) are not files
        return [{ path: prefix + e.name, blob: e.oid, size: await this.sizeOf(e.oid) }];
      }),
    );
    for (const p of parts) for (const f of p) out.push(f);
  }

  private entriesOf(oid: string, oidBytes: number): Promise<RawTreeEntry[]> {
    let entries = this.trees.get(oid);
    if (!entries) {
      entries = this.objects.read(oid).then((object) => {
        if (object?.type !== 'tree') throw new CatFileError(`tree ${oid} is missing from ${this.objects.gitDir}`);
        return parseTreeObject(object.content, oidBytes);
      });
      entries.catch(() => this.trees.delete(oid));
      this.trees.set(oid, entries);
    }
    return entries;
  }

  private sizeOf(blob: string): number | Promise<number> {
    const known = this.sizes.get(blob);
    if (known !== undefined) return known;
    return this.headers.read(blob).then((header) => {
      // a mirror may lack blobs (large data files left out); ls-tree -l prints "BAD" for their size, which
      // the repo store reads as NaN. Listing goes on: only reading such a blob is an error.
      const size = header ? header.size : Number.NaN;
      this.sizes.set(blob, size);
      return size;
    });
  }
}
