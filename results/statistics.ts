/**
 * Statistics for comparing runs and localizers.
 *
 * Conventions follow the references users compare against:
 * - Wilcoxon signed-rank as scipy.stats.wilcoxon (zero_method "wilcox", two-sided; exact distribution for
 *   small samples without ties or zeros, normal approximation with tie correction otherwise);
 * - exact two-sided McNemar (binomial on the discordant pairs) with Holm's step-down adjustment;
 * - percentile paired bootstrap and repository-clustered bootstrap with 10,000 resamples and seed 1729, as
 *   in the explorer study (issueloc-explorer-paper §5.3). The generator is seeded, so a report is
 *   reproducible run to run and machine to machine.
 */

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
  if (n === 0) return { estimate: NaN, low: NaN, high: NaN, n, resamples: 0, excludesZero: false };
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
  if (k === 0) return { estimate: NaN, low: NaN, high: NaN, n: 0, resamples: 0, excludesZero: false };
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
  return interval(mean(diffs), stats, diffs.length, confidence);
}

// ---------------------------------------------------------------------------------------------------------
// Distributions

/** Complementary error function (W. J. Cody's rational approximations; relative error below 1e-15). */
export function erfc(x: number): number {
  const ax = Math.abs(x);
  let result: number;
  if (ax < 0.5) {
    const t = x * x;
    const top = (((0.185777706184603153 * t + 3.1611237438705656) * t + 113.864154151050156) * t + 377.485237685302021) * t + 3209.37758913846947;
    const bot = (((t + 23.6012909523441209) * t + 244.024637934444173) * t + 1282.61652607737228) * t + 2844.23683343917062;
    return 1 - (x * top) / bot;
  } else if (ax < 4) {
    const top =
      (((((((2.15311535474403846e-8 * ax + 0.564188496988670089) * ax + 8.88314979438837594) * ax + 66.1191906371416295) * ax + 298.635138197400131) * ax +
        881.95222124176909) *
        ax +
        1712.04761263407058) *
        ax +
        2051.07837782607147) *
        ax +
      1230.33935479799725;
    const bot =
      (((((((ax + 15.7449261107098347) * ax + 117.693950891312499) * ax + 537.181101862009858) * ax + 1621.38957456669019) * ax + 3290.79923573345963) * ax +
        4362.61909014324716) *
        ax +
        3439.36767414372164) *
        ax +
      1230.33935480374942;
    result = Math.exp(-ax * ax) * (top / bot);
  } else {
    const z = 1 / (ax * ax);
    const top =
      ((((0.0163153871373020978 * z + 0.305326634961232344) * z + 0.360344899949804439) * z + 0.125781726111229246) * z + 0.0160837851487422766) * z +
      6.58749161529837803e-4;
    const bot = ((((z + 2.56852019228982242) * z + 1.87295284992346725) * z + 0.527905102951428412) * z + 0.0605183413124413191) * z + 2.33520497626869185e-3;
    result = (Math.exp(-ax * ax) / ax) * (0.564189583547756287 - (z * top) / bot);
  }
  return x < 0 ? 2 - result : result;
}

/** P(Z > z) for a standard normal Z. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** log of n choose k, exact enough for the binomial tails used here. */
function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
export function binomialHalfCdf(k: number, n: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  let total = 0;
  for (let i = 0; i <= k; i++) total += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, total);
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

/** Two-sided exact McNemar test on paired binary outcomes (binomial test on the discordant pairs). */
export function mcnemarExact(reference: readonly boolean[], alternative: readonly boolean[]): McNemarResult {
  if (reference.length !== alternative.length) throw new Error('mcnemarExact: arrays must be aligned');
  let referenceOnly = 0;
  let alternativeOnly = 0;
  reference.forEach((r, i) => {
    if (r && !alternative[i]) referenceOnly++;
    else if (!r && alternative[i]) alternativeOnly++;
  });
  const n = referenceOnly + alternativeOnly;
  const pValue = n === 0 ? 1 : Math.min(1, 2 * binomialHalfCdf(Math.min(referenceOnly, alternativeOnly), n));
  return { referenceOnly, alternativeOnly, pValue };
}

/** Holm's step-down adjustment; returns adjusted p-values in the input order. */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
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
 * Wilcoxon signed-rank test on paired samples (two-sided), following scipy.stats.wilcoxon (1.17) defaults:
 * zero differences are dropped before ranking ("wilcox"); with method "auto", more than 50 pairs use the
 * normal approximation; no ties and no zeros use the exact null distribution; ties or zeros with at most 13
 * pairs use the exact sign-flip distribution of the tied ranks (scipy's deterministic permutation test);
 * anything else the normal approximation with the tie correction (continuity correction off by default).
 */
export function wilcoxonSignedRank(
  x: readonly number[],
  y: readonly number[],
  options: { method?: 'auto' | 'exact' | 'approx'; continuityCorrection?: boolean } = {},
): WilcoxonResult {
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
  const requested = options.method ?? 'auto';
  const pairs = allDiffs.length;
  const clean = tieSizes.length === 0 && zeros === 0;
  const exact = requested === 'exact' || (requested === 'auto' && pairs <= 50 && (clean || pairs <= 13));
  if (exact) {
    const positive = diffs.map((d, i) => (d > 0 ? ranks[i] : 0)).reduce((a, b) => a + b, 0);
    return { statistic, wPlus, wMinus, pValue: exactSignFlipPValue(ranks, positive), n, zeros, method: 'exact' };
  }
  const meanRank = (n * (n + 1)) / 4;
  let variance = (n * (n + 1) * (2 * n + 1)) / 24;
  for (const t of tieSizes) variance -= (t * t * t - t) / 48;
  const se = Math.sqrt(variance);
  const correction = options.continuityCorrection ? 0.5 * Math.sign(statistic - meanRank) : 0;
  const z = se === 0 ? 0 : (statistic - meanRank - correction) / se;
  const pValue = Math.min(1, 2 * normalSf(Math.abs(z)));
  return { statistic, wPlus, wMinus, pValue, n, zeros, method: 'approx', z };
}
