/**
 * A full disk mid-run (Issue 32, item 3). The run folder sits on a small tmpfs with a filler file taking most
 * of it, so it fills after a few artifacts. Before, one instance was recorded as failing ("disk is full"),
 * the process then idled forever, 0-byte `.tmp` files stayed, and once space was freed the instance stayed a
 * recorded failure. Now the run stops at the full disk with exit 75 and says so, leaves no temp file and
 * records nothing for what it could not do; after the filler goes, the same command finishes the run, and
 * no instance carries the full disk as its failure. Needs root to mount the tmpfs (as in CI).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLocfix } from '../support/cli.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-disk-full-'));
const small = path.join(dir, 'small');
mkdirSync(small);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', small]).status === 0;
if (!mounted && process.env.LOCFIX_REQUIRE_DOCKER === '1') throw new Error('the full-disk test needs to mount a tmpfs (root), as CI has');
if (!mounted) console.warn('full-disk test skipped: mounting a tmpfs needs root');

afterAll(async () => {
  if (mounted) spawnSync('umount', ['-l', small]);
  await rm(dir, { recursive: true, force: true });
});

const filesUnder = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(root, e.name)) : [path.join(root, e.name)]));
const freeBytes = (p: string) => Number(execFileSync('df', ['--output=avail', '-B1', p], { encoding: 'utf8' }).trim().split('\n')[1]);

describe.skipIf(!mounted)('a full disk mid-run', () => {
  it('stops with exit 75 and no temp file; freed, the same command finishes and nothing failed of it', { timeout: 300_000 }, async () => {
    const out = path.join(small, 'runs', 'demo');
    const args = ['demo', '--no-docker', '--minibench', path.join(dir, 'minibench'), '--out', out, '--cache-dir', path.join(dir, 'cache')];
    // leave room for a few artifacts only: the run folder of this demo takes about 600 KB
    const filler = path.join(small, 'filler');
    writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(small) - 160 * 1024)));
    const started = Date.now();
    const full = await runLocfix(args, path.join(dir, 'cache'));
    expect(Date.now() - started, 'the process ends by itself').toBeLessThan(240_000);
    expect(full.code, full.stderr + full.stdout).toBe(75);
    expect(full.stderr + full.stdout).toMatch(/run demo stopped: the disk is full \(.*no space left on device.*\): free space and rerun the same command/i);
    const left = filesUnder(small);
    expect(left.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(left.filter((f) => statSync(f).size === 0 && f.endsWith('.json'))).toEqual([]);
    const artifacts = left.filter((f) => /\/(localize-files|localize-functions|localize-lines|repair|select)\/[^/]+\.json$/.test(f));
    expect(artifacts.length, 'some instance stages finished before the disk filled').toBeGreaterThan(0);
    for (const f of artifacts) expect(readFileSync(f, 'utf8'), f).not.toMatch(/no space left|disk is full/i);

    rmSync(filler);
    const again = await runLocfix(args, path.join(dir, 'cache'));
    expect(again.code, again.stderr + again.stdout).toBe(0);
    const analysis = JSON.parse(readFileSync(path.join(out, 'analysis.json'), 'utf8')) as { instances: Array<{ instanceId: string; category: string }> };
    expect(analysis.instances).toHaveLength(5);
    expect(analysis.instances.every((i) => i.category !== 'localization-error' && i.category !== 'error')).toBe(true);
    const all = filesUnder(out).filter((f) => f.endsWith('.json'));
    for (const f of all) expect(readFileSync(f, 'utf8'), f).not.toMatch(/no space left|disk is full/i);
  });
});
