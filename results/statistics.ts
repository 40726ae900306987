/**
 * Statistics for comparing runs and localizers.
 *
 * Conventions follow the references users compare against:
 * - Wilcoxon signed-rank as scipy.stats.wilcoxon (zero_method "wilcox", two-sided; exact distribution for
 *   small samples without ties or zeros, normal approximation with tie correction otherwise);
 * - exact two-sided McNemar (binomial on the discordant pairs) with Holm's step-down adjustment;
 * - percentile paired bootstrap and repository-clustered bootstrap with 10,000 resamples and seed 1729, as
 *   in the explorer study. The generator is seeded, so a report is reproducible run to run and machine to
 *   machine. A bootstrap over fewer than two units (instances, or repositories for the clustered one) has no
 *   interval: every resample is the sample itself, and a zero-width "interval" would look significant.
 *
 * The tests are computed by @stdlib's packages (maintained, tested against R) rather than by hand;
 * test/results/statistics.test.ts checks each against the values SciPy gives for the same input.
 */
import binomialTest from '@stdlib/stats-binomial-test';
import padjust from '@stdlib/stats-padjust';
import wilcoxon from '@stdlib/stats-wilcoxon';

/** mulberry32: tiny, fast, good enough for resampling indices; identical across platforms. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const DEFAULT_BOOTSTRAP = { resamples: 10_000, seed: 1729, confidence: 0.95 } as const;

export interface BootstrapOptions {
  resamples?: number;
  seed?: number;
  confidence?: number;
}

export interface ConfidenceInterval {
  /** the statistic on the original sample */
  estimate: number;
  low: number;
  high: number;
  n: number;
  resamples: number;
  /** true when the interval excludes zero (a supported directional difference) */
  excludesZero: boolean;
  /** why there is no interval (low and high are NaN), e.g. fewer than two repositories */
  noInterval?: string;
  /** why the interval is shown but no significance is read from it (`excludesZero` false), e.g. too few clusters */
  caveat?: string;
}

/**
 * Below this many clusters a cluster bootstrap has too few distinct resamples (3 repositories: 10) and comes
 * out narrower than the per-instance one: its interval is shown, no significance is read from it.
 */
export const MIN_CLUSTERS_FOR_SIGNIFICANCE = 10;

/** The answer of a bootstrap that cannot resample: the estimate alone, and why. */
function noInterval(estimate: number, n: number, reason: string): ConfidenceInterval {
  return { estimate, low: NaN, high: NaN, n, resamples: 0, excludesZero: false, noInterval: reason };
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/**
 * Percentile of a sorted array with linear interpolation between order statistics (numpy's default
 * "linear" method), so intervals match what numpy.percentile reports on the same resamples.
 */
export function percentileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function interval(estimate: number, stats: number[], n: number, confidence: number): ConfidenceInterval {
  stats.sort((a, b) => a - b);
  const alpha = 1 - confidence;
  const low = percentileSorted(stats, alpha / 2);
  const high = percentileSorted(stats, 1 - alpha / 2);
  return { estimate, low, high, n, resamples: stats.length, excludesZero: low > 0 || high < 0 };
}

/**
 * Paired percentile bootstrap of the mean difference `alternative - reference` over aligned instances.
 * Both arrays hold one value per instance, in the same order.
 */
export function pairedBootstrap(reference: readonly number[], alternative: readonly number[], options: BootstrapOptions = {}): ConfidenceInterval {
  if (reference.length !== alternative.length) {
    throw new Error(`pairedBootstrap: ${reference.length} reference values vs ${alternative.length} alternative values`);
  }
  const { resamples, seed, confidence } = { ...DEFAULT_BOOTSTRAP, ...options };
  const diffs = alternative.map((v, i) => v - reference[i]);
  const n = diffs.length;
  if (n < 2) return noInterval(n ? diffs[0] : NaN, n, n ? 'one instance' : 'no instances');
  const random = seededRandom(seed);
  const stats = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += diffs[Math.floor(random() * n)];
    stats[r] = sum / n;
  }
  return interval(mean(diffs), stats, n, confidence);
}

