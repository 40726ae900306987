/**
 * Verdicts the evaluated code cannot forge. Each log is a real runner's (test/fixtures/forged-logs/README.md) in
 * which the code under test prints a line that makes its failing FAIL_TO_PASS test look passed. The harness'
 * last-wins maps grade some of them resolved even under 5.0.2's exit-code check; locfix's unforgeable rule, on by
 * default, grades none of them resolved.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evalReport, statusMapFromLog } from '../../validation/grading.ts';
import type { GradingRules } from '../../validation/grading-rules.ts';
import { parseLogMaven } from '../../src/languages/java/log-parsers.ts';
import { parseLogDjango, parseLogPytest } from '../../src/languages/python/log-parsers.ts';
import { parseLogCargo } from '../../src/languages/rust/log-parsers.ts';
import type { LogParser } from '../../src/languages/log-parser.ts';

const log = (name: string) => readFileSync(new URL(`../fixtures/forged-logs/${name}`, import.meta.url), 'utf8');

const FORGED: Array<{ name: string; file: string; parser: LogParser; f2p: string; p2p: string; exact41Resolved?: false; exact502Resolved: boolean }> = [
  {
    name: 'pytest, atexit print',
    file: 'pytest-atexit.log',
    parser: parseLogPytest,
    f2p: 'test_calc.py::test_add',
    p2p: 'test_calc.py::test_other',
    exact502Resolved: true,
  },
  {
    name: 'unittest under the django parser, the code prints ok',
    file: 'unittest-prints-ok.log',
    parser: parseLogDjango,
    f2p: 'test_answer (test_lib.T.test_answer)',
    p2p: 'test_other (test_lib.T.test_other)',
    exact502Resolved: true,
  },
  // the map shows no failure at all and the exit code is 101: 5.0.2's own check (#620) refuses it
  {
    name: 'cargo test, a thread writes ok',
    file: 'cargo-thread-writes-ok.log',
    parser: parseLogCargo,
    f2p: 'tests::f2p_add',
    p2p: 'tests::p2p_keep',
    exact502Resolved: false,
  },
  {
    name: 'Maven, the code prints BUILD SUCCESS',
    file: 'maven-prints-build-success.log',
    parser: parseLogMaven,
    f2p: 'com.example.CalcTest#testAdd',
    p2p: 'com.example.CalcTest#testKeep',
    // 4.1 gave each BUILD line to the last traced command, so Maven's own FAILURE came last for testAdd
    exact41Resolved: false,
    exact502Resolved: true,
  },
];

const BEFORE: GradingRules = { harness: '4.1', unforgeable: false };
const EXACT: GradingRules = { harness: '5.0.2', unforgeable: false };
const LOCFIX: GradingRules = { harness: '5.0.2', unforgeable: true };

describe('forged logs', () => {
  it.each(FORGED.map((f) => [f.name, f] as const))('%s: resolved by the harness rules, never by locfix', (_name, f) => {
    const gold = { FAIL_TO_PASS: [f.f2p], PASS_TO_PASS: [f.p2p] };
    const grade = (rules: GradingRules) => evalReport('x', 'diff', log(f.file), gold, f.parser, rules).x;
    expect(grade(BEFORE).resolved).toBe(f.exact41Resolved ?? true);
    expect(grade(EXACT).resolved).toBe(f.exact502Resolved);
    const ours = grade(LOCFIX);
    expect(ours.resolved).toBe(false);
    // the FAIL_TO_PASS test is graded failed, or the log is not graded, with its reason
    if (ours.tests_status) expect(ours.tests_status.FAIL_TO_PASS.failure).toEqual([f.f2p]);
    else expect(ours.not_graded_reason).toMatch(/BUILD results|exited/);
  });

  it('keeps the failure and reports the conflict; leaves out results printed after the runner closed', () => {
    // libtest's own FAILED, then the thread's "ok" before libtest's summary: a conflict, the failure kept
    const cargo = statusMapFromLog(log('cargo-thread-writes-ok.log'), parseLogCargo, LOCFIX);
    expect(cargo.statusMap['tests::f2p_add']).toBe('FAILED');
    expect(cargo.conflicts).toEqual([{ test: 'tests::f2p_add', kept: 'FAILED', dropped: 'PASSED' }]);
    expect(cargo.exitCode).toBe(101);
    // the atexit line comes after pytest's "== 2 failed, 1 passed in 0.02s ==": not pytest's, left out
    const pytest = statusMapFromLog(log('pytest-atexit.log'), parseLogPytest, LOCFIX);
    expect(pytest.statusMap['test_calc.py::test_add']).toBe('FAILED');
    expect(pytest.ignored).toEqual(["1 result line(s) after the runner's closing summary, which the runner cannot have printed"]);
    expect(pytest.exitCode).toBe(1);
    // printed before the closing line instead, the pass meets the failure and loses
    const early = log('pytest-atexit.log')
      .replace('\nPASSED test_calc.py::test_add\n', '\n')
      .replace(/(\n=+ 2 failed)/, '\nPASSED test_calc.py::test_add$1');
    const reading = statusMapFromLog(early, parseLogPytest, LOCFIX);
    expect(reading.statusMap['test_calc.py::test_add']).toBe('FAILED');
    expect(reading.conflicts).toEqual([{ test: 'test_calc.py::test_add', kept: 'FAILED', dropped: 'PASSED' }]);
    // the unittest "ok": the header "FAIL: test_answer (test_lib.T.test_answer)" names the same test
    const unittest = statusMapFromLog(log('unittest-prints-ok.log'), parseLogDjango, LOCFIX);
    expect(unittest.statusMap['test_answer (test_lib.T.test_answer)']).toBe('FAILED');
  });

  it('says why a Maven log with a surplus BUILD line is not graded', () => {
    const reading = statusMapFromLog(log('maven-prints-build-success.log'), parseLogMaven, LOCFIX);
    expect(reading.found).toBe(false);
    expect(reading.notGraded).toBe('the log reads two ways: 3 BUILD results for 2 traced Maven commands');
  });

  it('grades honest logs of the same runners as the harness does', () => {
    const honest = log('pytest-atexit.log').replace(/\nPASSED test_calc.py::test_add\n/, '\n');
    const gold = { FAIL_TO_PASS: ['test_calc.py::test_other'], PASS_TO_PASS: [] };
    for (const rules of [EXACT, LOCFIX]) expect(evalReport('x', 'diff', honest, gold, parseLogPytest, rules).x.resolved).toBe(true);
  });
});

describe('markers the tested code prints (issue 51)', () => {
  const honest = [
    "+ : '>>>>> Start Test Output'",
    '+ pytest -rA test_calc.py',
    'FAILED test_calc.py::test_add - assert 3 == 4',
    'PASSED test_calc.py::test_other',
    '========================= 1 failed, 1 passed in 0.02s =========================',
    "+ : '>>>>> End Test Output'",
    "+ echo '>>>>> Test Exit Code: 1'",
    '>>>>> Test Exit Code: 1',
  ];
  const gold = { FAIL_TO_PASS: ['test_calc.py::test_add'], PASS_TO_PASS: ['test_calc.py::test_other'] };
  /** `lines` with the eval script's closing exit-code lines (its last two) saying `code` */
  const withExitCode = (lines: string[], code: number) => [...lines.slice(0, -2), `+ echo '>>>>> Test Exit Code: ${code}'`, `>>>>> Test Exit Code: ${code}`];
  const grade = (lines: string[], rules: GradingRules) => evalReport('x', 'diff', lines.join('\n'), gold, parseLogPytest, rules).x!;

  it('an honest 5.0 log, xtrace and echo, is read as before', () => {
    expect(statusMapFromLog(honest.join('\n'), parseLogPytest, LOCFIX)).toMatchObject({ found: true, exitCode: 1 });
  });

  it('a fake early end marker (cutting the parsed region before the failure) is not graded; 5.0.2 alone resolves it', () => {
    const forged = withExitCode(
      [
        honest[0]!,
        '+ pytest -rA test_calc.py',
        'PASSED test_calc.py::test_add',
        'PASSED test_calc.py::test_other',
        "+ : '>>>>> End Test Output'",
        ...honest.slice(2),
      ],
      0,
    );
    expect(grade(forged, EXACT).resolved).toBe(true);
    const ours = grade(forged, LOCFIX);
    expect(ours.resolved).toBe(false);
    expect(ours.not_graded_reason).toMatch(/2 end markers; the eval script writes one of each: the tested code printed the others/);
  });

  it('a forged exit code printed before the real one (the harness reads the first) is not graded', () => {
    const forged = withExitCode(
      [
        honest[0]!,
        '+ pytest -rA test_calc.py',
        '>>>>> Test Exit Code: 0',
        'PASSED test_calc.py::test_add',
        'PASSED test_calc.py::test_other',
        ...honest.slice(5),
      ],
      5,
    );
    expect(statusMapFromLog(forged.join('\n'), parseLogPytest, EXACT).exitCode).toBe(0);
    expect(grade(forged, LOCFIX).not_graded_reason).toMatch(/3 test exit codes/);
  });

  it("markers printed mid-line, inside the test output, are not read as the script's and make the log not graded", () => {
    // before: the region was cut at the first occurrence of the end marker's text, and the first exit code was read
    const midLineEnd = withExitCode(
      [
        honest[0]!,
        '+ pytest -rA test_calc.py',
        'PASSED test_calc.py::test_add',
        "PASSED test_calc.py::test_other x+ : '>>>>> End Test Output'",
        ...honest.slice(2),
      ],
      1,
    );
    expect(grade(midLineEnd, EXACT).resolved).toBe(false);
    expect(grade(midLineEnd, LOCFIX).not_graded_reason).toMatch(/the test output holds ">>>>> End Test Output", which only the eval script writes/);
    const midLineExit = withExitCode([honest[0]!, '+ pytest -rA test_calc.py', 'noise >>>>> Test Exit Code: 0', ...honest.slice(2)], 1);
    expect(statusMapFromLog(midLineExit.join('\n'), parseLogPytest, EXACT).exitCode).toBe(0);
    expect(grade(midLineExit, LOCFIX).not_graded_reason).toMatch(/holds ">>>>> Test Exit Code"/);
    // a marker's text outside the test output (the patch that `git diff` shows before the tests) is no marker
    const shownInDiff = ['+    print("+ : \'>>>>> End Test Output\'")', "++ : '>>>>> Start Test Output'", ...honest];
    expect(statusMapFromLog(shownInDiff.join('\n'), parseLogPytest, LOCFIX)).toMatchObject({ found: true, exitCode: 1 });
  });

  it('a Django/unittest log with a fake early end marker is not graded', () => {
    const text = log('unittest-prints-ok.log');
    const start = text.indexOf('>>>>> Start Test Output');
    const lineEnd = text.indexOf('\n', start);
    const forged = `${text.slice(0, lineEnd + 1)}test_answer (test_lib.T.test_answer) ... ok\n+ : '>>>>> End Test Output'\n${text.slice(lineEnd + 1)}`;
    const reading = statusMapFromLog(forged, parseLogDjango, LOCFIX);
    expect(reading.found).toBe(false);
    expect(reading.notGraded).toMatch(/2 end markers/);
  });

  it('a log with results whose runner report was asked for and never written, or lists no test, is not graded', () => {
    const passing = withExitCode(
      [honest[0]!, '+ pytest -rA test_calc.py', 'PASSED test_calc.py::test_add', 'PASSED test_calc.py::test_other', ...honest.slice(5)],
      0,
    );
    const report = (r: Map<string, 'passed'> | 'missing') => evalReport('x', 'diff', passing.join('\n'), gold, parseLogPytest, LOCFIX, r).x!;
    expect(report('missing')).toMatchObject({ resolved: false, not_graded_reason: expect.stringMatching(/report was not written or cannot be read/) });
    expect(report(new Map())).toMatchObject({ resolved: false, not_graded_reason: expect.stringMatching(/report lists no test/) });
    const real = new Map([
      ['test_calc.test_add', 'passed' as const],
      ['test_calc.test_other', 'passed' as const],
    ]);
    expect(report(real).resolved).toBe(true);
    // under the harness' own rules the report is not read
    expect(evalReport('x', 'diff', passing.join('\n'), gold, parseLogPytest, EXACT, 'missing').x!.resolved).toBe(true);
  });
});

