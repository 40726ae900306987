import { describe, expect, it } from 'vitest';
import { combineValidation, distinctCandidates, instanceEmptyReason, selectPatch, votingOrder, type VotingSample } from '../../repair/select.ts';
import type { CandidateValidation, EmptyPatchReason } from '../../repair/types.ts';

/** A candidate sample: `key` is its normalized patch, the diff names the sample so the test sees which one won. */
const cand = (setIndex: number, sampleIndex: number, key: string): VotingSample => ({
  id: `s${setIndex}-${sampleIndex}`,
  setIndex,
  sampleIndex,
  diff: `diff of s${setIndex}-${sampleIndex}`,
  normalized: key,
});
const empty = (setIndex: number, sampleIndex: number, emptyReason: EmptyPatchReason): VotingSample => ({
  id: `s${setIndex}-${sampleIndex}`,
  setIndex,
  sampleIndex,
  diff: '',
  normalized: '',
  emptyReason,
});

describe('votingOrder', () => {
  it('puts sample k of every set before sample k+1 of any set (greedy samples first)', () => {
    const samples = [cand(0, 0, 'a'), cand(0, 1, 'a'), cand(1, 0, 'a'), cand(1, 1, 'a'), cand(2, 0, 'a')];
    expect(votingOrder(samples).map((s) => s.id)).toEqual(['s0-0', 's1-0', 's2-0', 's0-1', 's1-1']);
  });
});

describe('selectPatch: majority vote', () => {
  it('picks the normalized patch with most votes and the earliest sample of it as representative', () => {
    const samples = [cand(0, 0, 'A'), cand(0, 1, 'B'), cand(0, 2, 'B'), cand(1, 0, 'C'), cand(1, 1, 'B'), cand(1, 2, 'A')];
    const sel = selectPatch(samples);
    expect(sel).toMatchObject({ patch: 'diff of s0-1', sampleId: 's0-1', normalized: 'B', filter: 'none' });
    expect(sel.voteTable.map((e) => [e.normalized, e.votes, e.sampleIds])).toEqual([
      ['B', 3, ['s0-1', 's1-1', 's0-2']],
      ['A', 2, ['s0-0', 's1-2']],
      ['C', 1, ['s1-0']],
    ]);
    expect(sel.voteTable.every((e) => e.eligible)).toBe(true);
  });

  it("breaks ties by the earliest sample in voting order: a later set's greedy sample beats an earlier set's second sample", () => {
    expect(selectPatch([cand(0, 1, 'X'), cand(1, 0, 'Y')]).sampleId).toBe('s1-0');
    expect(selectPatch([cand(1, 0, 'Y'), cand(0, 0, 'X')]).sampleId).toBe('s0-0');
    // 2:2 tie, X appears first (s0-0)
    expect(selectPatch([cand(0, 0, 'X'), cand(1, 0, 'Y'), cand(0, 1, 'Y'), cand(1, 1, 'X')]).normalized).toBe('X');
  });

  it('ignores samples without a patch and gives the reason of the furthest sample when nothing is left', () => {
    const sel = selectPatch([empty(0, 0, 'no-edits-parsed'), empty(0, 1, 'syntax-error'), cand(0, 2, 'Z'), empty(1, 0, 'model-error')]);
    expect(sel.patch).toBe('diff of s0-2');
    expect(sel.emptyReason).toBeUndefined();
    const none = selectPatch([empty(0, 0, 'no-edits-parsed'), empty(0, 1, 'no-edit-matched'), empty(1, 0, 'model-error')]);
    expect(none).toEqual({ patch: '', filter: 'none', voteTable: [], emptyReason: 'no-edit-matched' });
    expect(selectPatch([]).emptyReason).toBe('no-locations');
  });

  it('ranks empty reasons by how far the sample got', () => {
    const order: EmptyPatchReason[] = ['no-locations', 'model-error', 'no-edits-parsed', 'no-edit-matched', 'no-op', 'syntax-error', 'invalid-diff'];
    for (let i = 1; i < order.length; i++) {
      expect(
        instanceEmptyReason(
          order
            .slice(0, i + 1)
            .reverse()
            .map((r) => ({ emptyReason: r })),
        ),
      ).toBe(order[i]);
    }
  });
});

