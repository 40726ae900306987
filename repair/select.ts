/**
 * Picks one patch per instance: majority vote over normalized patches, with Agentless 1.5's filters when
 * validation results are known.
 *
 * Voting order (decides ties): sample k of every set before sample k+1 of any set, sets in order — so the
 * greedy samples come first, and the earliest sample wins a tie.
 * Filters, first non-empty wins: candidates with the fewest regression failures that pass the reproduction
 * test → candidates with the fewest regression failures → every candidate. A filter whose input is unknown
 * for every candidate is skipped (the vote then runs over all non-empty candidates).
 */
import type { CandidateValidation, EmptyPatchReason, RepairSample, Selection, SelectionFilter, VoteEntry } from './types.ts';

export type VotingSample = Pick<RepairSample, 'id' | 'setIndex' | 'sampleIndex' | 'diff' | 'normalized' | 'emptyReason'>;

export function votingOrder<T extends Pick<RepairSample, 'setIndex' | 'sampleIndex'>>(samples: readonly T[]): T[] {
  return [...samples].sort((a, b) => a.sampleIndex - b.sampleIndex || a.setIndex - b.setIndex);
}

/** How far the furthest sample got, from "nothing came back" to "a diff git rejects". */
const REASON_RANK: Record<EmptyPatchReason, number> = {
  'no-locations': 0,
  'model-error': 1,
  'no-edits-parsed': 2,
  'no-edit-matched': 3,
  'no-op': 4,
  'syntax-error': 5,
  'invalid-diff': 6,
};

/** The reason an instance ends without a patch: the one of the sample that got furthest. */
export function instanceEmptyReason(samples: readonly Pick<RepairSample, 'emptyReason'>[]): EmptyPatchReason {
  let best: EmptyPatchReason = 'no-locations';
  for (const s of samples) {
    const r = s.emptyReason ?? 'invalid-diff';
    if (REASON_RANK[r] > REASON_RANK[best]) best = r;
  }
  return best;
}

export function isCandidate(s: Pick<RepairSample, 'emptyReason' | 'normalized' | 'diff'>): boolean {
  return s.emptyReason === undefined && s.normalized !== '' && s.diff !== '';
}

/**
 * @param validation keyed by normalized patch (candidates with identical normalized patches share results)
 */
export function selectPatch(samples: readonly VotingSample[], validation?: ReadonlyMap<string, CandidateValidation>): Selection {
  const ordered = votingOrder(samples);
  const byKey = new Map<string, VoteEntry & { diff: string }>();
  for (const s of ordered) {
    if (!isCandidate(s)) continue;
    const entry = byKey.get(s.normalized);
    if (entry) {
      entry.votes++;
      entry.sampleIds.push(s.id);
      continue;
    }
    const v = validation?.get(s.normalized);
    byKey.set(s.normalized, {
      normalized: s.normalized,
      votes: 1,
      sampleIds: [s.id],
      representative: s.id,
      diff: s.diff,
      ...(v?.regressionFailures !== undefined ? { regressionFailures: v.regressionFailures } : {}),
      ...(v?.reproductionPassed !== undefined ? { reproductionPassed: v.reproductionPassed } : {}),
      eligible: false,
    });
  }
  const entries = [...byKey.values()]; // first-appearance order
  if (entries.length === 0) return { patch: '', filter: 'none', voteTable: [], emptyReason: instanceEmptyReason(samples) };

  const known = entries.filter((e) => e.regressionFailures !== undefined).map((e) => e.regressionFailures!);
  const hasRegression = known.length > 0;
  const fewest = hasRegression ? Math.min(...known) : 0;
  const regressionOk = (e: VoteEntry) => !hasRegression || e.regressionFailures === fewest;
  const hasReproduction = entries.some((e) => e.reproductionPassed !== undefined);

  let eligible: VoteEntry[] = [];
  let filter: SelectionFilter = 'none';
  if (hasReproduction) {
    eligible = entries.filter((e) => regressionOk(e) && e.reproductionPassed === true);
    filter = hasRegression ? 'regression+reproduction' : 'reproduction';
  }
  if (eligible.length === 0 && hasRegression) {
    eligible = entries.filter(regressionOk);
    filter = 'regression';
  }
  if (eligible.length === 0) {
    eligible = entries;
    filter = 'none';
  }
  for (const e of eligible) e.eligible = true;

  const rank = (e: VoteEntry) => entries.indexOf(e as VoteEntry & { diff: string });
  let winner = eligible[0];
  for (const e of eligible) if (e.votes > winner.votes) winner = e; // strict: earlier entries win ties
  const voteTable = [...entries].sort((a, b) => b.votes - a.votes || rank(a) - rank(b)).map(({ diff: _diff, ...e }) => e);
  return {
    patch: (winner as VoteEntry & { diff: string }).diff,
    sampleId: winner.representative,
    normalized: winner.normalized,
    filter,
    voteTable,
  };
}

/**
 * The distinct candidates of an instance in voting order, one per normalized patch, with the representative
 * diff: what the validation stage runs (`validation/regression.ts` and `reproduction.ts` take `{key, patch}`).
 */
export function distinctCandidates(samples: readonly VotingSample[]): Array<{ key: string; patch: string }> {
  const seen = new Map<string, string>();
  for (const s of votingOrder(samples)) if (isCandidate(s) && !seen.has(s.normalized)) seen.set(s.normalized, s.diff);
  return [...seen].map(([key, patch]) => ({ key, patch }));
}

/** Joins regression and reproduction results (each keyed by normalized patch) into selectPatch's input. */
export function combineValidation(
  regression?: ReadonlyMap<string, { regressionFailures: number }>,
  reproduction?: ReadonlyMap<string, { reproductionPassed: boolean }>,
): Map<string, CandidateValidation> {
  const out = new Map<string, CandidateValidation>();
  for (const [key, r] of regression ?? []) out.set(key, { regressionFailures: r.regressionFailures });
  for (const [key, r] of reproduction ?? []) out.set(key, { ...out.get(key), reproductionPassed: r.reproductionPassed });
  return out;
}
