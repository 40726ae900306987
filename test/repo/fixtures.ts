/** Builds small real git repositories for the repo-store tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, chmodSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: os.tmpdir(),
    },
  }).trim();
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `locfix-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface FixtureRepo {
  /** work tree of the source repository */
  workTree: string;
  /** a bare clone of it, as the store would use */
  bare: string;
  first: string;
  second: string;
}

/** bytes that are not valid UTF-8 (Latin-1 "café" and a lone continuation byte) */
export const LATIN1_BYTES = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x0a]);
/** binary content with NUL bytes and newlines, to check length-based framing */
export const BINARY_BYTES = Buffer.from([0x00, 0x0a, 0xff, 0x0a, 0x0a, 0x00, 0x31, 0x20, 0x6d, 0x69, 0x73, 0x73, 0x69, 0x6e, 0x67, 0x0a]);

/**
 * Two commits. The first has Python sources, a non-UTF-8 file, a binary file, an executable script, an empty
 * file, a symlink and a submodule entry; the second changes one file and deletes another.
 */
export function buildFixtureRepo(root: string): FixtureRepo {
  const workTree = path.join(root, 'src-repo');
  mkdirSync(workTree, { recursive: true });
  git(workTree, 'init', '--quiet', '--initial-branch=main');
  mkdirSync(path.join(workTree, 'pkg', 'sub'), { recursive: true });
  writeFileSync(path.join(workTree, 'pkg', '__init__.py'), '');
  writeFileSync(path.join(workTree, 'pkg', 'core.py'), 'def add(a, b):\n    return a + b\n');
  writeFileSync(path.join(workTree, 'pkg', 'sub', 'util.py'), '# ünïcödé ✓\nVALUE = "naïve"\n');
  writeFileSync(path.join(workTree, 'pkg', 'latin1.py'), LATIN1_BYTES);
  writeFileSync(path.join(workTree, 'data.bin'), BINARY_BYTES);
  writeFileSync(path.join(workTree, 'run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(path.join(workTree, 'run.sh'), 0o755);
  writeFileSync(path.join(workTree, 'name with spaces.py'), 'x = 1\n');
  symlinkSync('pkg/core.py', path.join(workTree, 'link.py'));
  git(workTree, 'add', '-A');
  // a submodule entry (gitlink) without a real submodule: enough for ls-tree to print mode 160000
  git(workTree, 'update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendored`);
  git(workTree, 'commit', '--quiet', '-m', 'first');
  const first = git(workTree, 'rev-parse', 'HEAD');

  writeFileSync(path.join(workTree, 'pkg', 'core.py'), 'def add(a, b):\n    return b + a\n');
  git(workTree, 'rm', '--quiet', 'name with spaces.py');
  git(workTree, 'commit', '--quiet', '-am', 'second');
  const second = git(workTree, 'rev-parse', 'HEAD');

  const bare = path.join(root, 'bare.git');
  git(root, 'clone', '--quiet', '--bare', workTree, bare);
  return { workTree, bare, first, second };
}
