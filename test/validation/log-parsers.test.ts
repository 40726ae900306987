import { describe, expect, it } from 'vitest';
import {
  parseLogDjango,
  parseLogMatplotlib,
  parseLogPytest,
  parseLogPytestOptions,
  parseLogPytestV2,
  parseLogSeaborn,
  parseLogSympy,
} from '../../src/languages/python/log-parsers.ts';

describe('pytest parser', () => {
  const log = [
    '============================= test session starts ==============================',
    'collected 9 items',
    '',
    'tests/test_a.py ..F.sx                                                   [ 66%]',
    '',
    '=========================== short test summary info ============================',
    'PASSED tests/test_a.py::test_ok',
    'PASSED tests/test_a.py::test_param[1-2]',
    'PASSED tests/test_a.py::test_param[a-b-c]',
    'FAILED tests/test_a.py::test_bad - AssertionError: assert 1 == 2',
    'FAILED tests/test_a.py::test_ids[x - y] - ValueError',
    'ERROR tests/test_a.py::test_fixture_broken - RuntimeError: boom',
    'SKIPPED [2] tests/test_a.py:40: needs network',
    'SKIPPED tests/test_a.py::test_skipped_verbose',
    'XFAIL tests/test_a.py::test_expected - reason: known',
    'tests/test_b.py::test_verbose_style PASSED                               [ 88%]',
    'tests/test_b.py::test_verbose_fail FAILED',
    'tests/test_b.py::test_with_space[a b] PASSED',
    '==================== 3 failed, 4 passed, 2 skipped in 0.12s ====================',
  ].join('\n');

  it('reads status-first (-rA) and test-first (-v) lines with parametrized ids', () => {
    const map = parseLogPytest(log);
    expect(map['tests/test_a.py::test_ok']).toBe('PASSED');
    expect(map['tests/test_a.py::test_param[1-2]']).toBe('PASSED');
    expect(map['tests/test_a.py::test_param[a-b-c]']).toBe('PASSED');
    expect(map['tests/test_a.py::test_bad']).toBe('FAILED');
    expect(map['tests/test_a.py::test_fixture_broken']).toBe('ERROR');
    expect(map['tests/test_a.py::test_skipped_verbose']).toBe('SKIPPED');
    expect(map['tests/test_a.py::test_expected']).toBe('XFAIL');
    expect(map['tests/test_b.py::test_verbose_style']).toBe('PASSED');
    expect(map['tests/test_b.py::test_verbose_fail']).toBe('FAILED');
  });

  it('keeps the harness quirks: " - " inside an id cuts it, a space ends a test-first id, skip counts are no tests', () => {
    const map = parseLogPytest(log);
    // "FAILED x[x - y] - msg": " - " becomes a space and the second word is taken
    expect(map['tests/test_a.py::test_ids[x']).toBe('FAILED');
    expect(map['tests/test_a.py::test_ids[x - y]']).toBeUndefined();
    expect(Object.keys(map).some((k) => k.startsWith('[2]'))).toBe(false);
    // "x[a b] PASSED" has no \S+ then status at the start, so it is not read at all
    expect(map['tests/test_b.py::test_with_space[a']).toBeUndefined();
    expect(map['tests/test_b.py::test_with_space[a b]']).toBeUndefined();
  });

  it('the later status of a test wins', () => {
    expect(parseLogPytest('FAILED t.py::a - x\nPASSED t.py::a')).toEqual({ 't.py::a': 'PASSED' });
  });

  it('ignores lines that only mention a status', () => {
    expect(parseLogPytest('all tests PASSED\n  PASSED t.py::indented\nPASSEDt.py::x')).toEqual({});
  });
});

describe('pytest parser with options (requests, pylint)', () => {
  it('shortens absolute-path parameters to their last component', () => {
    const map = parseLogPytestOptions(
      [
        'PASSED tests/test_requests.py::test_path[/tmp/pytest-of-root/pytest-0/data/file.txt]',
        'PASSED tests/test_requests.py::test_url[//host/share]',
        'PASSED tests/test_requests.py::test_glob[/a/*/b]',
        'FAILED tests/test_requests.py::test_plain - assert',
      ].join('\n'),
    );
    expect(map).toEqual({
      'tests/test_requests.py::test_path[/file.txt]': 'PASSED',
      'tests/test_requests.py::test_url[//host/share]': 'PASSED',
      'tests/test_requests.py::test_glob[/a/*/b]': 'PASSED',
      'tests/test_requests.py::test_plain': 'FAILED',
    });
  });
});