/**
 * Repository-clustered bootstrap: resample clusters (repositories) with replacement and keep every aligned
 * instance of each sampled cluster; the statistic is the mean difference over all kept instances. Instances
 * of one repository are not independent, so this is the sensitivity check the explorer study reports.
 */
export function clusteredBootstrap(
  reference: readonly number[],
  alternative: readonly number[],
  clusters: readonly string[],
  options: BootstrapOptions = {},
): ConfidenceInterval {
  if (reference.length !== alternative.length || clusters.length !== reference.length) {
    throw new Error('clusteredBootstrap: reference, alternative and clusters must have the same length');
  }
  const { resamples, seed, confidence } = { ...DEFAULT_BOOTSTRAP, ...options };
  const byCluster = new Map<string, { sum: number; count: number }>();
  const diffs = alternative.map((v, i) => v - reference[i]);
  diffs.forEach((d, i) => {
    const entry = byCluster.get(clusters[i]) ?? { sum: 0, count: 0 };
    entry.sum += d;
    entry.count += 1;
    byCluster.set(clusters[i], entry);
  });
  // Sorted so the resampling order (and hence the interval) does not depend on input order.
  const groups = [...byCluster.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
  const k = groups.length;
  if (k < 2) return noInterval(k ? mean(diffs) : NaN, diffs.length, k ? 'one repository: no clustered interval' : 'no instances');
  const random = seededRandom(seed);
  const stats = new Array<number>(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < k; i++) {
      const g = groups[Math.floor(random() * k)];
      sum += g.sum;
      count += g.count;
    }
    stats[r] = sum / count;
  }
  const result = interval(mean(diffs), stats, diffs.length, confidence);
  if (k >= MIN_CLUSTERS_FOR_SIGNIFICANCE) return result;
  return {
    ...result,
    excludesZero: false,
    caveat: `only ${k} repositories: a clustered interval over fewer than ${MIN_CLUSTERS_FOR_SIGNIFICANCE} clusters is too narrow to read a difference from`,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Tests

export interface McNemarResult {
  /** pairs where the reference succeeded and the alternative failed */
  referenceOnly: number;
  /** pairs where the alternative succeeded and the reference failed */
  alternativeOnly: number;
  pValue: number;
}

/**
 * Two-sided exact McNemar test on paired binary outcomes: the binomial test of the discordant pairs against
 * p = 1/2 (scipy.stats.binomtest on the same counts), by @stdlib/stats-binomial-test.
 */
export function mcnemarExact(reference: readonly boolean[], alternative: readonly boolean[]): McNemarResult {
  if (reference.length !== alternative.length) throw new Error('mcnemarExact: arrays must be aligned');
  let referenceOnly = 0;
  let alternativeOnly = 0;
  reference.forEach((r, i) => {
    if (r && !alternative[i]) referenceOnly++;
    else if (!r && alternative[i]) alternativeOnly++;
  });
  const n = referenceOnly + alternativeOnly;
  const pValue = n === 0 ? 1 : Math.min(1, binomialTest(referenceOnly, n, { p: 0.5, alternative: 'two-sided' }).pValue);
  return { referenceOnly, alternativeOnly, pValue };
}

/** Holm's step-down adjustment (@stdlib/stats-padjust); returns adjusted p-values in the input order. */
export function holmAdjust(pValues: readonly number[]): number[] {
  if (pValues.length === 0) return [];
  return padjust([...pValues], 'holm') as number[];
}

/** Average ranks (1-based) of |values|, ties sharing the mean rank; also returns the tie group sizes. */
function rankAbsolute(values: readonly number[]): { ranks: number[]; tieSizes: number[] } {
  const order = values.map((v, i) => ({ a: Math.abs(v), i })).sort((x, y) => x.a - y.a);
  const ranks = new Array<number>(values.length);
  const tieSizes: number[] = [];
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1].a === order[start].a) end++;
    const avg = (start + end + 2) / 2;
    for (let j = start; j <= end; j++) ranks[order[j].i] = avg;
    if (end > start) tieSizes.push(end - start + 1);
    start = end + 1;
  }
  return { ranks, tieSizes };
}

