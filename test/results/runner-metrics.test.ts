/**
 * The explorer study's runner metrics on hand-made rows. Checked: the localizer's own answer scored as
 * the set with no cap, paths that do not exist counted as false positives, error rows kept at zero
 * credit, missing labels left out, and tokens averaged only over rows that recorded usage.
 */
import { describe, expect, it } from 'vitest';
import { computeRunnerMetrics, type RunnerRow } from '../../results/runner-metrics.ts';

const rows: RunnerRow[] = [
  // the answer has 4 files, one of which does not exist: the set is all 4, with no cap
  {
    instanceId: 'a',
    gold: ['x.py', 'y.py'],
    status: 'ok',
    ranking: ['x.py', 'ghost.py', 'y.py', 'z.py'],
    predicted: ['x.py', 'ghost.py', 'y.py', 'z.py'],
    agent: { steps: 10, reads: 4, commands: 8, elapsedMs: 20_000 },
    usage: { promptTokens: 9000, completionTokens: 1000, calls: 10 },
  },
  {
    instanceId: 'b',
    gold: ['q.py'],
    status: 'ok',
    ranking: ['q.py'],
    predicted: ['q.py'],
    agent: { steps: 4, reads: 1, commands: 3, elapsedMs: 6000 },
    usage: { promptTokens: 3000, completionTokens: 200, calls: 4 },
  },
  // a timeout that recorded no usage: zero credit; steps and time still count
  { instanceId: 'c', gold: ['r.py'], status: 'error', errorKind: 'explorer-timeout', agent: { steps: 30, reads: 9, commands: 29, elapsedMs: 600_000 } },
  // a valid empty answer: zero credit but not an error
  {
    instanceId: 'd',
    gold: ['s.py'],
    status: 'ok',
    ranking: [],
    predicted: [],
    agent: { steps: 2, reads: 0, commands: 1, elapsedMs: 2000 },
    usage: { promptTokens: 1000, completionTokens: 100, calls: 2 },
  },
  // no label: attempted, not scored
  { instanceId: 'e', gold: [], status: 'ok', ranking: ['t.py'], predicted: ['t.py'], agent: { steps: 1, reads: 0, commands: 0, elapsedMs: 1000 } },
  { instanceId: 'f', gold: ['u.py'], status: 'missing' },
];

describe('runner metrics', () => {
  it("follows the study's rows, denominators and set scoring", () => {
    const m = computeRunnerMetrics(rows);
    // f, never attempted, is scored with zero credit (issue 52: one denominator with eval-loc and the resolved rate)
    expect(m).toMatchObject({ selected: 6, attempted: 5, notAttempted: 1, missingLabel: 1, scored: 5, errors: 1, errorKinds: { 'explorer-timeout': 1 } });
    expect(m.errorRate).toBeCloseTo(1 / 5, 12);
    expect(m.nonEmptyRate).toBeCloseTo(2 / 5, 12);
    expect(m.hit1).toBeCloseTo(2 / 5, 12);
    expect(m.r3).toBeCloseTo((1 + 1) / 5, 12);
    // a: P = 2/4, R = 1, F1 = 2/3; b: 1; c, d, f: 0
    expect(m.f1).toBeCloseTo((2 / 3 + 1) / 5, 12);
    expect(m.exactMatch).toBeCloseTo(1 / 5, 12);
    expect(m.steps).toEqual({ mean: (10 + 4 + 30 + 2 + 1) / 5, n: 5 });
    expect(m.agentSeconds.mean).toBeCloseTo((20 + 6 + 600 + 2 + 1) / 5, 12);
    // tokens: only the three rows that recorded usage
    expect(m.tokens).toEqual({ input: 13000 / 3, output: 1300 / 3, total: 14300 / 3, n: 3 });
  });
});

describe('paired comparison of two runs covers the runner metrics', async () => {
  const { compareRuns } = await import('../../results/compare.ts');
  const ids = ['i1', 'i2', 'i3', 'i4'];
  const base = {
    instances: ids,
    repoOf: Object.fromEntries(ids.map((i) => [i, 'o/r'])),
    goldFiles: Object.fromEntries(ids.map((i) => [i, [`${i}.py`]])),
    resolved: [],
    emptyPatch: [],
  };
  const explorer = {
    ...base,
    runId: 'explorer-run',
    localizer: 'explorer',
    rankings: Object.fromEntries(ids.map((i) => [i, [`${i}.py`, 'other.py']])),
    predicted: Object.fromEntries(ids.map((i) => [i, [`${i}.py`, 'other.py']])),
    operations: Object.fromEntries(ids.map((i, k) => [i, { agentSeconds: 10 + k, inputTokens: 1000, outputTokens: 100 }])),
  };
  const cheap = {
    ...base,
    runId: 'retrieval-run',
    localizer: 'retrieval',
    rankings: Object.fromEntries(ids.map((i) => [i, ['other.py', `${i}.py`, 'x.py', 'y.py']])),
    // no usage recorded: token comparisons have no pairs, time has all four
    operations: Object.fromEntries(ids.map((i) => [i, { agentSeconds: 1 }])),
  };

  it('scores F1 on the explorer answer (no cap), and pairs agent time only where both recorded it', () => {
    const c = compareRuns([explorer, cheap], { resamples: 200, seed: 1729 });
    const f1 = c.metrics.find((m) => m.metric === 'f1')!;
    expect(f1.referenceMean).toBeCloseTo(2 / 3, 12);
    // retrieval's set is its first 3 files
    expect(f1.alternativeMean).toBeCloseTo(0.5, 12);
    expect(c.metrics.find((m) => m.metric === 'r3')).toBeDefined();
    expect(c.operational.map((o) => o.metric)).toEqual(['agentSeconds']);
    expect(c.operational[0]).toMatchObject({ n: 4, referenceMean: 11.5, alternativeMean: 1 });
    expect(c.operational[0]!.bootstrap.high).toBeLessThan(0);
  });
});
