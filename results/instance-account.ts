/**
 * One account of every instance, the same in every summary (a run's closing line, `analyze`): how many were judged
 * and how they ended, how many were not evaluated, how many were not reached and by what, and the command that
 * finishes the work. No rate is given over nothing, and where patches wait for evaluation beside judged work the
 * resolved count is given as the bounds it could still reach.
 */
import { FAILURE_CATEGORIES, NOT_JUDGED } from './failure-analysis.ts';
import type { FailureSummary } from './failure-summary.ts';

function rate(count: number, over: number): string {
  return over > 0 ? ` (${((100 * count) / over).toFixed(1)} %)` : '';
}

export function accountLine(s: FailureSummary): string {
  const c = s.categories;
  const resolved = c.resolved.count;
  const notEvaluated = c['not-evaluated'].count;
  const parts = [`${s.total} instances: ${s.judged} judged`];
  if (s.judged > 0) {
    // patches waiting for evaluation could still resolve: the bounds, not a rate over the judged part alone
    parts.push(
      notEvaluated > 0
        ? `resolved ${resolved}–${resolved + notEvaluated} of ${s.judged + notEvaluated} (${notEvaluated} patches not evaluated yet)`
        : `resolved ${resolved}${rate(resolved, s.judged)}`,
    );
    // resolves whose patch talks past the test runner: counted, and said apart from the clean ones
    if (s.flaggedResolves?.length) parts.push(`${s.flaggedResolves.length} of the resolved flagged by the runner audit (${s.flaggedResolves.join(', ')})`);
    const failures = FAILURE_CATEGORIES.filter((k) => k !== 'resolved' && !NOT_JUDGED.has(k) && c[k].count > 0).map((k) => `${k} ${c[k].count}`);
    if (failures.length) parts.push(failures.join(', '));
  }
  if (notEvaluated > 0) parts.push(`not evaluated ${notEvaluated}`);
  const notReached = Object.entries(s.notReachedByCause ?? {});
  if (notReached.length) parts.push(`not reached ${c['not-reached'].count} (${notReached.map(([cause, n]) => `${cause} ${n}`).join(', ')})`);
  const retry = notReached.some(([cause]) => cause.startsWith('infrastructure')) ? '; rerun with --retry-errors once the infrastructure is back' : '';
  return `${parts.join('; ')}${retry}`;
}
