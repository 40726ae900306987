/**
 * Commits for tests that read a repository's history: files written, a message taken verbatim (any bytes but
 * NUL, separators and all) and a fixed author and committer time, so the history is the same on every run.
 */
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Writes `files` into the work tree `work`, commits them with `message` at `time` (seconds), returns the commit id. */
export async function commitAt(work: string, files: Record<string, string>, message: string, time: number): Promise<string> {
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(work, file)), { recursive: true });
    await writeFile(path.join(work, file), text);
  }
  const env = { ...process.env, GIT_AUTHOR_DATE: `@${time} +0000`, GIT_COMMITTER_DATE: `@${time} +0000` };
  await run('git', ['-C', work, 'add', '-A'], { env });
  // the message through stdin, kept verbatim: a test of hostile messages needs its bytes as written
  const child = run('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-q', '--cleanup=verbatim', '-F', '-'], { env });
  child.child.stdin?.end(message);
  await child;
  return (await run('git', ['-C', work, 'rev-parse', 'HEAD'])).stdout.trim();
}

/** A fresh work tree `<dir>/work` on branch main, for commitAt. */
export async function newWorkTree(dir: string): Promise<string> {
  const work = path.join(dir, 'work');
  await mkdir(work, { recursive: true });
  await run('git', ['-C', work, 'init', '-q', '-b', 'main']);
  return work;
}
