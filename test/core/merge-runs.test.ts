/**
 * Joining run folders (src/run/merge-runs.ts) on hand-made runs: artifacts copied, the first finished
 * artifact kept ("ok" beats "error", differing finished outputs reported), selections and instances united,
 * spend summed, a left-behind run lock not carried over, and runs of other settings refused.
 */
import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeRunFolders } from '../../src/run/merge-runs.ts';
import { RUN_LOCK_FILE, RUN_LOCK_HOLDER_FILE } from '../../src/run/run-lock.ts';

const artifact = (id: string, status: 'ok' | 'error', output?: unknown) => ({ stage: 'localize-files', instanceId: id, status, output });
const spent = (tokens: number) => ({ promptTokens: tokens, completionTokens: 0, cost: 0, calls: 1 });

async function run(root: string, name: string, ids: string[], artifacts: Record<string, unknown>, settings: unknown = { localizer: 'x' }): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'localize-files'), { recursive: true });
  await writeFile(path.join(dir, 'instances.jsonl'), ids.map((id) => JSON.stringify({ instance_id: id })).join('\n') + '\n');
  await writeFile(
    path.join(dir, 'localize-files.selection.json'),
    JSON.stringify({ stage: 'localize-files', dataset: 'd', instances: ids, gold: Object.fromEntries(ids.map((i) => [i, [`${i}.py`]])), settings }),
  );
  for (const [id, a] of Object.entries(artifacts)) await writeFile(path.join(dir, 'localize-files', `${id}.json`), JSON.stringify(a));
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ config: { runId: name, shard: '1/2' }, invocations: [{ n: name }] }));
  await writeFile(
    path.join(dir, 'spend.json'),
    JSON.stringify({ version: 1, caps: {}, run: spent(ids.length * 10), instances: Object.fromEntries(ids.map((i) => [i, spent(10)])), updatedAt: 'x' }),
  );
  return dir;
}

describe('merging run folders', () => {
  it('joins shards, keeps the finished artifact, reports conflicts, sums spend and drops a stale lock', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'locfix-merge-'));
    const a = await run(root, 'a', ['i1', 'i2'], { i1: artifact('i1', 'ok', { files: ['a'] }), i2: artifact('i2', 'error') });
    const b = await run(root, 'b', ['i2', 'i3'], { i2: artifact('i2', 'ok', { files: ['b'] }), i3: artifact('i3', 'ok', { files: ['c'] }) });
    const c = await run(root, 'c', ['i3'], { i3: artifact('i3', 'ok', { files: ['other'] }) });
    // an earlier version's lock file in one shard, today's lock folder and its holder in another
    await writeFile(path.join(b, RUN_LOCK_FILE), JSON.stringify({ pid: 999999, host: 'gone', startedAt: 'x', argv: [] }));
    await mkdir(path.join(c, RUN_LOCK_FILE));
    await writeFile(path.join(c, RUN_LOCK_HOLDER_FILE), JSON.stringify({ pid: 999999, host: 'gone', startedAt: 'x', argv: [] }));
    const out = path.join(root, 'merged');
    const report = await mergeRunFolders(out, [a, b, c]);
    expect(report).toMatchObject({ instances: 3, conflicts: [{ stage: 'localize-files', instanceId: 'i3', dropped: c }] });
    const read = async (file: string) => JSON.parse(await readFile(path.join(out, file), 'utf8'));
    expect((await read('localize-files/i2.json')).status).toBe('ok');
    expect((await read('localize-files/i3.json')).output).toEqual({ files: ['c'] });
    expect((await read('localize-files.selection.json')).instances).toEqual(['i1', 'i2', 'i3']);
    expect((await read('spend.json')).run.promptTokens).toBe(50);
    expect(Object.keys((await read('spend.json')).instances).sort()).toEqual(['i1', 'i2', 'i3']);
    const manifest = await read('manifest.json');
    expect(manifest.config).toEqual({ runId: 'merged' });
    expect(manifest.invocations).toHaveLength(3);
    expect((await readFile(path.join(out, 'instances.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3);
    expect(existsSync(path.join(out, RUN_LOCK_FILE))).toBe(false);
    expect(existsSync(path.join(out, RUN_LOCK_HOLDER_FILE))).toBe(false);
  });

  it('refuses runs made with other settings, a folder that is not a run, and the output as an input', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'locfix-merge-'));
    const a = await run(root, 'a', ['i1'], {});
    const b = await run(root, 'b', ['i2'], {}, { localizer: 'y' });
    await expect(mergeRunFolders(path.join(root, 'm1'), [a, b])).rejects.toThrow(/other settings/);
    await expect(mergeRunFolders(path.join(root, 'm2'), [a, root])).rejects.toThrow(/is not a locfix run/);
    await expect(mergeRunFolders(a, [a])).rejects.toThrow(/is also an input/);
  });
});