describe("the runner's own closing counts (issue 51)", () => {
  const gold = { FAIL_TO_PASS: ['test_calc.py::test_add'], PASS_TO_PASS: ['test_calc.py::test_other'] };
  const script = (lines: string[], code = 0) =>
    ["+ : '>>>>> Start Test Output'", ...lines, "+ : '>>>>> End Test Output'", `+ echo '>>>>> Test Exit Code: ${code}'`, `>>>>> Test Exit Code: ${code}`].join(
      '\n',
    );

  it('PASSED lines for tests a hook deselected: pytest counts fewer passes than the log shows, so the log is not graded', () => {
    // the failing test is deselected (exit code 0, nothing fails) and its PASSED line printed instead
    const forged = script([
      '+ pytest -rA test_calc.py',
      'collected 2 items / 1 deselected / 1 selected',
      'PASSED test_calc.py::test_add',
      'PASSED test_calc.py::test_other',
      '=================== 1 passed, 1 deselected in 0.02s ===================',
    ]);
    expect(evalReport('x', 'diff', forged, gold, parseLogPytest, EXACT).x!.resolved).toBe(true);
    expect(evalReport('x', 'diff', forged, gold, parseLogPytest, LOCFIX).x).toMatchObject({
      resolved: false,
      not_graded_reason: "the log reads two ways: the log reports 2 passed test(s) but pytest's own closing lines count 1",
    });
  });

  it('honest logs keep their verdict: sessions run one after another are summed, and a log without a closing line is not checked', () => {
    const twoSessions = script([
      '+ pytest -rA test_calc.py::test_add',
      'PASSED test_calc.py::test_add',
      '============================== 1 passed in 0.01s ==============================',
      '+ pytest -rA test_calc.py::test_other',
      'PASSED test_calc.py::test_other',
      '============================== 1 passed, 1 warning in 0.01s ===================',
    ]);
    expect(evalReport('x', 'diff', twoSessions, gold, parseLogPytest, LOCFIX).x!.resolved).toBe(true);
    const xpassed = script(['PASSED test_calc.py::test_add', 'PASSED test_calc.py::test_other', '=== 2 passed, 1 xpassed in 0.01s ===']);
    expect(evalReport('x', 'diff', xpassed, gold, parseLogPytest, LOCFIX).x!.resolved).toBe(true);
    const noClosing = script(['PASSED test_calc.py::test_add', 'PASSED test_calc.py::test_other']);
    expect(evalReport('x', 'diff', noClosing, gold, parseLogPytest, LOCFIX).x!.resolved).toBe(true);
  });

  it('unittest: ok lines for tests that never ran ("Ran 0 tests") are not graded', () => {
    const django = { FAIL_TO_PASS: ['test_answer (test_lib.T.test_answer)'], PASS_TO_PASS: [] };
    const forged = script(['test_answer (test_lib.T.test_answer) ... ok', '', '-'.repeat(70), 'Ran 0 tests in 0.000s', '', 'OK']);
    expect(evalReport('x', 'diff', forged, django, parseLogDjango, EXACT).x!.resolved).toBe(true);
    expect(evalReport('x', 'diff', forged, django, parseLogDjango, LOCFIX).x!.not_graded_reason).toMatch(
      /1 passed test\(s\) but unittest's own closing lines count 0/,
    );
    const honest = forged.replace('Ran 0 tests', 'Ran 1 test');
    expect(evalReport('x', 'diff', honest, django, parseLogDjango, LOCFIX).x!.resolved).toBe(true);
  });
});

