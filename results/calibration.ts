/**
 * Calibration of confidence signals on a labelled run: for each signal, the precision of Top-1 by confidence
 * bucket (the points of a reliability diagram) and the AUROC of the signal as a predictor of a right first
 * file (0.5: the signal says nothing; 1: it separates right from wrong perfectly). Buckets hold about equal
 * numbers of instances, and equal values never straddle two buckets, so a signal with few distinct values
 * (agreement shares) gets fewer buckets.
 */
import { top1Hit, type TierRun } from './tier-run.ts';

export interface CalibrationBucket {
  /** smallest and largest signal value in the bucket */
  lo: number;
  hi: number;
  n: number;
  meanValue: number;
  /** share of the bucket's instances whose first file is a gold file */
  top1: number;
}

export interface SignalCalibration {
  signal: string;
  /** instances with gold and an answer that has the signal */
  n: number;
  /** instances with gold whose answer lacks the signal (failed runs included) */
  missing: number;
  top1: number;
  auroc: number | undefined;
  buckets: CalibrationBucket[];
}

/** Mann–Whitney AUROC: P(signal of a hit > signal of a miss), ties counting one half. */
export function auroc(points: ReadonlyArray<{ value: number; hit: number }>): number | undefined {
  const sorted = [...points].sort((a, b) => a.value - b.value);
  const hits = sorted.filter((p) => p.hit).length;
  const misses = sorted.length - hits;
  if (!hits || !misses) return undefined;
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.value === sorted[i]!.value) j++;
    const midRank = (i + 1 + j) / 2; // 1-based average rank of the tie group
    for (let k = i; k < j; k++) if (sorted[k]!.hit) rankSum += midRank;
    i = j;
  }
  return (rankSum - (hits * (hits + 1)) / 2) / (hits * misses);
}

/** Equal-count buckets over ascending values, never splitting a run of equal values. */
export function buckets(points: ReadonlyArray<{ value: number; hit: number }>, count = 10): CalibrationBucket[] {
  const sorted = [...points].sort((a, b) => a.value - b.value);
  const size = Math.max(1, Math.ceil(sorted.length / count));
  const out: CalibrationBucket[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = Math.min(sorted.length, i + size);
    while (j < sorted.length && sorted[j]!.value === sorted[j - 1]!.value) j++;
    const group = sorted.slice(i, j);
    out.push({
      lo: group[0]!.value,
      hi: group[group.length - 1]!.value,
      n: group.length,
      meanValue: group.reduce((s, p) => s + p.value, 0) / group.length,
      top1: group.reduce((s, p) => s + p.hit, 0) / group.length,
    });
    i = j;
  }
  return out;
}

/** One labelled answer: its signals (undefined: the run failed) and whether its first file is a gold file. */
export interface LabelledAnswer {
  confidence: Readonly<Record<string, number>> | undefined;
  hit: number;
}

/** Every signal that some answer carries, calibrated; answers without a signal count as missing for it. */
export function calibrateAnswers(answers: readonly LabelledAnswer[], bucketCount = 10): SignalCalibration[] {
  const names = new Set<string>();
  for (const a of answers) for (const name of Object.keys(a.confidence ?? {})) names.add(name);
  return [...names].sort().map((signal) => {
    const points: Array<{ value: number; hit: number }> = [];
    let missing = 0;
    for (const a of answers) {
      const value = a.confidence?.[signal];
      if (value === undefined) missing += 1;
      else points.push({ value, hit: a.hit });
    }
    return {
      signal,
      n: points.length,
      missing,
      top1: points.length ? points.reduce((s, p) => s + p.hit, 0) / points.length : 0,
      auroc: auroc(points),
      buckets: buckets(points, bucketCount),
    };
  });
}

/** Every signal of a run's answers, calibrated against the run's gold files. */
export function calibrateRun(run: TierRun, bucketCount = 10): SignalCalibration[] {
  const labelled = run.instances.filter((id) => run.gold[id]?.length);
  return calibrateAnswers(
    labelled.map((id) => {
      const answer = run.answers.get(id);
      return { confidence: answer?.confidence, hit: top1Hit(answer?.files, run.gold[id]) ?? 0 };
    }),
    bucketCount,
  );
}

const f3 = (x: number | undefined): string => (x === undefined ? '–' : x.toFixed(3));
const fv = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(3));

/** The calibration as text: one block per signal, one line per bucket. */
export function formatCalibration(label: string, signals: readonly SignalCalibration[]): string {
  const lines = [`calibration of ${label}`];
  if (!signals.length) lines.push('  (no answer carries a confidence signal)');
  for (const s of signals) {
    lines.push(`  ${s.signal}: n ${s.n} (${s.missing} without it), Top-1 ${f3(s.top1)}, AUROC ${f3(s.auroc)}`);
    for (const b of s.buckets) lines.push(`    [${fv(b.lo)} … ${fv(b.hi)}]  n ${String(b.n).padStart(4)}  Top-1 ${f3(b.top1)}`);
  }
  return lines.join('\n');
}