export interface WilcoxonResult {
  /** min(W+, W-), as scipy reports for the two-sided test */
  statistic: number;
  wPlus: number;
  wMinus: number;
  pValue: number;
  /** pairs left after dropping zero differences */
  n: number;
  zeros: number;
  method: 'exact' | 'approx';
  z?: number;
}

/**
 * Exact two-sided p-value of W+ under random sign flips of the given ranks (tied ranks allowed: they are
 * multiples of 1/2, so the distribution is counted over doubled, integer ranks).
 */
function exactSignFlipPValue(ranks: readonly number[], wPlus: number): number {
  const doubled = ranks.map((r) => Math.round(r * 2));
  const max = doubled.reduce((a, b) => a + b, 0);
  const counts = new Array<number>(max + 1).fill(0);
  counts[0] = 1;
  for (const r of doubled) {
    for (let s = max; s >= r; s--) counts[s] += counts[s - r];
  }
  const observed = Math.round(wPlus * 2);
  let atMost = 0;
  let atLeast = 0;
  for (let s = 0; s <= max; s++) {
    if (s <= observed) atMost += counts[s];
    if (s >= observed) atLeast += counts[s];
  }
  const total = 2 ** ranks.length;
  return Math.min(1, (2 * Math.min(atMost, atLeast)) / total);
}

/**
 * Wilcoxon signed-rank test on paired samples (two-sided), as scipy.stats.wilcoxon (1.17) computes it with its
 * defaults: zero differences dropped before ranking ("wilcox"). @stdlib/stats-wilcoxon computes the exact null
 * distribution (at most 50 pairs, no ties, no zeros) and the tie-corrected normal approximation (otherwise;
 * continuity correction off by default, as in scipy). One case it does not cover: scipy uses the exact
 * sign-flip distribution of the tied ranks when there are ties or zeros and at most 13 pairs, where stdlib
 * would approximate; that small permutation test stays here.
 */
export function wilcoxonSignedRank(x: readonly number[], y: readonly number[], options: { continuityCorrection?: boolean } = {}): WilcoxonResult {
  if (x.length !== y.length) throw new Error('wilcoxonSignedRank: arrays must be aligned');
  const allDiffs = x.map((v, i) => v - y[i]);
  const diffs = allDiffs.filter((d) => d !== 0);
  const zeros = allDiffs.length - diffs.length;
  const n = diffs.length;
  if (n === 0) return { statistic: 0, wPlus: 0, wMinus: 0, pValue: 1, n, zeros, method: 'approx' };
  const { ranks, tieSizes } = rankAbsolute(diffs);
  let wPlus = 0;
  let wMinus = 0;
  diffs.forEach((d, i) => (d > 0 ? (wPlus += ranks[i]) : (wMinus += ranks[i])));
  const statistic = Math.min(wPlus, wMinus);
  const clean = tieSizes.length === 0 && zeros === 0;
  if (!clean && allDiffs.length <= 13) {
    return { statistic, wPlus, wMinus, pValue: exactSignFlipPValue(ranks, wPlus), n, zeros, method: 'exact' };
  }
  const result = wilcoxon([...x], [...y], { zeroMethod: 'wilcox', correction: options.continuityCorrection ?? false, alternative: 'two-sided' });
  const exact = clean && n <= 50;
  const pValue = Math.min(1, result.pValue);
  if (exact) return { statistic, wPlus, wMinus, pValue, n, zeros, method: 'exact' };
  return { statistic, wPlus, wMinus, pValue, n, zeros, method: 'approx', z: approxZ(n, tieSizes, wPlus) };
}

/** The z score of W+ under the tie-corrected normal approximation (reported beside the p-value). */
function approxZ(n: number, tieSizes: readonly number[], wPlus: number): number {
  const meanRank = (n * (n + 1)) / 4;
  let variance = (n * (n + 1) * (2 * n + 1)) / 24;
  for (const t of tieSizes) variance -= (t * t * t - t) / 48;
  return variance > 0 ? (wPlus - meanRank) / Math.sqrt(variance) : 0;
}
