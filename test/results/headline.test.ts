/**
 * The headline is over every selected instance (issue 52): a model server that fails the hard instances, or a
 * recording with answers removed, moves them to "not reached" — and they stay in the denominator, counted as not
 * resolved until rerun, with the rate over the judged ones beside it and labelled. Work owed makes the run
 * incomplete, with what finishes it; work the run's plan left out (--stop-after) is not owed.
 */
import { describe, expect, it } from 'vitest';
import type { FailureCategory, InstanceAnalysis } from '../../results/failure-analysis.ts';
import { summarizeFailures } from '../../results/failure-summary.ts';
import { accountLine, finishingAdvice, headline } from '../../results/instance-account.ts';

function analysis(id: string, category: FailureCategory, extra: Partial<InstanceAnalysis> = {}): InstanceAnalysis {
  return { instanceId: `o__r-${id}`, repo: 'o/r', category, fileCorrect: true, functionCorrect: true, ...extra };
}

const judged = [analysis('1', 'resolved'), analysis('2', 'resolved')];

describe('one denominator: every selected instance (issue 52)', () => {
  it('a model server failing the hard instances cannot raise the headline', () => {
    const honest = summarizeFailures([...judged, ...['3', '4', '5', '6', '7', '8', '9'].map((id) => analysis(id, 'file'))]);
    const gamed = summarizeFailures([
      ...judged,
      ...['3', '4', '5', '6', '7', '8', '9'].map((id) => analysis(id, 'not-reached', { notReachedCause: 'infrastructure: server-error' })),
    ]);
    expect(headline(honest)).toBe('resolved 2 of 9 (22.2 %)');
    // before: "2 judged; resolved 2 (100.0 %)"
    expect(headline(gamed)).toBe('resolved 2 of 9 (22.2 %); over the 2 judged: 100.0 %');
    expect(accountLine(gamed)).toBe(
      '9 instances: resolved 2 of 9 (22.2 %); over the 2 judged: 100.0 %; not reached 7 (infrastructure: server-error 7); ' +
        'incomplete: 7 instance(s) owe work; bring the infrastructure back, then rerun the same command with --retry-errors to finish',
    );
    expect(finishingAdvice(honest)).toBeUndefined();
  });

  it('a recording gap is told to record, not to wait for infrastructure; nothing judged gives no rate', () => {
    const s = summarizeFailures(['1', '2'].map((id) => analysis(id, 'not-reached', { notReachedCause: 'recording: recording-gap' })));
    expect(accountLine(s)).toBe(
      '2 instances: resolved 0 of 2 (0.0 %); over the 0 judged: —; not reached 2 (recording: recording-gap 2); incomplete: 2 instance(s) owe work; ' +
        'record the requests the recording lacks (or run against a live model), then rerun the same command with --retry-errors to finish',
    );
    expect(accountLine(summarizeFailures([]))).toBe('0 instances: resolved 0 of 0 (—)');
  });

  it('work the plan left out is not owed; a stage not run yet is, and resumes without --retry-errors', () => {
    const stopped = summarizeFailures([analysis('1', 'not-reached', { notReachedCause: 'left out by the run', leftOut: true }), ...judged]);
    expect(accountLine(stopped)).toBe('3 instances: resolved 2 of 3 (66.7 %); over the 2 judged: 100.0 %; not reached 1 (left out by the run 1)');
    expect(stopped.unfinished).toEqual([]);
    const notYet = summarizeFailures([analysis('1', 'not-reached'), ...judged]);
    expect(finishingAdvice(notYet)).toBe('incomplete: 1 instance(s) owe work; rerun the same command to finish');
  });

  it('patches not evaluated count as not resolved, with the bound they leave open', () => {
    const s = summarizeFailures([...judged, analysis('3', 'file'), analysis('4', 'not-evaluated'), analysis('5', 'not-evaluated')]);
    expect(accountLine(s)).toBe(
      '5 instances: resolved 2 of 5 (40.0 %); over the 3 judged: 66.7 %; up to 4 if the 2 patch(es) not evaluated resolve; file 1; not evaluated 2; ' +
        'incomplete: 2 instance(s) owe work; rerun the same command with --retry-errors to finish',
    );
  });
});
