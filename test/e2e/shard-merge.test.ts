/**
 * A run split by `--shard i/n` and joined by `locfix merge` ends like the run made in one piece: the demo's
 * pipeline (replayed from the bundled recording, so no model is needed) run as two shards into two run folders,
 * merged, and compared with the recorded run's categories; shards cover every instance exactly once.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeCommand } from '../../app/commands/merge.ts';
import { runExperiment } from '../../app/engine/experiment.ts';
import { parseRunConfig } from '../../src/config.ts';
import { parseShard, selectInstances, shardOf } from '../../src/dataset/select.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import type { DemoRecordingFile } from '../../src/minibench/demo-run.ts';
import { readDemoRecording, splitDemoConfig } from '../support/demo-shards.ts';
import { ensureDocker } from '../support/docker.ts';

const hasDocker = await ensureDocker('shard and merge with evaluation');
let dir: string;
let bench: MiniBenchBuild;
let recording: DemoRecordingFile;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-e2e-shard-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
  recording = await readDemoRecording();
});
afterAll(async () => {
  if (!process.env.LOCFIX_KEEP_TEST_DIRS) await rm(dir, { recursive: true, force: true });
});

describe('--shard and locfix merge', () => {
  it('shards are contiguous, near-equal, and cover every item once', () => {
    const items = Array.from({ length: 11 }, (_, i) => i);
    const parts = [1, 2, 3, 4].map((index) => shardOf(items, { index, count: 4 }));
    expect(parts.map((p) => p.length)).toEqual([2, 3, 3, 3]);
    expect(parts.flat()).toEqual(items);
    expect(shardOf([1], { index: 2, count: 3 })).toEqual([]);
    expect(() => parseShard('0/3')).toThrow(/invalid shard "0\/3"/);
    expect(() => parseShard('4/3')).toThrow(/1 ≤ i ≤ n/);
    expect(parseShard(' 2/8 ')).toEqual({ index: 2, count: 8 });
  });

  it('a selection is grouped by repository before it is cut, keeping the order within each repository', () => {
    const rows = ['b/x-1', 'a/y-1', 'b/x-2', 'a/y-2', 'c/z-1', 'b/x-3'].map((id) => ({ instance_id: id, repo: id.split('-')[0] }));
    const shards = [1, 2, 3].map((index) => selectInstances(rows, { shard: { index, count: 3 } }).instances.map((r) => r.instance_id));
    expect(shards).toEqual([
      ['a/y-1', 'a/y-2'],
      ['b/x-1', 'b/x-2'],
      ['b/x-3', 'c/z-1'],
    ]);
  });

  it.skipIf(!hasDocker)('two shards merged end like the run made in one piece', { timeout: 600_000 }, async () => {
    const runsDir = path.join(dir, 'runs');
    const config = await splitDemoConfig(dir, bench, recording, 'part');
    for (const shard of ['1/2', '2/2']) {
      const result = await runExperiment(parseRunConfig({ ...config, runId: `part-${shard[0]}`, shard }), { log: () => {} });
      expect(result.total).toBe(shard === '1/2' ? 2 : 3);
    }
    await mergeCommand([path.join(runsDir, 'part-1'), path.join(runsDir, 'part-2')], { out: path.join(runsDir, 'merged') });
    const analysis = JSON.parse(await readFile(path.join(runsDir, 'merged', 'analysis.json'), 'utf8')) as {
      instances: Array<{ instanceId: string; category: string }>;
    };
    expect(Object.fromEntries(analysis.instances.map((a) => [a.instanceId, a.category]))).toEqual(recording.categories);
    const predictions = (await readFile(path.join(runsDir, 'merged', 'predictions.jsonl'), 'utf8')).trim().split('\n');
    expect(predictions).toHaveLength(recording.instances.length);
    const manifest = JSON.parse(await readFile(path.join(runsDir, 'merged', 'manifest.json'), 'utf8'));
    expect(manifest.mergedFrom).toHaveLength(2);
    expect(manifest.config.shard).toBeUndefined();
    expect(await readFile(path.join(runsDir, 'merged', 'report', 'report.html'), 'utf8')).toContain('<h2>Cascade tiers of');
    // merging again into the same folder changes nothing and reports no conflict
    await mergeCommand([path.join(runsDir, 'part-1'), path.join(runsDir, 'part-2')], { out: path.join(runsDir, 'merged') });
  });
});
