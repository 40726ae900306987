/**
 * The ladder's attribution and statistics (results/ladder.ts) on synthetic rungs: the first rung that resolves an
 * instance names its cause, repeats decide by majority and mark thin evidence, work not done is not judged, the
 * agreement table counts where the correlational category and the cause differ, and the lifts are compare's
 * paired statistics between neighbouring rungs.
 */
import { describe, expect, it } from 'vitest';
import { agreementRate, analyzeLadder, attribute, RUNGS, type LadderRun, type Rung, type RungFrequency } from '../../results/ladder.ts';
import { renderLadder } from '../../results/ladder-report.ts';
import { compareResolution } from '../../results/compare-resolution.ts';
import type { FailureCategory } from '../../results/failure-analysis.ts';

const f = (resolved: number, judged: number, runs = judged): RungFrequency => ({ resolved, judged, runs });
const freqs = (...cells: RungFrequency[]) => Object.fromEntries(RUNGS.map((r, i) => [r, cells[i]!])) as Record<Rung, RungFrequency>;

describe('attribution', () => {
  it('the first rung that resolves names the cause', () => {
    expect(attribute(freqs(f(1, 1), f(1, 1), f(1, 1), f(1, 1))).cause).toBe('resolved');
    expect(attribute(freqs(f(0, 1), f(1, 1), f(1, 1), f(1, 1))).cause).toBe('file');
    expect(attribute(freqs(f(0, 1), f(0, 1), f(1, 1), f(1, 1))).cause).toBe('function');
    expect(attribute(freqs(f(0, 1), f(0, 1), f(0, 1), f(1, 1))).cause).toBe('line');
    const beyond = attribute(freqs(f(0, 1), f(0, 1), f(0, 1), f(0, 1)), 'empty-patch');
    expect(beyond).toMatchObject({ cause: 'beyond-localization', decidedAt: 'oracle-line', detail: 'repair: no usable edit even at the gold lines' });
  });

  it('a rung that resolves out of order (sampling noise) still decides at the first one that does', () => {
    expect(attribute(freqs(f(0, 1), f(1, 1), f(0, 1), f(1, 1)))).toMatchObject({ cause: 'file', decidedAt: 'oracle-file' });
  });

  it('over seeds a rung resolves with half or more of its runs; thin evidence is marked', () => {
    const three = attribute(freqs(f(1, 3), f(2, 3), f(3, 3), f(3, 3)));
    expect(three).toEqual({ cause: 'file', decidedAt: 'oracle-file' });
    const thin = attribute(freqs(f(0, 2), f(1, 2), f(2, 2), f(2, 2)));
    expect(thin).toEqual({ cause: 'file', decidedAt: 'oracle-file', onOneSample: true });
    expect(attribute(freqs(f(0, 1), f(1, 1), f(1, 1), f(1, 1))).onOneSample).toBe(true);
  });

  it('a rung that judged none of its runs stops the attribution as not judged', () => {
    expect(attribute(freqs(f(0, 1), f(0, 0, 1), f(1, 1), f(1, 1)))).toMatchObject({ cause: 'not-judged', decidedAt: 'oracle-file' });
  });
});

function run(rung: Rung, seed: number, categories: Record<string, FailureCategory>): LadderRun {
  return { rung, seed, categories: new Map(Object.entries(categories)) };
}

const IDS = ['a__x-1', 'a__x-2', 'b__y-1', 'b__y-2', 'c__z-1'];

