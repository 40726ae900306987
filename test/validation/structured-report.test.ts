/**
 * pytest's own JUnit report against the log: a real report (pytest 7.2, test/fixtures/runner-reports/) read
 * and matched to the log's node ids, and a log that calls passed what the report does not is not graded.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evalReport } from '../../validation/grading.ts';
import { parseLogPytest } from '../../src/languages/python/log-parsers.ts';
import { normalTestId, parseJunitXml, reportDisagreements } from '../../validation/structured-report.ts';

const xml = readFileSync(new URL('../fixtures/runner-reports/pytest-junit.xml', import.meta.url), 'utf8');

describe("pytest's JUnit report", () => {
  it('reads every test case with its outcome under the node id spelling', () => {
    const report = parseJunitXml(xml)!;
    expect(Object.fromEntries(report)).toEqual({
      'test_calc.test_add': 'failed',
      'test_calc.test_other': 'passed',
      'test_calc.test_param[a/b]': 'passed',
      'test_calc.test_param[c d]': 'passed',
      'test_calc.test_skipped': 'skipped',
      'test_calc.test_xfail': 'skipped',
      'test_calc.TestBox.test_in_class': 'passed',
    });
    expect(normalTestId('test_calc.py::TestBox::test_in_class')).toBe('test_calc.TestBox.test_in_class');
    expect(normalTestId('tests/sub/test_x.py::test_p[a/b.c]')).toBe('tests.sub.test_x.test_p[a/b.c]');
    expect(parseJunitXml('not xml <<<')).toBeUndefined();
    expect(parseJunitXml('<html><body/></html>')).toBeUndefined();
  });

  it('names what the log calls passed and the report does not: failed, skipped, or absent from a module it lists', () => {
    const report = parseJunitXml(xml)!;
    const passed = ['test_calc.py::test_add', 'test_calc.py::test_other', 'test_calc.py::test_skipped', 'test_calc.py::test_gone', 'other.py::test_unlisted'];
    expect(reportDisagreements(passed, report)).toEqual([
      { test: 'test_calc.py::test_add', report: 'failed' },
      { test: 'test_calc.py::test_skipped', report: 'skipped' },
      { test: 'test_calc.py::test_gone', report: 'absent' },
    ]);
    // the harness' pytest parser cuts "test_param[c d]" at its space: a parametrization the report spells
    // otherwise is not missing; one of a function the report never ran is
    expect(reportDisagreements(['test_calc.py::test_param[c', 'test_calc.py::test_other_param[x]'], report)).toEqual([
      { test: 'test_calc.py::test_other_param[x]', report: 'absent' },
    ]);
  });

  it('grades a log that contradicts the report as not graded, with the tests named; an agreeing log as usual', () => {
    const report = parseJunitXml(xml)!;
    // pytest's closing counts agree with each log (the forger printed its own): only the report can tell
    const log = (lines: string) => `>>>>> Start Test Output\n${lines}\n== ${lines.split('PASSED').length - 1} passed in 0.1s ==\n>>>>> End Test Output\n`;
    const gold = { FAIL_TO_PASS: ['test_calc.py::test_add'], PASS_TO_PASS: ['test_calc.py::test_other'] };
    const forged = evalReport('x', 'p', log('PASSED test_calc.py::test_add\nPASSED test_calc.py::test_other'), gold, parseLogPytest, undefined, report).x;
    expect(forged).toMatchObject({
      resolved: false,
      patch_successfully_applied: false,
      report_disagreements: [{ test: 'test_calc.py::test_add', report: 'failed' }],
      not_graded_reason: "the log and the runner's own report disagree: 1 test(s) the log calls passed are failed in the report (test_calc.py::test_add)",
    });
    const honest = evalReport('x', 'p', log('FAILED test_calc.py::test_add\nPASSED test_calc.py::test_other'), gold, parseLogPytest, undefined, report).x;
    expect(honest).toMatchObject({ resolved: false, patch_successfully_applied: true });
    expect(honest.report_disagreements).toBeUndefined();
    // 5.0.2 exactly: the report is not read
    expect(
      evalReport(
        'x',
        'p',
        log('PASSED test_calc.py::test_add\nPASSED test_calc.py::test_other'),
        gold,
        parseLogPytest,
        { harness: '5.0.2', unforgeable: false },
        report,
      ).x.resolved,
    ).toBe(true);
  });
});
