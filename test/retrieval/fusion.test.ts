import { describe, expect, it } from 'vitest';
import { candidatePool, normalizeScores, rankFiles, reciprocalRankFusion, weightedScoreFusion } from '../../localizer/retrieval/fusion.ts';

const m = (o: Record<string, number>): Map<string, number> => new Map(Object.entries(o));

describe('fusion', () => {
  it('RRF sums weight/(k+rank) over channels', () => {
    const fused = reciprocalRankFusion(
      [
        { label: 'a', scores: m({ x: 9, y: 5, z: 1 }), weight: 1 },
        { label: 'b', scores: m({ y: 3, x: 2 }), weight: 2 },
      ],
      10,
    );
    expect(fused.get('x')).toBeCloseTo(1 / 11 + 2 / 12, 12);
    expect(fused.get('y')).toBeCloseTo(1 / 12 + 2 / 11, 12);
    expect(fused.get('z')).toBeCloseTo(1 / 13, 12);
    expect(rankFiles(fused).map((r) => r.path)).toEqual(['y', 'x', 'z']);
  });

  it('weighted fusion normalizes by max (default) or min-max', () => {
    const channels = [
      { label: 'bm25', scores: m({ x: 20, y: 10 }), weight: 1 },
      { label: 'dense', scores: m({ y: 0.8, z: 0.4 }), weight: 0.5 },
    ];
    const byMax = weightedScoreFusion(channels);
    expect(byMax.get('x')).toBeCloseTo(1, 12);
    expect(byMax.get('y')).toBeCloseTo(0.5 + 0.5 * 1, 12);
    expect(byMax.get('z')).toBeCloseTo(0.5 * 0.5, 12);
    const byMinMax = weightedScoreFusion(channels, 'minmax');
    expect(byMinMax.get('x')).toBeCloseTo(1, 12);
    expect(byMinMax.get('y')).toBeCloseTo(0 + 0.5, 12);
    expect(byMinMax.get('z')).toBeCloseTo(0, 12);
  });

  it('zero weight switches a channel off; ties rank by path', () => {
    const fused = weightedScoreFusion([
      { label: 'a', scores: m({ b: 1, a: 1 }), weight: 1 },
      { label: 'off', scores: m({ c: 100 }), weight: 0 },
    ]);
    expect(rankFiles(fused).map((r) => r.path)).toEqual(['a', 'b']);
    expect(normalizeScores(m({ a: 0, b: -1 }), 'max').size).toBe(0);
    expect(normalizeScores(m({ a: 2, b: 2 }), 'minmax').get('a')).toBe(1);
  });

  it('candidate pool = unique(top-m of each list) in order, capped', () => {
    expect(
      candidatePool(
        [
          ['a', 'b', 'c', 'd'],
          ['c', 'e', 'a', 'f'],
        ],
        3,
        15,
      ),
    ).toEqual(['a', 'b', 'c', 'e']);
    expect(
      candidatePool(
        [
          ['a', 'b', 'c'],
          ['d', 'e'],
        ],
        3,
        4,
      ),
    ).toEqual(['a', 'b', 'c', 'd']);
  });
});
