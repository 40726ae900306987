/**
 * Cascade policies evaluated offline on recorded runs of each tier (no model is called): which tier answers
 * each instance, the final ranking, Top-1 and MRR, and what the policy cost — LLM localizer runs (instances
 * sent to a tier that uses a model), the API calls and tokens those answers recorded, and dollars from the
 * spend caps' price table. `bench:cascade` chooses a threshold on one split and reports it on the other with
 * these functions; the live `cascade` localizer applies the same rules (localizer/cascade/policy.ts).
 */
import { localizerMayUseModel } from '../localizer/registry.ts';
import { createHash } from 'node:crypto';
import { costOf, type TokenPrice } from '../src/llm/usage.ts';
import { decideBelow, mergeRankings, thresholdForShare, type MergeRule } from '../localizer/cascade/policy.ts';
import { reciprocalRank, top1Hit, type TierAnswer, type TierRun } from './tier-run.ts';

export interface ReplayTier {
  run: TierRun;
  /** USD per 1M tokens of the tier's model, when known */
  price?: TokenPrice;
  /** escalate from this tier when `signal` < `below` (absent on the last tier) */
  rule?: { signal: string; below: number };
  /** how this tier's answer merges with the answer below it (default replace) */
  merge?: MergeRule;
}

export interface ReplayCost {
  /** instances sent to a tier that uses a model */
  llmRuns: number;
  calls: number;
  tokens: number;
  /** every asked LLM answer recorded its tokens */
  tokensComplete: boolean;
  dollars: number;
}

export interface ReplayOutcome {
  id: string;
  /** index of the last tier asked */
  answeredBy: number;
  reasons: string[];
  files: string[];
  top1: number;
  rr: number;
  cost: ReplayCost;
}

export interface ReplaySummary extends ReplayCost {
  n: number;
  top1: number;
  mrr: number;
  /** share of instances that reached each tier */
  reached: number[];
}

const EMPTY: TierAnswer = { files: [], confidence: {}, calls: 0, promptTokens: 0, completionTokens: 0, tokensRecorded: true, usesLlm: false };

function addCost(cost: ReplayCost, tier: ReplayTier, answer: TierAnswer | undefined): void {
  const usesLlm = answer?.usesLlm ?? localizerMayUseModel(tier.run.localizer);
  if (!usesLlm) return;
  cost.llmRuns += 1;
  if (!answer) return;
  cost.calls += answer.calls;
  cost.tokens += answer.promptTokens + answer.completionTokens;
  if (!answer.tokensRecorded) cost.tokensComplete = false;
  cost.dollars += costOf(tier.price, answer.promptTokens, answer.completionTokens);
}

/** One instance through the tiers. */
export function replayInstance(id: string, gold: readonly string[], tiers: readonly ReplayTier[]): ReplayOutcome {
  const cost: ReplayCost = { llmRuns: 0, calls: 0, tokens: 0, tokensComplete: true, dollars: 0 };
  const reasons: string[] = [];
  let files: string[] = [];
  let answeredBy = 0;
  for (const [i, tier] of tiers.entries()) {
    const answer = tier.run.answers.get(id);
    addCost(cost, tier, answer);
    answeredBy = i;
    if (i === 0) files = (answer ?? EMPTY).files;
    else if (answer) files = mergeRankings(files, answer.files, tier.merge ?? 'replace');
    else reasons.push(`${tier.run.name} has no answer: the answer below stands`);
    if (!tier.rule || i === tiers.length - 1) break;
    const decision = decideBelow((answer ?? EMPTY).confidence, tier.rule.signal, tier.rule.below);
    reasons.push(`${tier.run.name}: ${decision.reason}`);
    if (!decision.escalate) break;
  }
  return { id, answeredBy, reasons, files, top1: top1Hit(files, gold) ?? 0, rr: reciprocalRank(files, gold), cost };
}

/** The policy over `ids` (instances without gold are left out). */
export function replayCascade(
  ids: readonly string[],
  gold: Readonly<Record<string, string[]>>,
  tiers: readonly ReplayTier[],
): { outcomes: ReplayOutcome[]; summary: ReplaySummary } {
  const outcomes = ids.filter((id) => gold[id]?.length).map((id) => replayInstance(id, gold[id]!, tiers));
  const n = outcomes.length;
  const sum = (f: (o: ReplayOutcome) => number): number => outcomes.reduce((s, o) => s + f(o), 0);
  const reached = tiers.map((_, t) => (n ? outcomes.filter((o) => o.answeredBy >= t).length / n : 0));
  return {
    outcomes,
    summary: {
      n,
      top1: n ? sum((o) => o.top1) / n : 0,
      mrr: n ? sum((o) => o.rr) / n : 0,
      reached,
      llmRuns: sum((o) => o.cost.llmRuns),
      calls: sum((o) => o.cost.calls),
      tokens: sum((o) => o.cost.tokens),
      tokensComplete: outcomes.every((o) => o.cost.tokensComplete),
      dollars: sum((o) => o.cost.dollars),
    },
  };
}

/** The cheap tier's signal per instance (-Infinity when its answer lacks it: such answers always escalate). */
export function signalValues(ids: readonly string[], run: TierRun, signal: string): number[] {
  return ids.map((id) => run.answers.get(id)?.confidence[signal] ?? -Infinity);
}

