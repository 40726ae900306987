/**
 * The harness releases as a table (src/languages/harness-releases.ts): a release is one record of switches, chosen by name
 * once; the report's rule list is generated from it, word for word what it was when it was written by hand (so
 * reports before and after read the same), and every switch of 5.0.2 is one 4.1 lacks.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_HARNESS, HARNESS_RELEASES, HARNESS_VERSIONS, parseHarnessVersion, releaseRuleNames } from '../../src/languages/harness-releases.ts';
import { gradingRuleNames } from '../../validation/grading-rules.ts';

describe('the harness release table', () => {
  it('lists the releases, the default first, and reads every spelling --harness took', () => {
    expect(HARNESS_VERSIONS).toEqual(['5.0.2', '4.1']);
    expect(DEFAULT_HARNESS).toBe('5.0.2');
    for (const text of ['5', '5.0', '5.0.2', 'v5.0.2', ' 5.0.2 ']) expect(parseHarnessVersion(text)).toBe('5.0.2');
    for (const text of ['4', '4.1', '4.1.0', 'v4.1']) expect(parseHarnessVersion(text)).toBe('4.1');
    expect(() => parseHarnessVersion('3.0')).toThrow('unknown harness version "3.0"; known: 5.0.2, 4.1');
  });

  it("generates the report's rule names from the switches, as they were written by hand", () => {
    expect(releaseRuleNames('5.0.2')).toEqual([
      'harness 5.0.2: exit-code check (#620)',
      'suite-ran evidence',
      'skipped FAIL_TO_PASS fails, skipped PASS_TO_PASS is maintained',
      'truncated parametrized ids (#290)',
      'whole-log fallback (#402)',
      'infrastructure labels (#586)',
    ]);
    expect(releaseRuleNames('4.1')).toEqual(['harness 4.1: results between the markers, last status wins, exact test ids']);
    expect(gradingRuleNames({ harness: '4.1', unforgeable: true }).at(-1)).toMatch(/^locfix unforgeable: failure wins per test/);
  });

  it('4.1 has none of the switches 5.0.2 added', () => {
    const { grading, parsing } = HARNESS_RELEASES['4.1'];
    expect(Object.values(grading).some(Boolean)).toBe(false);
    expect(Object.values(parsing).some(Boolean)).toBe(false);
    expect(Object.values(HARNESS_RELEASES['5.0.2'].grading).every(Boolean)).toBe(true);
  });
});
