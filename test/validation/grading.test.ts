import { describe, expect, it } from 'vitest';
import { evalReport, resolutionStatus, statusMapFromLog, testsReport } from '../../validation/grading.ts';
import { parseLogDjango, parseLogPytest } from '../../src/languages/python/log-parsers.ts';

const START = '>>>>> Start Test Output';
const END = '>>>>> End Test Output';

function wrap(body: string): string {
  return `+ git apply -v -\nApplied patch cleanly.\n+ : '${START}'\n${body}\n+ : '${END}'\n`;
}

describe('statusMapFromLog', () => {
  it('parses only between the markers', () => {
    const log = `PASSED before.py::x\n${wrap('PASSED t.py::a\nFAILED t.py::b - boom')}PASSED after.py::y\n`;
    const { statusMap, found } = statusMapFromLog(log, parseLogPytest);
    expect(found).toBe(true);
    expect(statusMap).toEqual({ 't.py::a': 'PASSED', 't.py::b': 'FAILED' });
  });

  it('falls back to the whole log when nothing between the markers parses', () => {
    const log = `PASSED outside.py::x\n${wrap('nothing here')}`;
    expect(statusMapFromLog(log, parseLogPytest, { harness: '5.0.2', unforgeable: false })).toMatchObject({
      statusMap: { 'outside.py::x': 'PASSED' },
      found: true,
    });
    // locfix's rule reads from the start marker on: before it, the patched code's install step and the patch's diff
    // can print result lines
    expect(statusMapFromLog(log, parseLogPytest)).toMatchObject({ found: false, notGraded: 'no test results and no sign the suite ran' });
    expect(statusMapFromLog(`${wrap('nothing here')}\nPASSED outside.py::x`, parseLogPytest)).toMatchObject({ statusMap: { 'outside.py::x': 'PASSED' } });
    // harness 4.1 read only between the markers
    expect(statusMapFromLog(log, parseLogPytest, { harness: '4.1', unforgeable: false })).toMatchObject({ statusMap: {}, found: true });
  });

  it('is unusable with a failure marker or without both markers', () => {
    for (const marker of ['>>>>> Patch Apply Failed', '>>>>> Reset Failed', '>>>>> Tests Errored', '>>>>> Tests Timed Out']) {
      expect(statusMapFromLog(wrap(`PASSED t.py::a\n${marker}`), parseLogPytest).found).toBe(false);
    }
    expect(statusMapFromLog(`+ : '${START}'\nPASSED t.py::a\n`, parseLogPytest).found).toBe(false);
  });
});

describe('testsReport and resolutionStatus', () => {
  const gold = { FAIL_TO_PASS: ['f1', 'f2'], PASS_TO_PASS: ['p1', 'p2'] };

  it('FULL when all F2P pass (XFAIL counts) and all P2P are maintained (SKIPPED counts for P2P only)', () => {
    const report = testsReport({ f1: 'PASSED', f2: 'XFAIL', p1: 'PASSED', p2: 'SKIPPED' }, gold);
    expect(report.FAIL_TO_PASS).toEqual({ success: ['f1', 'f2'], failure: [] });
    expect(report.PASS_TO_PASS).toEqual({ success: ['p1', 'p2'], failure: [] });
    expect(resolutionStatus(report)).toBe('RESOLVED_FULL');
  });

  it('a skipped F2P test is a failure; a missing test is a failure', () => {
    const report = testsReport({ f1: 'SKIPPED', p1: 'PASSED', p2: 'PASSED' }, gold);
    expect(report.FAIL_TO_PASS).toEqual({ success: [], failure: ['f1', 'f2'] });
    expect(resolutionStatus(report)).toBe('RESOLVED_NO');
  });

  it('PARTIAL when some F2P pass and all P2P pass; NO when a P2P test breaks', () => {
    expect(resolutionStatus(testsReport({ f1: 'PASSED', f2: 'FAILED', p1: 'PASSED', p2: 'PASSED' }, gold))).toBe('RESOLVED_PARTIAL');
    expect(resolutionStatus(testsReport({ f1: 'PASSED', f2: 'PASSED', p1: 'ERROR', p2: 'PASSED' }, gold))).toBe('RESOLVED_NO');
  });

  it('empty lists count as fully passing', () => {
    expect(resolutionStatus(testsReport({}, { FAIL_TO_PASS: [], PASS_TO_PASS: [] }))).toBe('RESOLVED_FULL');
    expect(resolutionStatus(testsReport({ f: 'PASSED' }, { FAIL_TO_PASS: ['f'], PASS_TO_PASS: [] }))).toBe('RESOLVED_FULL');
  });
});

describe('evalReport (report.json content)', () => {
  const gold = { FAIL_TO_PASS: ['test_a (m.T)'], PASS_TO_PASS: ['test_b (m.T)'] };
  const djangoLog = wrap('test_a (m.T) ... ok\ntest_b (m.T) ... some output\nok');

  it('has the harness shape and resolves a Django log with a multi-line ok', () => {
    const report = evalReport('django__django-1', 'diff --git a/x b/x', djangoLog, gold, parseLogDjango);
    expect(Object.keys(report)).toEqual(['django__django-1']);
    expect(report['django__django-1']).toEqual({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
      tests_status: {
        FAIL_TO_PASS: { success: ['test_a (m.T)'], failure: [] },
        PASS_TO_PASS: { success: ['test_b (m.T)'], failure: [] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      },
      infra_failure: false,
      grading: { harness: '5.0.2', unforgeable: true, rules: expect.arrayContaining(['harness 5.0.2: exit-code check (#620)']) },
    });
  });

  it('a None patch and an unusable log are not applied and not resolved', () => {
    expect(evalReport('i', null, djangoLog, gold, parseLogDjango).i).toEqual({
      patch_is_None: true,
      patch_exists: false,
      patch_successfully_applied: false,
      resolved: false,
      infra_failure: false,
      grading: expect.objectContaining({ harness: '5.0.2' }),
    });
    const noMarkers = evalReport('i', 'p', 'test_a (m.T) ... ok', gold, parseLogDjango).i;
    expect(noMarkers.patch_successfully_applied).toBe(false);
    expect(noMarkers.resolved).toBe(false);
    expect(noMarkers.tests_status).toBeUndefined();
  });
});
