import { describe, expect, it } from 'vitest';
import { clusteredBootstrap, holmAdjust, mcnemarExact, pairedBootstrap, seededRandom, wilcoxonSignedRank } from '../../results/statistics.ts';
import { ci, smallSampleNote } from '../../results/report.ts';

// Reference values below were computed with scipy 1.17.1 (scipy.stats.wilcoxon / binomtest / norm) and by hand.

describe('wilcoxonSignedRank', () => {
  const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
  const zeros = d.map(() => 0);

  it('matches scipy exact p for the textbook example (no ties, no zeros)', () => {
    const r = wilcoxonSignedRank(d, zeros);
    expect(r.method).toBe('exact');
    expect(r.statistic).toBe(24);
    expect(r.pValue).toBeCloseTo(0.041259765625, 12);
  });

  it('matches scipy for more than 50 pairs without ties (normal approximation)', () => {
    // numpy default_rng(11): normal(0, 1, 60) and normal(0.3, 1, 60), rounded to 3 places
    const x = [
      0.034, 1.36, 1.225, -0.51, -0.298, -0.527, 0.57, -0.056, 0.747, -1.847, 1.567, -0.096, 0.68, -0.137, -0.379, 0.463, 0.825, -0.203, -0.153, 0.686, -0.87,
      -1.514, 0.395, -0.671, -1.92, -0.814, -0.468, -1.193, -1.492, 0.037, 0.897, -0.233, -0.744, 0.385, 0.717, -0.3, 0.545, 1.043, -0.207, -0.814, 0.348,
      0.248, 1.099, -1.285, -0.662, -0.838, -1.734, 0.126, 0.528, -0.739, 1.386, 0.822, 0.627, 0.402, 0.956, -1.332, 0.614, 0.603, -1.768, 0.347,
    ];
    const y = [
      0.05,
      1.082,
      -0.139,
      0.282,
      0.643,
      -0.576,
      0.899,
      0.195,
      0.792,
      -0.222,
      1.386,
      0.905,
      0.122,
      0.932,
      1.56,
      2.091,
      -1.274,
      1.183,
      0.765,
      0.206,
      -Math.SQRT1_2,
      1.557,
      -0.962,
      0.867,
      1.602,
      -1.3,
      -0.003,
      -1.009,
      0.544,
      1.814,
      2.324,
      -1.478,
      -0.275,
      1.004,
      1.879,
      0.721,
      -0.446,
      0.597,
      0.283,
      0.096,
      -Math.LOG10E,
      0.687,
      0.608,
      0.207,
      0.078,
      -0.985,
      -0.186,
      1.506,
      0.109,
      -1.14,
      1.634,
      0.83,
      2.408,
      0.363,
      -0.161,
      -1.148,
      1.624,
      2.87,
      -0.521,
      -0.347,
    ];
    const r = wilcoxonSignedRank(x, y);
    expect(r.method).toBe('approx');
    expect(r.statistic).toBe(490);
    expect(r.pValue).toBeCloseTo(0.0017558632988321772, 10);
  });

  it('uses the exact tied-rank distribution for 14-18 pairs only below 14 (scipy: approx with ties beyond 13 pairs)', () => {
    const x = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 0, 1];
    const y = [0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0];
    const r = wilcoxonSignedRank(x, y);
    expect(r.method).toBe('approx');
    expect(r.statistic).toBe(5);
    expect(r.pValue).toBeCloseTo(0.019630657257290667, 10);
  });

  it('handles ties and zeros in small samples like scipy (exact sign flips over tied ranks)', () => {
    const x = [1, 0.5, 0.5, 1, 0, 1, 0.5, 0, 1, 1, 0.5, 0];
    const y = [0.5, 0.5, 0, 0, 0, 0.5, 1, 0.5, 0.5, 1, 0, 0];
    const r = wilcoxonSignedRank(x, y);
    expect(r.zeros).toBe(4);
    expect(r.n).toBe(8);
    expect(r.statistic).toBe(8);
    // by hand: 7 tied |d| of rank 4, one of rank 8; P(W- <= 8) = (1 + 7 + 21 + 1) / 256, two-sided 60/256
    expect(r.pValue).toBeCloseTo(60 / 256, 12);
  });

  it('uses the tie-corrected normal approximation for larger tied samples, as scipy does', () => {
    // solve frequencies in quarters (4 runs), 40 instances, generated once with numpy (seed 5)
    const x = [
      0.75, 1, 0, 1, 0.5, 0.5, 0.75, 0.25, 1, 0, 0.25, 0.25, 0.5, 0.5, 0, 0, 0, 0, 0, 1, 0, 0.75, 0.75, 0.25, 0.25, 0.5, 0.25, 1, 0, 1, 0.75, 1, 0, 0.25, 0.75,
      0.5, 0.75, 0.75, 0.75, 0,
    ];
    const y = [
      1, 0.5, 1, 0.25, 0.25, 1, 0, 0, 0.25, 0.75, 0, 1, 0.25, 0.25, 0.5, 1, 1, 1, 0.25, 0, 0.75, 0.75, 0.75, 0, 0, 0.5, 0.25, 0.5, 1, 0.25, 0.5, 0.25, 0.25, 1,
      0, 0.25, 0, 0, 0.25, 0.75,
    ];
    const r = wilcoxonSignedRank(x, y);
    expect(r.method).toBe('approx');
    expect(r.statistic).toBe(329);
    expect(r.pValue).toBeCloseTo(0.9493388150639782, 9);
    expect(wilcoxonSignedRank(x, y, { continuityCorrection: true }).pValue).toBeCloseTo(0.9556644756122695, 9);
  });

  it('returns p = 1 when every pair is tied', () => {
    expect(wilcoxonSignedRank([1, 2], [1, 2]).pValue).toBe(1);
  });
});

