/**
 * `locfix view` as a user runs it: it serves until stopped (SIGTERM ends it cleanly, exit 0), listens on the
 * loopback address, says where; `--export` writes the pages; a folder that is not a run stops it with the reason.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocfix } from '../support/cli.ts';
import { EXAMPLE_ROW, writeHostileRun } from './fixture-runs.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
let dir: string;
let run: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-view-cli-'));
  run = (await writeHostileRun(dir, EXAMPLE_ROW)).dir;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('locfix view (CLI)', () => {
  it('serves on loopback until SIGTERM, then exits 0', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [BIN, 'view', run, '--port', '0'], { env: { ...process.env, LOCFIX_CACHE_DIR: path.join(dir, 'cache') } });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        out += String(chunk);
        const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before serving: ${out}`)));
    });
    const page = await fetch(`${url}/instances`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('evil__repo-1');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('--export writes the pages; a folder that is not a run is refused with the reason', { timeout: 60_000 }, async () => {
    const out = path.join(dir, 'export');
    const exported = await runLocfix(['view', run, '--export', out], path.join(dir, 'cache'));
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/pages in .*open index\.html/);
    expect(existsSync(path.join(out, 'index.html'))).toBe(true);
    const refused = await runLocfix(['view', dir], path.join(dir, 'cache'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is not a locfix run folder/);
  });
});