describe('selectPatch: Agentless 1.5 filters', () => {
  // A: 4 votes, B: 3 votes, C: 2 votes, D: 1 vote
  const samples = [
    ...[0, 1, 2, 3].map((k) => cand(0, k, 'A')),
    ...[0, 1, 2].map((k) => cand(1, k, 'B')),
    ...[0, 1].map((k) => cand(2, k, 'C')),
    cand(3, 0, 'D'),
  ];
  const v = (entries: Record<string, CandidateValidation>) => new Map(Object.entries(entries));

  it('takes the fewest regression failures that also pass the reproduction test', () => {
    const sel = selectPatch(
      samples,
      v({
        A: { regressionFailures: 2, reproductionPassed: true },
        B: { regressionFailures: 0, reproductionPassed: false },
        C: { regressionFailures: 0, reproductionPassed: true },
        D: { regressionFailures: 0, reproductionPassed: true },
      }),
    );
    expect(sel).toMatchObject({ normalized: 'C', filter: 'regression+reproduction' });
    expect(sel.voteTable.filter((e) => e.eligible).map((e) => e.normalized)).toEqual(['C', 'D']);
    expect(sel.voteTable.find((e) => e.normalized === 'A')).toMatchObject({ votes: 4, regressionFailures: 2, reproductionPassed: true, eligible: false });
  });

  it('falls back to the fewest regression failures when none of those passes reproduction', () => {
    const sel = selectPatch(
      samples,
      v({
        A: { regressionFailures: 1, reproductionPassed: true },
        B: { regressionFailures: 0, reproductionPassed: false },
        C: { regressionFailures: 0, reproductionPassed: false },
        D: { regressionFailures: 3, reproductionPassed: true },
      }),
    );
    expect(sel).toMatchObject({ normalized: 'B', filter: 'regression' });
  });

  it('treats candidates without a regression result as not having the fewest failures', () => {
    const sel = selectPatch(samples, v({ C: { regressionFailures: 5 } }));
    expect(sel).toMatchObject({ normalized: 'C', filter: 'regression' });
  });

  it('uses reproduction alone when no regression result is known', () => {
    const sel = selectPatch(samples, v({ B: { reproductionPassed: true }, A: { reproductionPassed: false } }));
    expect(sel).toMatchObject({ normalized: 'B', filter: 'reproduction' });
    // nobody passes: plain vote
    expect(selectPatch(samples, v({ A: { reproductionPassed: false } }))).toMatchObject({ normalized: 'A', filter: 'none' });
  });

  it('is the plain vote without validation results', () => {
    expect(selectPatch(samples)).toMatchObject({ normalized: 'A', filter: 'none' });
    expect(selectPatch(samples, new Map())).toMatchObject({ normalized: 'A', filter: 'none' });
  });

  it('breaks ties among the eligible by voting order too', () => {
    const sel = selectPatch(
      samples,
      v({ B: { regressionFailures: 0 }, D: { regressionFailures: 0 }, A: { regressionFailures: 1 }, C: { regressionFailures: 1 } }),
    );
    expect(sel.normalized).toBe('B');
    const tie = selectPatch([cand(0, 1, 'P'), cand(1, 0, 'Q')], v({ P: { regressionFailures: 0 }, Q: { regressionFailures: 0 } }));
    expect(tie.normalized).toBe('Q');
  });
});

describe('validation glue', () => {
  it('lists distinct candidates in voting order with their representative diff', () => {
    const samples = [cand(1, 0, 'B'), cand(0, 1, 'A'), cand(0, 0, 'B'), empty(2, 0, 'no-op'), cand(1, 1, 'C')];
    expect(distinctCandidates(samples)).toEqual([
      { key: 'B', patch: 'diff of s0-0' },
      { key: 'A', patch: 'diff of s0-1' },
      { key: 'C', patch: 'diff of s1-1' },
    ]);
  });

  it('joins regression and reproduction results by key', () => {
    const joined = combineValidation(
      new Map([
        ['A', { regressionFailures: 2 }],
        ['B', { regressionFailures: 0 }],
      ]),
      new Map([
        ['B', { reproductionPassed: true }],
        ['C', { reproductionPassed: false }],
      ]),
    );
    expect([...joined]).toEqual([
      ['A', { regressionFailures: 2 }],
      ['B', { regressionFailures: 0, reproductionPassed: true }],
      ['C', { reproductionPassed: false }],
    ]);
    expect(combineValidation().size).toBe(0);
  });
});
