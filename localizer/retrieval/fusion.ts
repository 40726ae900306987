/**
 * Rank fusion over file-level score lists ("channels": one retriever × one query, or a boost).
 *
 * Two standalone methods: reciprocal-rank fusion (uses ranks only) and weighted score fusion (uses
 * normalized scores, so a channel that is very sure about one file can say so). Both are deterministic:
 * ties are broken by path so reruns give identical rankings.
 */

export type FileScores = ReadonlyMap<string, number>;

export interface Channel {
  /** e.g. "raw/dense", "structural/bm25-file", "definitions" */
  label: string;
  scores: FileScores;
  /** relative weight; 0 switches the channel off */
  weight: number;
}

export interface RankedFile {
  path: string;
  score: number;
}

/** Highest score first; equal scores in path order. */
export function rankFiles(scores: FileScores): RankedFile[] {
  return [...scores.entries()].map(([path, score]) => ({ path, score })).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Reciprocal-rank fusion: score(f) = Σ_c weight_c / (k + rank_c(f)), rank 1-based; files a channel did not
 * return contribute nothing for it. k = 60 is the usual constant (Cormack et al.).
 */
export function reciprocalRankFusion(channels: readonly Channel[], k = 60): Map<string, number> {
  if (!(k >= 0)) throw new Error(`RRF constant k must be >= 0, got ${k}`);
  const fused = new Map<string, number>();
  for (const channel of channels) {
    if (channel.weight === 0) continue;
    rankFiles(channel.scores).forEach((entry, i) => {
      if (!(entry.score > 0)) return;
      fused.set(entry.path, (fused.get(entry.path) ?? 0) + channel.weight / (k + i + 1));
    });
  }
  return fused;
}

export type Normalization = 'max' | 'minmax';

/**
 * Scales one channel to [0, 1]. 'max' divides by the best score (keeps how far behind the others are);
 * 'minmax' also maps the weakest returned score to 0 (for scores with a large floor, e.g. cosine). Files
 * with a non-positive score are dropped under 'max'.
 */
export function normalizeScores(scores: FileScores, how: Normalization): Map<string, number> {
  const out = new Map<string, number>();
  if (scores.size === 0) return out;
  let max = -Infinity;
  let min = Infinity;
  for (const s of scores.values()) {
    if (s > max) max = s;
    if (s < min) min = s;
  }
  if (how === 'max') {
    if (!(max > 0)) return out;
    for (const [p, s] of scores) if (s > 0) out.set(p, s / max);
    return out;
  }
  const span = max - min;
  for (const [p, s] of scores) out.set(p, span > 0 ? (s - min) / span : 1);
  return out;
}

/** Weighted score fusion: score(f) = Σ_c weight_c · normalized_c(f). */
export function weightedScoreFusion(channels: readonly Channel[], how: Normalization = 'max'): Map<string, number> {
  const fused = new Map<string, number>();
  for (const channel of channels) {
    if (channel.weight === 0) continue;
    for (const [p, s] of normalizeScores(channel.scores, how)) {
      fused.set(p, (fused.get(p) ?? 0) + channel.weight * s);
    }
  }
  return fused;
}

/**
 * BLAgent's candidate pool (§2.3): the top-m files of each query's ranking, concatenated in query order,
 * duplicates dropped at their later occurrence, capped at `cap`.
 */
export function candidatePool(rankings: ReadonlyArray<readonly string[]>, m: number, cap: number): string[] {
  const pool: string[] = [];
  const seen = new Set<string>();
  for (const ranking of rankings) {
    for (const path of ranking.slice(0, m)) {
      if (pool.length >= cap) return pool;
      if (seen.has(path)) continue;
      seen.add(path);
      pool.push(path);
    }
  }
  return pool;
}
