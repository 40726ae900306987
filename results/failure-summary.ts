/**
 * The summary of a run's instance analyses: how many of each failure category, over which denominator (judged
 * instances for outcomes, all instances for work that did not happen), and the reasons and causes behind them.
 */
import { FAILURE_CATEGORIES, NOT_JUDGED, type FailureCategory, type InstanceAnalysis } from './failure-analysis.ts';

export interface CategoryCount {
  count: number;
  /** share of the judged instances (those evaluated, or stopped for a reason of their own); for not-evaluated and
   * not-reached, share of all instances */
  share: number;
  /** share of the unresolved judged instances (the paper's Figure 18b denominator); undefined for 'resolved'
   * and the categories of work not done */
  shareOfUnresolved?: number;
  instances: string[];
}

export interface FailureSummary {
  total: number;
  /** instances with an outcome: total less not-evaluated and not-reached (every rate's denominator) */
  judged: number;
  /** judged and not resolved */
  unresolved: number;
  /** why instances were not judged, with how many each reason stopped */
  notJudgedReasons: Record<string, number>;
  categories: Record<FailureCategory, CategoryCount>;
  byRepo: Record<string, Record<FailureCategory, number>>;
  emptyReasons: Record<string, number>;
  /** unresolved instances whose evaluation logs show an infrastructure fault, as "tier: reason" → count */
  infraFailures: Record<string, number>;
  /** unresolved instances the dataset's own gold patch does not resolve either */
  knownGoldFailures: string[];
  /** not-reached instances by what stopped them: "infrastructure: model-unreachable", "configuration: …", or
   * "not run yet" */
  notReachedByCause: Record<string, number>;
  /** evaluation errors (judged) by cause and harness tier */
  evaluationErrorsByCause: Record<string, number>;
  /** instances with work owed: not evaluated or not reached for a reason other than the run's plan (a failure of
   * the infrastructure, the configuration or a recording, or a stage not run yet); the run is incomplete */
  unfinished: string[];
  /** the run's gate (validation/gate.ts), when one was run: its rows in this run that pass, how many of those were
   * resolved, and why the others do not pass */
  gate?: { passing: string[]; resolved: number; failing: Record<string, string> };
  /** resolved instances the runner audit flagged (validation/runner-audit.ts); absent when none */
  flaggedResolves?: string[];
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

export function summarizeFailures(analyses: readonly InstanceAnalysis[]): FailureSummary {
  const total = analyses.length;
  const judged = analyses.filter((a) => !NOT_JUDGED.has(a.category)).length;
  const unresolved = analyses.filter((a) => !NOT_JUDGED.has(a.category) && a.category !== 'resolved').length;
  const categories = Object.fromEntries(
    FAILURE_CATEGORIES.map((c) => {
      const instances = analyses
        .filter((a) => a.category === c)
        .map((a) => a.instanceId)
        .sort();
      const denominator = NOT_JUDGED.has(c) ? total : judged;
      const entry: CategoryCount = { count: instances.length, share: denominator ? instances.length / denominator : 0, instances };
      if (c !== 'resolved' && !NOT_JUDGED.has(c)) entry.shareOfUnresolved = unresolved ? instances.length / unresolved : 0;
      return [c, entry];
    }),
  ) as Record<FailureCategory, CategoryCount>;
  const byRepo: Record<string, Record<FailureCategory, number>> = {};
  const emptyReasons: Record<string, number> = {};
  const notJudgedReasons: Record<string, number> = {};
  const infraFailures: Record<string, number> = {};
  for (const a of analyses) {
    if (a.infraFailure) {
      const label = `${a.infraFailure.tier}: ${a.infraFailure.reason}`;
      infraFailures[label] = (infraFailures[label] ?? 0) + 1;
    }
    byRepo[a.repo] ??= Object.fromEntries(FAILURE_CATEGORIES.map((c) => [c, 0])) as Record<FailureCategory, number>;
    byRepo[a.repo][a.category]++;
    if (a.category === 'empty-patch') {
      const reason = a.emptyReason ?? 'unknown';
      emptyReasons[reason] = (emptyReasons[reason] ?? 0) + 1;
    }
    if (NOT_JUDGED.has(a.category)) {
      const reason = `${a.category}: ${a.notJudged ?? 'unknown'}`;
      notJudgedReasons[reason] = (notJudgedReasons[reason] ?? 0) + 1;
    }
  }
  const notReachedByCause = countBy(
    analyses.filter((x) => x.category === 'not-reached'),
    (a) => a.notReachedCause ?? 'not run yet',
  );
  const evaluationErrorsByCause = countBy(
    analyses.filter((x) => x.category === 'evaluation-error'),
    (a) => a.evaluationCause ?? 'unknown',
  );
  const knownGoldFailures = analyses
    .filter((a) => a.knownGoldFailure)
    .map((a) => a.instanceId)
    .sort();
  const flaggedResolves = analyses
    .filter((a) => a.flagged)
    .map((a) => a.instanceId)
    .sort();
  const unfinished = analyses
    .filter((a) => NOT_JUDGED.has(a.category) && !a.leftOut)
    .map((a) => a.instanceId)
    .sort();
  return {
    ...(flaggedResolves.length ? { flaggedResolves } : {}),
    unfinished,
    total,
    judged,
    unresolved,
    notJudgedReasons,
    categories,
    byRepo,
    emptyReasons,
    infraFailures,
    knownGoldFailures,
    notReachedByCause,
    evaluationErrorsByCause,
  };
}
