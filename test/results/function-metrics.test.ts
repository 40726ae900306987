import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionOutcome } from '../../results/function-metrics.ts';
import { computeLocMetrics } from '../../results/loc-metrics.ts';
import { evaluateRunFunctions } from '../../results/run-loc-evaluation.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { sharedMiniBenchmark } from '../minibench/shared.ts';

describe('function-level outcomes', () => {
  it('ranks predicted elements against gold elements; a class covers its methods; module-only gold is left out', () => {
    const gold = [{ path: 'a.py', name: 'Box.get' }];
    const o = functionOutcome(
      'i',
      [
        { path: 'a.py', name: 'helper' },
        { path: 'a.py', name: 'Box' },
      ],
      gold,
    )!;
    expect(computeLocMetrics([o])).toMatchObject({ top1: 0, top3: 1, mrr: 0.5 });
    expect(functionOutcome('i', [{ path: 'b.py', name: 'Box' }], gold)!.ranking).toEqual(['b.py::Box']);
    expect(functionOutcome('i', [], [{ path: 'a.py', name: '<module>' }])).toBeUndefined();
    expect(computeLocMetrics([functionOutcome('i', undefined, gold)!])).toMatchObject({ failed: 1, mrr: 0 });
  });
});

describe('eval-loc --level function on a run directory', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'locfix-fn-metrics-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('derives gold functions from the base files and scores the stage artifacts', async () => {
    const bench = await sharedMiniBenchmark();
    const instance = bench.instances.find((i) => i.instance_id === 'minibench__qty-19')!;
    const layout = new RunLayout(dir);
    // the gold patch of qty-19 edits Quantity methods in src/qty/quantity.py (sum() support)
    await writeJsonAtomic(layout.artifactPath('localize-functions', instance.instance_id), {
      status: 'ok',
      output: {
        codeElements: [
          { path: 'src/qty/units.py', name: 'Unit' },
          { path: 'src/qty/quantity.py', name: 'Quantity' },
        ],
      },
    });
    // the stage command's selection: qty-19 and one more instance, which never reached the stage
    const other = bench.instances.find((i) => i.instance_id !== instance.instance_id)!;
    await writeJsonAtomic(layout.selectionPath('localize-functions'), {
      stage: 'localize-functions',
      dataset: bench.datasetPath,
      instances: [instance.instance_id, other.instance_id],
      gold: {},
      createdAt: new Date(0).toISOString(),
      settings: {},
    });
    const store = new RepoStore({ cacheDir: path.join(dir, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
    try {
      const snapshot = (i: { repo: string; base_commit: string }) => store.snapshot(i.repo, i.base_commit);
      const m = await evaluateRunFunctions(dir, 'localize-functions', [instance], snapshot);
      expect(m).toMatchObject({ n: 1, top1: 0, top3: 1, mrr: 0.5, missingGold: [] });
      // the whole dataset given: still the run's selection only (it was scored over all 9 rows once); the instance
      // that never got there is a miss in the headline (issue 52's one denominator) and out of `reached`
      const whole = await evaluateRunFunctions(dir, 'localize-functions', bench.instances, snapshot);
      expect(whole).toMatchObject({ n: 2, top3: 0.5, notAttempted: [other.instance_id], reached: { n: 1, top3: 1 } });
      await expect(evaluateRunFunctions(dir, 'repair', bench.instances, snapshot)).rejects.toThrow(/"repair" is not a localization stage/);
    } finally {
      await store.close();
    }
  });
});
