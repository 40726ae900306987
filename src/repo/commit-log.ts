/**
 * `git log` read as records that no commit message can break. A message may hold any byte but NUL (git ends it
 * there), so the log is written with `-z` and every field ends at a NUL: a record starts with a token made of a
 * random marker chosen per call and the header fields, the next token is the message, and the tokens after it
 * are the changed files (`--name-only -z`). A message that copies the format's separators (\x01, \x02, a fake
 * header line) stays a message, and a file it names is never taken for one the commit changed.
 *
 * The output is read as a stream, a token at a time, and a token longer than the cap is cut to it: a commit with a
 * 500 MB message costs the cap, not a string the size of the log.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { GitCommandError, gitEnv } from './git.ts';

export interface LoggedCommit {
  /** the header fields, as the format's `header` placeholders gave them, split at spaces */
  header: string[];
  message: string;
  /** true when the message was longer than the cap and was cut */
  truncated: boolean;
  files: string[];
}

/** Default cap of one token (a message or a path): far beyond any real commit message, far below a string's limit. */
export const MAX_TOKEN_BYTES = 1 << 20;

/** A fresh marker: 32 hex digits no message or path carries by chance. */
export function recordMarker(): string {
  return `locfix-${randomBytes(16).toString('hex')}:`;
}

/** `--format` for `git log -z --name-only`: the marker and header placeholders (e.g. "%H %ct %P"), then the message. */
export function commitLogFormat(marker: string, header: string): string {
  return `--format=%x00${marker}${header}%x00%B%x00`;
}

/** Splits a byte stream at NUL bytes, a token at a time, keeping at most `maxBytes` of each. */
export class NulTokenizer {
  private parts: Buffer[] = [];
  private kept = 0;
  private cut = false;
  constructor(
    private readonly onToken: (token: string, truncated: boolean) => void,
    private readonly maxBytes = MAX_TOKEN_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0, start); nul >= 0; nul = chunk.indexOf(0, start)) {
      this.keep(chunk.subarray(start, nul));
      this.emit();
      start = nul + 1;
    }
    this.keep(chunk.subarray(start));
  }

  end(): void {
    if (this.kept > 0 || this.parts.length) this.emit();
  }

  private keep(bytes: Buffer): void {
    const room = this.maxBytes - this.kept;
    if (bytes.length > room) this.cut = true;
    const taken = bytes.subarray(0, Math.max(0, room));
    if (taken.length) {
      this.parts.push(Buffer.from(taken));
      this.kept += taken.length;
    }
  }

  private emit(): void {
    const token = Buffer.concat(this.parts).toString('utf8');
    const truncated = this.cut;
    this.parts = [];
    this.kept = 0;
    this.cut = false;
    this.onToken(token, truncated);
  }
}

/** Turns the tokens of a `commitLogFormat(marker, …)` log into commits. */
export class CommitLogParser {
  private current: LoggedCommit | undefined;
  private expectMessage = false;
  constructor(
    private readonly marker: string,
    private readonly onCommit: (commit: LoggedCommit) => void,
  ) {}

  token(text: string, truncated: boolean): void {
    if (text.startsWith(this.marker)) {
      this.flush();
      this.current = { header: text.slice(this.marker.length).split(' ').filter(Boolean), message: '', truncated: false, files: [] };
      this.expectMessage = true;
      return;
    }
    if (!this.current) return; // the empty token before the first record
    if (this.expectMessage) {
      this.current.message = text.trim();
      this.current.truncated = truncated;
      this.expectMessage = false;
      return;
    }
    // git separates the name list from the message with a newline
    const file = text.replace(/^\n/, '');
    if (file) this.current.files.push(file);
  }

  flush(): void {
    if (this.current) this.onCommit(this.current);
    this.current = undefined;
  }
}

/**
 * Runs `git --git-dir DIR log -z --name-only <format> ...logArgs` and hands each commit to `onCommit` as it is
 * read. `header` names the placeholders of the header fields ("%H %ct %P"); `input` feeds `--stdin`.
 */
export function streamCommitLog(
  gitDir: string,
  logArgs: readonly string[],
  header: string,
  onCommit: (commit: LoggedCommit) => void,
  options: { input?: string; maxTokenBytes?: number } = {},
): Promise<void> {
  const marker = recordMarker();
  const args = ['--git-dir', gitDir, 'log', '-z', '--name-only', commitLogFormat(marker, header), ...logArgs];
  const parser = new CommitLogParser(marker, onCommit);
  const tokens = new NulTokenizer((t, truncated) => parser.token(t, truncated), options.maxTokenBytes);
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env: gitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    const err: Buffer[] = [];
    let failed: unknown;
    child.stdout.on('data', (chunk: Buffer) => {
      try {
        tokens.push(chunk);
      } catch (error) {
        failed ??= error;
        child.kill();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitCommandError(args, null, '', error)));
    child.on('close', (code) => {
      if (failed) return reject(failed);
      if (code !== 0) return reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
      tokens.end();
      parser.flush();
      resolve();
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
