/**
 * A validation step that fails because the engine stopped answering is the engine's failure: the stage's
 * work rethrows it, so a backend of several engines runs the whole validation again elsewhere, and the
 * second attempt starts from nothing. A step that fails while the engine answers is recorded as skipped,
 * as before. (The testbed and the regression step are stand-ins here; the pool's retry itself is tested on
 * two real engines in test/docker/pool-backend.test.ts.)
 */
import { describe, expect, it, vi } from 'vitest';
import type { ExecutionBackend, ExecutionEngine } from '../../src/sandbox/types.ts';

let regressionFailures: Error[] = [];
vi.mock('../../validation/testbed.ts', () => ({
  withTestbed: async (_r: unknown, _i: unknown, _inst: unknown, _o: unknown, fn: (t: unknown) => Promise<unknown>) => fn({}),
}));
vi.mock('../../validation/regression.ts', () => ({
  selectRegressionTests: async () => {
    const err = regressionFailures.shift();
    if (err) throw err;
    return { passing: ['t1'], excluded: [] };
  },
  runRegressionTests: async () => new Map([['k', { regressionFailures: 0 }]]),
}));

const { validateStage } = await import('../../validation/stages.ts');

const engine = (id: string, answers: boolean): ExecutionEngine =>
  ({ id, runtime: { ping: async () => (answers ? undefined : Promise.reject(new Error('connect ENOENT'))) }, images: {} }) as unknown as ExecutionEngine;

/** Runs work on each engine in turn until one attempt returns; engines that do not answer are skipped, as the pool does. */
function twoEngines(first: ExecutionEngine, second: ExecutionEngine): ExecutionBackend & { tried: string[] } {
  const tried: string[] = [];
  return {
    name: 'test',
    tried,
    sweep: async () => 0,
    sweepOrphans: async () => 0,
    run: async (_label, work) => {
      for (const e of [first, second]) {
        tried.push(e.id);
        try {
          return await work(e);
        } catch (err) {
          if (
            await e.runtime.ping().then(
              () => true,
              () => false,
            )
          )
            throw err;
        }
      }
      throw new Error('no engine left');
    },
  };
}

const input = {
  instance: { instance_id: 'x__y-1', problem_statement: 'p' },
  output: async () => ({ samples: [{ setIndex: 0, sampleIndex: 0, normalized: 'k', diff: 'diff --git a/f b/f' }] }),
  optionalOutput: async () => undefined,
};

describe('validate stage on a failing engine', () => {
  it('a step failing on an engine that stopped answering is retried on another engine from nothing', async () => {
    regressionFailures = [new Error('socket hang up')];
    const backend = twoEngines(engine('dead', false), engine('ok', true));
    const stage = validateStage(backend, { runId: 'r', regression: true, reproduction: false, reproductionSamples: 1, timeoutMs: 1000 });
    const out = (await stage.run(input as never)) as { skipped: unknown[]; regression?: { passing: number } };
    expect(backend.tried).toEqual(['dead', 'ok']);
    expect(out.skipped).toEqual([]);
    expect(out.regression?.passing).toBe(1);
  });

  it('a step failing while the engine answers is recorded as skipped, on that engine', async () => {
    regressionFailures = [new Error('the test command printed nothing')];
    const backend = twoEngines(engine('ok', true), engine('other', true));
    const stage = validateStage(backend, { runId: 'r', regression: true, reproduction: false, reproductionSamples: 1, timeoutMs: 1000 });
    const out = (await stage.run(input as never)) as { skipped: Array<{ step: string; reason: string }> };
    expect(backend.tried).toEqual(['ok']);
    expect(out.skipped).toEqual([{ step: 'regression', reason: 'the test command printed nothing' }]);
  });
});
