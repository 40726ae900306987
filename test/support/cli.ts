/**
 * The `locfix` CLI in a child process, as a user runs it: exit code, stdout and stderr, never a throw.
 * `LOCFIX_CACHE_DIR` points at the test's own cache.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

export function runLocfix(args: readonly string[], cacheDir: string): Promise<CliResult> {
  return exec(process.execPath, [BIN, ...args], { env: { ...process.env, LOCFIX_CACHE_DIR: cacheDir }, maxBuffer: 1 << 24 })
    .then((r) => ({ ...r, code: 0 }))
    .catch((e: CliResult) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }));
}
