/**
 * The escalation policy of a cascade, as pure functions shared by the live `cascade` localizer and the offline
 * replay (`results/cascade-replay.ts`, `bench:cascade`), so a policy measured offline is the policy a run
 * applies.
 *
 * A tier answers; its rule says whether the next tier is asked:
 * - `below`: escalate when the tier's `signal` is below the threshold (one instance at a time);
 * - `share`: escalate the least confident `share` of the run (needs every instance's signal first; ties are
 *   broken by instance id, so the share is exact and reruns agree).
 * An answer without the signal (an empty ranking, a localizer that does not give it) is escalated: the
 * cascade has no reason to trust it. The upper tier's answer then replaces the lower one's or is fused with
 * it by reciprocal rank.
 */
import type { ConfidenceSignals } from '../../src/artifacts/confidence.ts';

export type MergeRule = 'replace' | 'fuse';

export interface EscalationDecision {
  escalate: boolean;
  /** the signal's value, when the answer had it */
  value?: number;
  reason: string;
}

/** The `below` rule for one answer. */
export function decideBelow(confidence: ConfidenceSignals | undefined, signal: string, threshold: number): EscalationDecision {
  const value = confidence?.[signal];
  if (value === undefined) return { escalate: true, reason: `no ${signal} signal` };
  return value < threshold
    ? { escalate: true, value, reason: `${signal} ${value} < ${threshold}` }
    : { escalate: false, value, reason: `${signal} ${value} >= ${threshold}` };
}

export interface Scored {
  id: string;
  value: number | undefined;
}

/**
 * The ids the `share` rule escalates: answers without the signal first, then the lowest values, ties by id,
 * until `round(share × n)` are taken (all answers without the signal are taken even past that count).
 */
export function leastConfident(items: readonly Scored[], share: number): Set<string> {
  const k = Math.round(Math.min(1, Math.max(0, share)) * items.length);
  const ordered = [...items].sort((a, b) => {
    const av = a.value ?? -Infinity;
    const bv = b.value ?? -Infinity;
    return av - bv || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  });
  const out = new Set<string>();
  for (const item of ordered) {
    if (out.size >= k && item.value !== undefined) break;
    out.add(item.id);
  }
  return out;
}

/** The `share` rule's decision for one id of a ranked run. */
export function decideShare(chosen: ReadonlySet<string>, id: string, value: number | undefined, signal: string, share: number): EscalationDecision {
  const where = `the least confident ${Math.round(share * 100)} % by ${signal}`;
  if (value === undefined) return { escalate: true, reason: `no ${signal} signal` };
  return chosen.has(id) ? { escalate: true, value, reason: `among ${where}` } : { escalate: false, value, reason: `not among ${where}` };
}

/** Reciprocal-rank constant of the `fuse` merge (Cormack et al.'s usual 60). */
export const FUSE_K = 60;

/**
 * The ranking after an escalation: `replace` keeps the upper tier's answer; `fuse` sums 1/(k + rank) over both
 * answers, ties in the upper tier's order, then the lower one's.
 */
export function mergeRankings(lower: readonly string[], upper: readonly string[], how: MergeRule, k = FUSE_K): string[] {
  if (how === 'replace') return [...upper];
  const score = new Map<string, number>();
  const order = new Map<string, number>();
  for (const list of [upper, lower]) {
    list.forEach((path, i) => {
      score.set(path, (score.get(path) ?? 0) + 1 / (k + i + 1));
      if (!order.has(path)) order.set(path, order.size);
    });
  }
  return [...score.keys()].sort((a, b) => score.get(b)! - score.get(a)! || order.get(a)! - order.get(b)!);
}

/**
 * The value a `below` threshold must have for `share` of `values` to fall under it: the midpoint between the
 * k-th and (k+1)-th smallest value. What the replay chooses on one split and applies to another.
 */
export function thresholdForShare(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const k = Math.round(Math.min(1, Math.max(0, share)) * sorted.length);
  if (k <= 0) return -Infinity;
  if (k >= sorted.length) return Infinity;
  return (sorted[k - 1]! + sorted[k]!) / 2;
}
