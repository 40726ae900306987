import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { evaluateRun, evaluateRunFunctions } from '../../results/run-loc-evaluation.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
let dir: string;

function artifact(id: string, status: 'ok' | 'error', ranking?: string[]): unknown {
  return {
    stage: 'retrieve',
    instanceId: id,
    status,
    startedAt: '',
    finishedAt: '',
    durationMs: 1,
    attempt: 1,
    ...(status === 'ok' ? { output: { ranking: ranking!.map((p, i) => ({ path: p, score: 10 - i })) } } : { error: { message: 'commit not found' } }),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-evalloc-'));
  const layout = new RunLayout(dir);
  await writeJsonAtomic(layout.selectionPath('retrieve'), {
    stage: 'retrieve',
    dataset: 'x.jsonl',
    instances: ['o__r-1', 'o__r-2', 'o__r-3', 'o__r-4'],
    gold: { 'o__r-1': ['a.py'], 'o__r-2': ['b.py'], 'o__r-3': ['c.py'], 'o__r-4': ['d.py'] },
    createdAt: '',
    settings: {},
  });
  await writeJsonAtomic(layout.artifactPath('retrieve', 'o__r-1'), artifact('o__r-1', 'ok', ['a.py', 'x.py']));
  await writeJsonAtomic(layout.artifactPath('retrieve', 'o__r-2'), artifact('o__r-2', 'ok', ['x.py', 'y.py', 'b.py']));
  await writeJsonAtomic(layout.artifactPath('retrieve', 'o__r-3'), artifact('o__r-3', 'error'));
  // o__r-4 never finished: no artifact
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('eval-loc', () => {
  it('is over every selected instance, failed and never-attempted ones as misses, as the runner metrics are (issue 52)', async () => {
    const m = await evaluateRun(dir);
    expect(m.n).toBe(4);
    expect(m.failed).toBe(2);
    expect(m.notAttempted).toEqual(['o__r-4']);
    expect(m.top1).toBeCloseTo(1 / 4, 12);
    expect(m.top3).toBeCloseTo(2 / 4, 12);
    expect(m.mrr).toBeCloseTo((1 + 1 / 3) / 4, 12);
    expect(m.top1).toBe(m.runner.hit1);
    expect(m.mrr).toBeCloseTo(m.runner.mrr, 12);
    // over the 3 that reached the stage, labelled as such
    expect(m.reached).toMatchObject({ n: 3, top1: 1 / 3, top3: 2 / 3 });
  });

  it('a server that fails the hard instances cannot raise Top-k: they stay in n as misses (issue 52)', async () => {
    const gamed = await mkdtemp(path.join(os.tmpdir(), 'locfix-evalloc-gamed-'));
    try {
      const layout = new RunLayout(gamed);
      await writeJsonAtomic(layout.selectionPath('retrieve'), {
        stage: 'retrieve',
        dataset: 'x.jsonl',
        instances: ['o__r-1', 'o__r-2', 'o__r-3'],
        gold: { 'o__r-1': ['a.py'], 'o__r-2': ['b.py'], 'o__r-3': ['c.py'] },
        createdAt: '',
        settings: {},
      });
      await writeJsonAtomic(layout.artifactPath('retrieve', 'o__r-1'), artifact('o__r-1', 'ok', ['a.py']));
      for (const id of ['o__r-2', 'o__r-3'])
        await writeJsonAtomic(layout.artifactPath('retrieve', id), {
          ...(artifact(id, 'error') as object),
          error: { message: '503', kind: 'http', details: { status: 503 } },
        });
      const m = await evaluateRun(gamed);
      // before: Top-3 1.000 over the 1 judged beside the runner's Hit@3 0.333
      expect(m).toMatchObject({ n: 3, top3: 1 / 3, reached: { n: 1, top3: 1 } });
      expect(m.runner.hit3).toBeCloseTo(m.top3, 12);
      expect(m.notReached.map((r) => r.cause)).toEqual(['infrastructure: server-error', 'infrastructure: server-error']);
    } finally {
      await rm(gamed, { recursive: true, force: true });
    }
  });

  it('--json prints exactly one object with the documented keys', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'eval-loc', dir, '--json']);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const obj = JSON.parse(lines[0]);
    expect(Object.keys(obj)).toEqual([
      'n',
      'top1',
      'top3',
      'top5',
      'top10',
      'top15',
      'mrr',
      'acc1',
      'acc3',
      'acc5',
      'acc10',
      'acc15',
      'notAttempted',
      'notReached',
      'reached',
      'runner',
    ]);
    expect(obj).toMatchObject({ n: 4, top1: 1 / 4, top3: 2 / 4, reached: { n: 3 } });
  });

  it("also gives the explorer study's runner metrics, with the study's denominators", async () => {
    const { runner } = await evaluateRun(dir);
    // o__r-4 has no artifact: not attempted, scored with zero credit (one denominator with eval-loc's headline)
    expect(runner).toMatchObject({ selected: 4, attempted: 3, notAttempted: 1, missingLabel: 0, scored: 4, errors: 1, errorKinds: { error: 1 } });
    expect(runner.errorRate).toBeCloseTo(1 / 3, 12);
    expect(runner.nonEmptyRate).toBeCloseTo(2 / 4, 12);
    expect(runner.hit1).toBeCloseTo(1 / 4, 12);
    expect(runner.hit3).toBeCloseTo(2 / 4, 12);
    expect(runner.mrr).toBeCloseTo((1 + 1 / 3) / 4, 12);
    // no localizer answer: the predicted set is the 3 files handed downstream; F1 .667 and .5, the others 0
    expect(runner.f1).toBeCloseTo((2 / 3 + 0.5) / 4, 12);
    expect(runner.exactMatch).toBe(0);
    const { stdout } = await run(process.execPath, [BIN, 'eval-loc', dir]);
    expect(stdout).toMatch(/ErrorRate 0\.333 {2}NonEmptyRate 0\.500/);
    expect(stdout).toMatch(/NOT attempted 1/);
  });

  it('prints a table, and a clear error for a folder that is not a run', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'eval-loc', dir]);
    expect(stdout).toMatch(/Top-1/);
    expect(stdout).toMatch(/0\.250/);
    expect(stdout).toMatch(/over the instances that reached it +3 +0\.333/);
    expect(stdout).toMatch(/1 selected instances never reached this stage: misses until the run finishes them/);
    const bad = await run(process.execPath, [BIN, 'eval-loc', path.join(dir, 'nope')]).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(1);
    expect((bad as { stderr: string }).stderr).toMatch(/no such run folder/);
    const wrongStage = await run(process.execPath, [BIN, 'eval-loc', dir, '--stage', 'localize-files']).catch((e: { stderr: string }) => e);
    expect((wrongStage as { stderr: string }).stderr).toMatch(/has no "localize-files" stage; it has retrieve/);
    const notLocalization = await run(process.execPath, [BIN, 'eval-loc', dir, '--stage', 'repair']).catch((e: { stderr: string }) => e);
    expect((notLocalization as { stderr: string }).stderr).toMatch(/"repair" is not a localization stage/);
  });

  it('--level function on a stage that names no functions is an error, not a table of zeros', async () => {
    const instances = ['o__r-1', 'o__r-2'].map((id) => ({ instance_id: id, repo: 'o/r', base_commit: 'x', patch: '' }) as unknown as SweInstance);
    await expect(
      evaluateRunFunctions(dir, 'retrieve', instances, async () => {
        throw new Error('no repository needed');
      }),
    ).rejects.toThrow(/stage "retrieve" holds no function-level predictions/);
  });
});