describe('pytest v2 parser (astropy, sklearn, sphinx)', () => {
  it('strips colour codes and control characters', () => {
    const map = parseLogPytestV2('\x1b[32mPASSED\x1b[0m tests/test_x.py::test_a\n\x1b[31mFAILED\x1b[0m tests/test_x.py::test_b - E\t');
    expect(map).toEqual({ 'tests/test_x.py::test_a': 'PASSED', 'tests/test_x.py::test_b': 'FAILED' });
  });
});

describe('Django runner parser', () => {
  const log = [
    "Testing against Django installed in '/testbed/django'",
    'Importing application admin_views',
    'test_add_view (admin_views.tests.AdminViewBasicTest) ... ok',
    'test_change_view (admin_views.tests.AdminViewBasicTest) ... FAIL',
    'test_delete_view (admin_views.tests.AdminViewBasicTest) ... ERROR',
    "test_skip_db (admin_views.tests.AdminViewBasicTest) ... skipped 'Database does not support'",
    'test_noisy (admin_views.tests.NoisyTest) ... some printed output',
    'more printed output',
    'ok',
    'test_upper (admin_views.tests.CaseTest) ... OK',
    'test_interrupted (migrations.test_commands.MigrateTests) ... System check identified no issues (0 silenced).',
    'ok',
    'test_server_error (view_tests.tests.DebugTests) ... Internal Server Error: /raises500/',
    'ok',
    '',
    '======================================================================',
    'FAIL: test_change_view (admin_views.tests.AdminViewBasicTest)',
    '----------------------------------------------------------------------',
    'ERROR: test_setup_class (admin_views.tests.SetupErrors)',
    '----------------------------------------------------------------------',
    'Ran 8 tests in 0.321s',
  ].join('\n');

  it('reads ok / FAIL / ERROR / skipped and the FAIL:/ERROR: headers', () => {
    const map = parseLogDjango(log);
    expect(map['test_add_view (admin_views.tests.AdminViewBasicTest)']).toBe('PASSED');
    expect(map['test_change_view (admin_views.tests.AdminViewBasicTest)']).toBe('FAILED');
    expect(map['test_delete_view (admin_views.tests.AdminViewBasicTest)']).toBe('ERROR');
    expect(map['test_skip_db (admin_views.tests.AdminViewBasicTest)']).toBe('SKIPPED');
    expect(map['test_upper (admin_views.tests.CaseTest)']).toBe('PASSED');
    // the header form records the first word after "FAIL:"/"ERROR:"
    expect(map.test_change_view).toBe('FAILED');
    expect(map.test_setup_class).toBe('ERROR');
  });

  it('credits a multi-line "... <output>\\nok" to the test before it', () => {
    const map = parseLogDjango(log);
    expect(map['test_noisy (admin_views.tests.NoisyTest)']).toBe('PASSED');
    expect(map['test_interrupted (migrations.test_commands.MigrateTests)']).toBe('PASSED');
    expect(map['test_server_error (view_tests.tests.DebugTests)']).toBe('PASSED');
  });

  it('handles the django__django-7188 migration line and the --version special case', () => {
    const map = parseLogDjango(
      [
        'Applying sites.0002_alter_domain_unique...test_no_migrations (migrations.test_loader.LoaderTests) ... ok',
        'test_version (admin_scripts.tests.CommandTypes)',
        '--version is equivalent to version ... ok',
      ].join('\n'),
    );
    expect(map['test_no_migrations (migrations.test_loader.LoaderTests)']).toBe('PASSED');
    expect(map['--version is equivalent to version']).toBe('PASSED');
  });

  it('reads a test whose docstring line follows its id (py3.9 Django 3.0-4.0) under the id, as the dataset names it', () => {
    const map = parseLogDjango(
      [
        'test_file_upload_permissions (test_utils.tests.OverrideSettingsTests)',
        'FILE_UPLOAD_PERMISSIONS defaults to 0o644 ... ok',
        'test_live_server (servers.tests.LiveServerViews)',
        'Contrary to the documentation ... FAIL',
        'test_noisy_described (view_tests.tests.DebugTests)',
        'A described test that prints ... Internal Server Error: /raises500/',
        'ok',
        'test_plain (a.tests.T) ... ok',
        'test_py311 (a.tests.T.test_py311)',
        'Docstring under Python 3.11 ids ... skipped "no"',
      ].join('\n'),
    );
    expect(map['test_file_upload_permissions (test_utils.tests.OverrideSettingsTests)']).toBe('PASSED');
    expect(map['test_live_server (servers.tests.LiveServerViews)']).toBe('FAILED');
    expect(map['test_noisy_described (view_tests.tests.DebugTests)']).toBe('PASSED');
    expect(map['test_plain (a.tests.T)']).toBe('PASSED');
    expect(map['test_py311 (a.tests.T.test_py311)']).toBe('SKIPPED');
    // the harness' own reading of the same lines is kept too
    expect(map['FILE_UPLOAD_PERMISSIONS defaults to 0o644']).toBe('PASSED');
  });
});