describe('McNemar and Holm', () => {
  it('exact McNemar equals the two-sided binomial test on discordant pairs', () => {
    // 2 pairs favour the reference, 9 the alternative: scipy binomtest(2, 11).pvalue
    const reference = [true, true, ...Array(9).fill(false), true, false];
    const alternative = [false, false, ...Array(9).fill(true), true, false];
    const r = mcnemarExact(reference, alternative);
    expect(r.referenceOnly).toBe(2);
    expect(r.alternativeOnly).toBe(9);
    expect(r.pValue).toBeCloseTo(0.0654296875, 12);
    // 7 against 13: scipy binomtest(7, 20).pvalue
    expect(mcnemarExact([...Array(7).fill(true), ...Array(13).fill(false)], [...Array(7).fill(false), ...Array(13).fill(true)]).pValue).toBeCloseTo(
      0.26317596435546875,
      12,
    );
    expect(mcnemarExact([true, false], [true, false]).pValue).toBe(1);
  });

  it('Holm adjusts step-down and keeps monotonicity', () => {
    const adjusted = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((v, i) => expect(adjusted[i]).toBeCloseTo(v, 12));
    expect(holmAdjust([0.5, 0.9])).toEqual([1, 1]);
  });
});

describe('bootstrap', () => {
  const random = seededRandom(7);
  const reference = Array.from({ length: 300 }, () => (random() < 0.5 ? 1 : 0));
  const alternative = reference.map((v) => (random() < 0.15 ? 1 - v : v));

  it('is reproducible with the fixed seed and sensitive to the seed', () => {
    const a = pairedBootstrap(reference, alternative);
    const b = pairedBootstrap(reference, alternative);
    expect(a).toEqual(b);
    expect(a.resamples).toBe(10_000);
    // continuous data so that percentiles are not pinned to a few discrete values
    const rnd = seededRandom(3);
    const ref = Array.from({ length: 50 }, () => rnd());
    const alt = ref.map((v) => v + rnd() - 0.4);
    expect(pairedBootstrap(ref, alt, { seed: 1 }).low).not.toBe(pairedBootstrap(ref, alt).low);
    expect(pairedBootstrap(ref, alt).low).toBe(pairedBootstrap(ref, alt).low);
  });

  it('brackets the estimate with a width close to the normal-theory interval', () => {
    const r = pairedBootstrap(reference, alternative);
    const diffs = alternative.map((v, i) => v - reference[i]);
    const m = diffs.reduce((s, v) => s + v, 0) / diffs.length;
    const sd = Math.sqrt(diffs.reduce((s, v) => s + (v - m) ** 2, 0) / (diffs.length - 1));
    const halfWidth = (1.96 * sd) / Math.sqrt(diffs.length);
    expect(r.estimate).toBeCloseTo(m, 12);
    expect(r.low).toBeLessThan(m);
    expect(r.high).toBeGreaterThan(m);
    expect((r.high - r.low) / 2).toBeGreaterThan(halfWidth * 0.9);
    expect((r.high - r.low) / 2).toBeLessThan(halfWidth * 1.1);
  });

  it('a constant improvement gives a degenerate interval that excludes zero', () => {
    const r = pairedBootstrap([0, 0, 0, 0], [1, 1, 1, 1]);
    expect([r.low, r.high, r.estimate]).toEqual([1, 1, 1]);
    expect(r.excludesZero).toBe(true);
  });

  it('clustered bootstrap is wider when outcomes are correlated within repositories', () => {
    // every repository is either all-better or all-same: instance resampling overstates certainty
    const clusters: string[] = [];
    const ref: number[] = [];
    const alt: number[] = [];
    for (let repo = 0; repo < 10; repo++) {
      for (let i = 0; i < 30; i++) {
        clusters.push(`repo${repo}`);
        ref.push(0);
        alt.push(repo % 2 === 0 ? 1 : 0);
      }
    }
    const plain = pairedBootstrap(ref, alt);
    const clustered = clusteredBootstrap(ref, alt, clusters);
    expect(clustered.estimate).toBeCloseTo(0.5, 12);
    expect(clustered.high - clustered.low).toBeGreaterThan(3 * (plain.high - plain.low));
    expect(clusteredBootstrap(ref, alt, clusters)).toEqual(clustered);
  });

  it('gives no interval, and no significance, for fewer than two repositories or instances', () => {
    // one repository, 12 instances, one better: it printed "0.083 [0.083, 0.083] *" before
    const ref = Array(12).fill(0);
    const alt = [1, ...Array(11).fill(0)];
    const clustered = clusteredBootstrap(ref, alt, Array(12).fill('django/django'));
    expect(clustered.estimate).toBeCloseTo(1 / 12, 12);
    expect(clustered.excludesZero).toBe(false);
    expect(clustered.noInterval).toMatch(/one repository/);
    expect(Number.isNaN(clustered.low) && Number.isNaN(clustered.high)).toBe(true);
    const single = pairedBootstrap([0], [1]);
    expect(single.excludesZero).toBe(false);
    expect(single.noInterval).toBe('one instance');
    expect(clusteredBootstrap(ref, alt, [...Array(6).fill('a'), ...Array(6).fill('b')]).noInterval).toBeUndefined();
  });

  it('reads no significance from a clustered interval over fewer than 10 repositories, and says why', () => {
    // 3 repositories, every instance better: 10 distinct resamples, an interval of [1, 1] that excluded zero
    const clusters = ['a', 'a', 'b', 'b', 'c', 'c'];
    const three = clusteredBootstrap([0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], clusters);
    expect(three.low).toBe(1);
    expect(three.excludesZero).toBe(false);
    expect(three.caveat).toMatch(/only 3 repositories: a clustered interval over fewer than 10 clusters/);
    const ten = clusteredBootstrap(
      Array(20).fill(0),
      Array(20).fill(1),
      Array.from({ length: 20 }, (_, i) => `r${i % 10}`),
    );
    expect([ten.excludesZero, ten.caveat]).toEqual([true, undefined]);
  });
});

describe('how the report shows intervals over few units', () => {
  it('prints the caveat instead of a star, and a small-n note under a table over fewer than 30 instances', () => {
    const few = clusteredBootstrap([0, 0, 0, 0], [1, 1, 1, 1], ['a', 'a', 'b', 'b']);
    expect(ci(few)).toBe(
      '1.000 [1.000, 1.000] (only 2 repositories: a clustered interval over fewer than 10 clusters is too narrow to read a difference from)',
    );
    expect(smallSampleNote(12)[0]).toMatch(/^\*Small sample: n = 12 \(< 30\)/);
    expect(smallSampleNote(30)).toEqual([]);
    expect(smallSampleNote(undefined)).toEqual([]);
  });
});
