/**
 * Confidence signals: how sure a file localization is that its first file is right. Every localizer puts the
 * signals it can compute in its artifact (`FileLocalization.confidence`); imported runs get theirs from what
 * the published files carry. A cascade escalates on one of them, and the calibration report measures each
 * against labelled runs. Higher always means surer. Names are shared across localizers where the meaning is
 * the same, so one policy reads the same signal from any tier:
 *
 * | signal            | meaning                                                                                   |
 * |-------------------|-------------------------------------------------------------------------------------------|
 * | `top-ratio`       | score of rank 1 / score of rank 2 (capped at RATIO_CAP; a lone file gets the cap)          |
 * | `top-margin`      | (score 1 − score 2) / score 1, in [0, 1]                                                   |
 * | `channel-agreement` | weighted share of retrieval channels whose own best file is the final first file         |
 * | `query-agreement` | share of the queries (raw/structural, T0/T1) whose own first file is the final first file  |
 * | `stage-agreement` | share of a pipeline's stages (retrieval, Phase 1, EAR; LLM list, embedding list) that agree |
 * | `sample-agreement`| share of an agent's samples whose first file is the final first file                       |
 * | `early-stop`      | 1 − steps / step budget: an agent that answered early was not searching at the end         |
 * | `answer-focus`    | 1 / number of files in the agent's answer                                                 |
 *
 * `top-ratio` and `top-margin` are only given where scores are scores (retrieval, BLAgent's Phase 1 scores),
 * not where they are ranks turned into numbers.
 */

export type ConfidenceSignals = Record<string, number>;

/** A ratio's value when the second score is zero or absent. */
export const RATIO_CAP = 1000;

const round = (x: number): number => Math.round(x * 1e4) / 1e4;

/** `top-ratio` and `top-margin` of a descending score list; empty when there is no positive first score. */
export function scoreSignals(scores: readonly number[]): ConfidenceSignals {
  const [first, second] = scores;
  if (first === undefined || !(first > 0)) return {};
  const next = second !== undefined && second > 0 ? second : 0;
  return {
    'top-ratio': round(next > 0 ? Math.min(RATIO_CAP, first / next) : RATIO_CAP),
    'top-margin': round((first - next) / first),
  };
}

/** Share of the lists whose first item is `top` (lists that are empty count as disagreeing). */
export function agreementWith(top: string | undefined, lists: ReadonlyArray<readonly string[]>, weights?: readonly number[]): number | undefined {
  if (top === undefined || lists.length === 0) return undefined;
  let agree = 0;
  let total = 0;
  lists.forEach((list, i) => {
    const w = weights?.[i] ?? 1;
    if (!(w > 0)) return;
    total += w;
    if (list[0] === top) agree += w;
  });
  return total > 0 ? round(agree / total) : undefined;
}

/** Drops undefined and non-finite values (artifacts are JSON; a signal that cannot be computed is absent). */
export function signals(entries: Record<string, number | undefined>): ConfidenceSignals {
  const out: ConfidenceSignals = {};
  for (const [name, value] of Object.entries(entries)) if (value !== undefined && Number.isFinite(value)) out[name] = value;
  return out;
}

/** `early-stop`: how much of the step budget was left when the agent answered. */
export function earlyStop(steps: number, maxSteps: number): number | undefined {
  return maxSteps > 0 ? round(Math.max(0, 1 - steps / maxSteps)) : undefined;
}
