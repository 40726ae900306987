/**
 * One account of every instance, the same in every summary (a run's closing line, `analyze`, the report): the
 * resolved rate over every selected instance first — work not done counts as not resolved in it until it is
 * rerun, so no failing server or recording can shrink the denominator (issue 52) — then the rate over the judged
 * instances, labelled as such, how the judged ones ended, what was not evaluated or not reached and by what, and
 * what finishes the work.
 */
import { CAUSE_CLASSES } from '../src/run/failure-cause.ts';
import { FAILURE_CATEGORIES, NOT_JUDGED } from './failure-analysis.ts';
import type { FailureSummary } from './failure-summary.ts';

/** "22.2 %", or "—" over nothing: no rate is given over an empty set. */
export function percentOf(count: number, over: number): string {
  return over > 0 ? `${((100 * count) / over).toFixed(1)} %` : '—';
}

/**
 * The headline: resolved over every selected instance; beside it, labelled, over the judged ones when they differ and
 * over the rows that pass the gate when one was run (rows this machine can resolve at all).
 */
export function headline(s: FailureSummary): string {
  const resolved = s.categories.resolved.count;
  const parts = [`resolved ${resolved} of ${s.total} (${percentOf(resolved, s.total)})`];
  if (s.judged !== s.total) parts.push(`over the ${s.judged} judged: ${s.judged > 0 ? percentOf(resolved, s.judged) : '—'}`);
  if (s.gate) {
    const n = s.gate.passing.length;
    parts.push(`over the ${n} rows that pass the gate: ${s.gate.resolved} (${percentOf(s.gate.resolved, n)})`);
  }
  return parts.join('; ');
}

/** What finishes the work a run owes, by what stopped it; undefined when it owes none. */
export function finishingAdvice(s: FailureSummary): string | undefined {
  if (!(s.unfinished ?? []).length) return undefined;
  const causes = Object.keys(s.notReachedByCause ?? {});
  const classOf = (cause: string) => CAUSE_CLASSES.find((c) => cause.startsWith(`${c}: `));
  const steps: string[] = [];
  if (causes.some((c) => classOf(c) === 'configuration')) steps.push('fix the configuration');
  if (causes.some((c) => classOf(c) === 'recording')) steps.push('record the requests the recording lacks (or run against a live model)');
  if (causes.some((c) => classOf(c) === 'infrastructure')) steps.push('bring the infrastructure back');
  const retry = steps.length || s.categories['not-evaluated'].count > 0 ? ' with --retry-errors' : '';
  return `incomplete: ${s.unfinished.length} instance(s) owe work; ${steps.length ? `${steps.join(', ')}, then ` : ''}rerun the same command${retry} to finish`;
}

export function accountLine(s: FailureSummary): string {
  const c = s.categories;
  const resolved = c.resolved.count;
  const notEvaluated = c['not-evaluated'].count;
  const parts = [`${s.total} instances: ${headline(s)}`];
  // patches waiting for evaluation could still resolve: the bound they leave open
  if (notEvaluated > 0) parts.push(`up to ${resolved + notEvaluated} if the ${notEvaluated} patch(es) not evaluated resolve`);
  if (s.judged > 0) {
    // resolves whose patch talks past the test runner: counted, and said apart from the clean ones
    if (s.flaggedResolves?.length) parts.push(`${s.flaggedResolves.length} of the resolved flagged by the runner audit (${s.flaggedResolves.join(', ')})`);
    const failures = FAILURE_CATEGORIES.filter((k) => k !== 'resolved' && !NOT_JUDGED.has(k) && c[k].count > 0).map((k) => `${k} ${c[k].count}`);
    if (failures.length) parts.push(failures.join(', '));
  }
  if (notEvaluated > 0) parts.push(`not evaluated ${notEvaluated}`);
  const notReached = Object.entries(s.notReachedByCause ?? {});
  if (notReached.length) parts.push(`not reached ${c['not-reached'].count} (${notReached.map(([cause, n]) => `${cause} ${n}`).join(', ')})`);
  const advice = finishingAdvice(s);
  return `${parts.join('; ')}${advice ? `; ${advice}` : ''}`;
}