export interface CurvePoint {
  /** the share asked for, and the threshold it gives on these instances */
  share: number;
  threshold: number;
  /** the share actually escalated at that threshold: ties of the signal make it differ from the share asked for */
  escalated: number;
  summary: ReplaySummary;
}

/**
 * Top-1 and cost of a two-tier cascade as the escalation share goes from 0 to 100 % (`steps` + 1 points); the
 * threshold of each point is set on the same instances (a description of the run, not a policy choice).
 */
export function escalationCurve(
  ids: readonly string[],
  gold: Readonly<Record<string, string[]>>,
  cheap: Omit<ReplayTier, 'rule'>,
  upper: ReplayTier,
  signal: string,
  steps = 20,
): CurvePoint[] {
  const scored = ids.filter((id) => gold[id]?.length);
  const values = signalValues(scored, cheap.run, signal);
  const points: CurvePoint[] = [];
  for (let s = 0; s <= steps; s++) {
    const share = s / steps;
    const threshold = thresholdForShare(values, share);
    const summary = replayCascade(scored, gold, [{ ...cheap, rule: { signal, below: threshold } }, upper]).summary;
    points.push({ share, threshold, escalated: summary.reached[1] ?? 0, summary });
  }
  return points;
}

export interface PolicyChoice {
  signal: string;
  /** the dev split's smallest share (grid of 1 %) from which every larger share keeps Top-1 within `tolerance` of always escalating */
  devShare: number;
  threshold: number;
  dev: { policy: ReplaySummary; always: ReplaySummary; never: ReplaySummary };
  /**
   * `policy`: the dev threshold applied unchanged (the `below` rule); `byShare`: the dev share applied to the
   * test half's own (unlabelled) confidences, which is what the `share` rule does in a live run
   */
  test: { policy: ReplaySummary; byShare: ReplaySummary; always: ReplaySummary; never: ReplaySummary };
}

/** Chooses the threshold on `dev` and applies it, unchanged, to `test`. */
export function choosePolicy(
  dev: readonly string[],
  test: readonly string[],
  gold: Readonly<Record<string, string[]>>,
  cheap: Omit<ReplayTier, 'rule'>,
  upper: ReplayTier,
  signal: string,
  tolerance = 0.01,
): PolicyChoice {
  const run = (ids: readonly string[], below: number) => replayCascade(ids, gold, [{ ...cheap, rule: { signal, below } }, upper]).summary;
  const devScored = dev.filter((id) => gold[id]?.length);
  const values = signalValues(devScored, cheap.run, signal);
  const always = run(dev, Infinity);
  // From the top down: the smallest share from which on every larger share stays within tolerance. The first
  // share that merely touches the line is often a dip-and-recover of a noisy half, and does not transfer.
  let devShare = 1;
  let threshold = Infinity;
  for (let s = 100; s >= 0; s--) {
    const t = thresholdForShare(values, s / 100);
    if (run(dev, t).top1 < always.top1 - tolerance - 1e-9) break;
    devShare = s / 100;
    threshold = t;
  }
  return {
    signal,
    devShare,
    threshold,
    dev: { policy: run(dev, threshold), always, never: run(dev, -Infinity) },
    test: {
      policy: run(test, threshold),
      byShare: run(
        test,
        thresholdForShare(
          signalValues(
            test.filter((id) => gold[id]?.length),
            cheap.run,
            signal,
          ),
          devShare,
        ),
      ),
      always: run(test, Infinity),
      never: run(test, -Infinity),
    },
  };
}

/** A fixed two-way split of instance ids by a seeded hash: reruns and other runs split the same way. */
export function splitIds(ids: readonly string[], seed = 'locfix-cascade-1'): { a: string[]; b: string[] } {
  const a: string[] = [];
  const b: string[] = [];
  for (const id of ids) (createHash('sha256').update(`${seed}\0${id}`).digest()[0]! < 128 ? a : b).push(id);
  return { a, b };
}

/** The curve as the text table `locfix calibrate` prints. */
export function formatCurve(signal: string, points: readonly CurvePoint[]): string {
  const lines = [
    `escalation curve by ${signal} (least confident first; ties of the signal can make the share escalated differ from the share asked)`,
    '  asked  escalated  threshold   Top-1    MRR  LLM runs      tokens',
  ];
  for (const p of points) {
    const s = p.summary;
    const t = Number.isFinite(p.threshold) ? p.threshold.toFixed(3) : p.threshold > 0 ? 'all' : 'none';
    lines.push(
      `  ${(p.share * 100).toFixed(0).padStart(4)}%  ${(p.escalated * 100).toFixed(1).padStart(8)}%  ${t.padStart(9)}  ${s.top1.toFixed(3)}  ${s.mrr.toFixed(3)}  ${String(s.llmRuns).padStart(8)}  ${String(s.tokens).padStart(10)}${s.tokensComplete ? '' : '*'}`,
    );
  }
  if (points.some((p) => !p.summary.tokensComplete)) lines.push('  * some answers did not record their tokens');
  return lines.join('\n');
}
