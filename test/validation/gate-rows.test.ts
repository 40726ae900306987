/**
 * The gate's verdict on one row from its runs' outcomes (validation/gate.ts): repeated gold runs that disagree are
 * flaky, and the dataset's known-bad list is shown beside the verdict, never instead of it.
 */
import { describe, expect, it } from 'vitest';
import type { InstanceOutcome } from '../../validation/evaluate.ts';
import { gateRow } from '../../validation/gate.ts';
import { DEFAULT_GRADING_RULES } from '../../validation/grading-rules.ts';
import { stubRow } from '../support/rows.ts';

const outcome = (id: string, resolved: boolean, completed = true): InstanceOutcome => ({ instanceId: id, completed, resolved, reused: false, durationMs: 1 });

describe('gate rows', () => {
  it('gold runs that disagree are flaky; the empty patch is judged apart', async () => {
    const row = stubRow('o__r-1');
    const gated = await gateRow(row, [outcome('o__r-1', true), outcome('o__r-1', false)], outcome('o__r-1', false), '/nowhere', DEFAULT_GRADING_RULES);
    expect(gated).toMatchObject({ passes: false, reasons: ['flaky'], gold: [true, false], empty: false });
  });

  it("a row on the dataset's known-bad list is run all the same, the list's reason shown beside", async () => {
    // babel__babel-13928 is on the Multilingual list (src/harness/known-gold-failures.json)
    const row = stubRow('babel__babel-13928');
    const gated = await gateRow(row, [outcome(row.instance_id, true)], outcome(row.instance_id, false), '/nowhere', DEFAULT_GRADING_RULES);
    expect(gated.passes).toBe(true);
    expect(gated.knownBad).toMatch(/^SWE-bench\/SWE-bench_Multilingual: /);
    const failed = await gateRow(row, [outcome(row.instance_id, false, false)], undefined, '/nowhere', DEFAULT_GRADING_RULES);
    expect(failed.reasons).toEqual(['environment', 'empty-environment']);
  });
});