describe('the ladder over runs', () => {
  // a: resolved as run; a2: files caused it (the analysis said "function": disagreement); b1: functions;
  // b2: only the full oracle; c1: nothing resolves it
  const runs: LadderRun[] = [1, 2].flatMap((seed) => [
    run('as-run', seed, { 'a__x-1': 'resolved', 'a__x-2': 'function', 'b__y-1': 'function', 'b__y-2': 'line', 'c__z-1': 'patch-generation' }),
    run('oracle-file', seed, { 'a__x-1': 'resolved', 'a__x-2': 'resolved', 'b__y-1': 'function', 'b__y-2': 'line', 'c__z-1': 'patch-generation' }),
    run('oracle-function', seed, { 'a__x-1': 'resolved', 'a__x-2': 'resolved', 'b__y-1': 'resolved', 'b__y-2': 'line', 'c__z-1': 'patch-generation' }),
    run('oracle-line', seed, {
      'a__x-1': 'resolved',
      'a__x-2': 'resolved',
      'b__y-1': 'resolved',
      'b__y-2': seed === 1 ? 'resolved' : 'line',
      'c__z-1': 'empty-patch',
    }),
  ]);
  const instances = IDS.map((id) => ({ instanceId: id, repo: id.split('__')[0]! }));
  const result = analyzeLadder({ runs, instances, bootstrap: { resamples: 2000 } });

  it('attributes each instance and keeps the correlational category beside it', () => {
    const byId = Object.fromEntries(result.instances.map((i) => [i.instanceId, i]));
    expect(byId['a__x-1']!.cause).toBe('resolved');
    expect(byId['a__x-2']).toMatchObject({ cause: 'file', correlational: 'function' });
    expect(byId['b__y-1']).toMatchObject({ cause: 'function', correlational: 'function' });
    // resolved by the full oracle in one of two seeds: half, so the rung resolves it, on one resolving run
    expect(byId['b__y-2']).toMatchObject({ cause: 'line', onOneSample: true });
    expect(byId['b__y-2']!.frequencies['oracle-line']).toEqual({ resolved: 1, judged: 2, runs: 2 });
    expect(byId['c__z-1']).toMatchObject({ cause: 'beyond-localization', detail: 'repair: no usable edit even at the gold lines' });
    expect(result.seeds).toEqual([1, 2]);
  });

  it('the agreement table shows a "function" failure that files caused', () => {
    expect(result.agreement).toEqual({ function: { file: 1, function: 1 }, line: { line: 1 }, 'patch-generation': { 'beyond-localization': 1 } });
    expect(agreementRate(result.agreement, 'function')).toEqual({ agree: 1, of: 2 });
    expect(renderLadder(result)).toContain('"function" failures caused by function localization: 1 of 2');
  });

  it("each level's lift is compare's paired statistic between neighbouring rungs, Holm across the three", () => {
    expect(result.lifts.map((l) => [l.level, l.from, l.to])).toEqual([
      ['file', 'as-run', 'oracle-file'],
      ['function', 'oracle-file', 'oracle-function'],
      ['line', 'oracle-function', 'oracle-line'],
    ]);
    const file = result.lifts[0]!.comparison;
    expect(file.referenceRate).toBeCloseTo(0.2);
    expect(file.alternativeRate).toBeCloseTo(0.4);
    expect(file.mcnemar).toMatchObject({ referenceOnly: 0, alternativeOnly: 1 });
    const line = result.lifts[2]!.comparison;
    expect(line.alternativeRate - line.referenceRate).toBeCloseTo(0.1); // b__y-2 resolved in one of two seeds
    // the same numbers compare gives for the pair
    const direct = compareResolution({
      reference: 'as-run',
      alternatives: ['oracle-file'],
      idsOf: () => IDS,
      solveFrequency: (arm, ids) => ids.map((id) => runs.filter((r) => r.rung === arm).filter((r) => r.categories.get(id) === 'resolved').length / 2),
      firstRunResolved: (arm, ids) => ids.map((id) => runs.find((r) => r.rung === arm && r.seed === 1)!.categories.get(id) === 'resolved'),
      repoOf: (id) => id.split('__')[0]!,
      bootstrap: { resamples: 2000 },
    })[0]!;
    expect(file.bootstrap).toEqual(direct.bootstrap);
    const holm = result.lifts.map((l) => l.comparison.mcnemar.holmPValue);
    expect(holm.every((p, i) => p >= result.lifts[i]!.comparison.mcnemar.pValue)).toBe(true);
    expect(result.cumulative.map((c) => c.alternative)).toEqual(['oracle-file', 'oracle-function', 'oracle-line']);
  });

  it('refuses a ladder with a rung missing', () => {
    expect(() => analyzeLadder({ runs: runs.filter((r) => r.rung !== 'oracle-function'), instances })).toThrow(/no run of oracle-function/);
  });

  it('work not done is not judged: a rung that never evaluated an instance decides nothing about it', () => {
    const notEvaluated = runs.map((r) =>
      r.rung === 'oracle-file' ? run(r.rung, r.seed, Object.fromEntries(IDS.map((id) => [id, 'not-evaluated' as const]))) : r,
    );
    const byId = Object.fromEntries(analyzeLadder({ runs: notEvaluated, instances }).instances.map((i) => [i.instanceId, i]));
    expect(byId['a__x-2']).toMatchObject({ cause: 'not-judged', decidedAt: 'oracle-file' });
    expect(byId['a__x-1']!.cause).toBe('resolved');
  });
});
