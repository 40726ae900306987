/**
 * The regrade benchmark's reshaping and forging (scripts/fidelity-rules.ts): a pre-5.0 log gets the exit code its
 * runner's own summary states, a forged log gets a passing line per listed test before the end marker, and a
 * verdict that changes between rule sets is put down to the rule that changed it.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeFromSummary, forgePasses, reshapeAs50 } from '../../scripts/fidelity-rules.ts';
import { verdictCause } from '../../validation/verdict-cause.ts';
import { evalReport } from '../../validation/grading.ts';
import type { GradingRules } from '../../validation/grading-rules.ts';
import { parseLogPytest } from '../../src/languages/python/log-parsers.ts';

const S = '>>>>> Start Test Output';
const E = '>>>>> End Test Output';
const R41: GradingRules = { harness: '4.1', unforgeable: false };
const R502: GradingRules = { harness: '5.0.2', unforgeable: false };
const LOCFIX: GradingRules = { harness: '5.0.2', unforgeable: true };

describe('exit codes from runner summaries', () => {
  it('reads pytest (old and new closing lines, colour codes), unittest and sympy', () => {
    expect(exitCodeFromSummary('== 1 failed, 3 passed in 0.20s ==', 'pytest')).toBe(1);
    expect(exitCodeFromSummary('\x1b[32m== \x1b[1m8 passed\x1b[0m, 1 skipped in 0.16 seconds ==\x1b[0m', 'pytest_v2')).toBe(0);
    expect(exitCodeFromSummary('=== 2 errors in 1.0s ===', 'pytest_options')).toBe(1);
    expect(exitCodeFromSummary('Ran 3 tests in 0.1s\n\nOK', 'django')).toBe(0);
    expect(exitCodeFromSummary('Ran 3 tests in 0.1s\n\nFAILED (failures=1)', 'django')).toBe(1);
    expect(exitCodeFromSummary('= tests finished: 5 passed, 0 failed, in 0.1 seconds =', 'sympy')).toBe(0);
    expect(exitCodeFromSummary('= tests finished: 5 passed, 1 failed, in 0.1 seconds =', 'sympy')).toBe(1);
    // a runner that never closed did not exit 0
    expect(exitCodeFromSummary('PASSED a.py::t\nTraceback (most recent call last):', 'pytest')).toBe(1);
    expect(exitCodeFromSummary('anything', 'cargo')).toBeUndefined();
  });
});

describe('a forged pre-5.0 log, regraded', () => {
  const honest = `${S}\nPASSED t.py::p2p\nFAILED t.py::f2p - assert 0\nFAILED t.py::other - assert 0\n== 2 failed, 1 passed in 0.1s ==\n${E}\n+ git checkout x t.py\n`;
  const gold = { FAIL_TO_PASS: ['t.py::f2p'], PASS_TO_PASS: ['t.py::p2p'] };

  it('reshapes with the exit code after the end marker and forges passing lines before it', () => {
    const { log, exitCode } = reshapeAs50(honest, 'pytest');
    expect(exitCode).toBe(1);
    expect(log).toContain(`${E}\n>>>>> Test Exit Code: 1\n+ git checkout`);
    const forged = forgePasses(log, [...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS], 'pytest')!;
    expect(forged).toContain(`in 0.1s ==\nPASSED t.py::f2p\nPASSED t.py::p2p\n${E}`);
    expect(forgePasses(log, ['x'], 'cargo')).toBeUndefined();
  });

  it('4.1 and 5.0.2 resolve the forgery (another test fails, so the exit-code check stays silent); locfix does not', () => {
    const forged = forgePasses(reshapeAs50(honest, 'pytest').log, ['t.py::f2p', 't.py::p2p'], 'pytest')!;
    const grade = (rules: GradingRules) => evalReport('x', 'p', forged, gold, parseLogPytest, rules).x;
    expect([grade(R41).resolved, grade(R502).resolved, grade(LOCFIX).resolved]).toEqual([true, true, false]);
    const cause = verdictCause(forged, parseLogPytest, { base: grade(R502).tests_status, other: grade(LOCFIX).tests_status }, { base: R502, other: LOCFIX });
    expect(cause).toBe("result lines after the runner's closing summary left out");
    // with no other failure, 5.0.2's own check refuses it
    const alone = forgePasses(reshapeAs50(honest.replace('FAILED t.py::other - assert 0\n', ''), 'pytest').log, ['t.py::f2p'], 'pytest')!;
    expect(evalReport('x', 'p', alone, gold, parseLogPytest, R502).x).toMatchObject({
      resolved: false,
      not_graded_reason: 'the test command exited 1 but the log reports no failing test',
    });
  });
});