describe('sympy bin/test parser', () => {
  const log = [
    '============================= test process starts ==============================',
    'executable:         /usr/bin/python3  (3.9.19-final-0) [CPython]',
    '',
    'sympy/core/tests/test_basic.py[3] ',
    'test_structure ok',
    'test_equality F',
    'test_matches_basic E',
    'test_subs ok                                                                [FAIL]',
    '',
    '________________________________________________________________________________',
    '_______ sympy/core/tests/test_basic.py:test_equality ________',
    'Traceback (most recent call last):',
    '  File "/testbed/sympy/core/tests/test_basic.py", line 40, in test_equality',
    'AssertionError',
    '============= tests finished: 1 passed, 1 failed, 1 exceptions, in 0.10 seconds =============',
  ].join('\n');

  it('reads ok / F / E lines and failure headers', () => {
    const map = parseLogSympy(log);
    expect(map.test_structure).toBe('PASSED');
    expect(map.test_equality).toBe('FAILED');
    expect(map.test_matches_basic).toBe('ERROR');
    expect(map['sympy/core/tests/test_basic.py:test_equality']).toBe('FAILED');
    // "[FAIL]" after the status is not " ok" at the end of the line
    expect(map.test_subs).toBeUndefined();
  });

  it('reads a log with a huge line without quadratic slow-down, with the same result', () => {
    const noisy = `${' '.repeat(60_000)}x\n${log}`;
    const t0 = performance.now();
    expect(parseLogSympy(noisy)).toEqual(parseLogSympy(log));
    // the harness pattern over the whole log took ~2 s on the first line alone
    expect(performance.now() - t0).toBeLessThan(300);
  });
});

describe('matplotlib and seaborn parsers', () => {
  it('matplotlib: MouseButton names become numbers; FAILED loses " - msg"', () => {
    const map = parseLogMatplotlib(
      'PASSED lib/matplotlib/tests/test_widgets.py::test_span[MouseButton.LEFT]\nFAILED lib/matplotlib/tests/test_axes.py::test_x - ValueError\nPASSED',
    );
    expect(map).toEqual({
      'lib/matplotlib/tests/test_widgets.py::test_span[1]': 'PASSED',
      'lib/matplotlib/tests/test_axes.py::test_x': 'FAILED',
    });
  });

  it('seaborn: FAILED first, "name PASSED" and "PASSED name"', () => {
    const map = parseLogSeaborn('FAILED tests/test_a.py::t1 - x\ntests/test_a.py::t2 PASSED [50%]\nPASSED tests/test_a.py::t3');
    expect(map).toEqual({ 'tests/test_a.py::t1': 'FAILED', 'tests/test_a.py::t2': 'PASSED', 'tests/test_a.py::t3': 'PASSED' });
  });
});