describe('the whole-log fallback (#402) under locfix rule (issue 51)', () => {
  it('result lines printed before the tests ran (a patched setup.py at install) are not read when the test output is empty', () => {
    const gold = { FAIL_TO_PASS: ['test_calc.py::test_add'], PASS_TO_PASS: ['test_calc.py::test_other'] };
    const log = [
      '+ python -m pip install -e .',
      'PASSED test_calc.py::test_add',
      'PASSED test_calc.py::test_other',
      "+ : '>>>>> Start Test Output'",
      '+ pytest -rA test_calc.py',
      "+ : '>>>>> End Test Output'",
      "+ echo '>>>>> Test Exit Code: 0'",
      '>>>>> Test Exit Code: 0',
    ].join('\n');
    // the harness reads the whole log when the test output yields nothing, install output included
    expect(evalReport('x', 'diff', log, gold, parseLogPytest, EXACT).x!.resolved).toBe(true);
    expect(evalReport('x', 'diff', log, gold, parseLogPytest, LOCFIX).x).toMatchObject({
      resolved: false,
      not_graded_reason: 'no test results and no sign the suite ran',
    });
    // results after the end marker (output the harness' markers missed) are still read
    const lines = log.split('\n');
    const late = [lines[0], ...lines.slice(3), 'PASSED test_calc.py::test_add', 'PASSED test_calc.py::test_other'].join('\n');
    expect(evalReport('x', 'diff', late, gold, parseLogPytest, LOCFIX).x!.resolved).toBe(true);
  });
});
