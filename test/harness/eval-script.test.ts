import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { makeEvalScript, recordTestExitCode, testDirectives, testPatchFiles } from '../../src/harness/eval-script.ts';
import { parseTestExitCode } from '../../validation/grading-rules.ts';
import { loadBuiltinSpecs } from '../../src/harness/specs.ts';
import { officialImageName } from '../../src/harness/instance-spec.ts';
import { parsePredictions, goldPredictions } from '../../validation/predictions.ts';

const TEST_PATCH = [
  'diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py',
  '--- a/tests/admin_views/tests.py',
  '+++ b/tests/admin_views/tests.py',
  '@@ -1,2 +1,3 @@',
  ' import x',
  '+import y',
  ' ',
  'diff --git a/tests/forms_tests/widget_tests/test_select.py b/tests/forms_tests/widget_tests/test_select.py',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/tests/forms_tests/widget_tests/test_select.py',
  '@@ -0,0 +1 @@',
  '+def test(): pass',
  'diff --git a/tests/fixtures/data.json b/tests/fixtures/data.json',
  '--- a/tests/fixtures/data.json',
  '+++ b/tests/fixtures/data.json',
  '@@ -1 +1 @@',
  '-{}',
  '+[]',
  'diff --git a/docs/notes.txt b/docs/notes.txt',
  '--- a/docs/notes.txt',
  '+++ b/docs/notes.txt',
  '@@ -1 +1 @@',
  '-a',
  '+b',
  'diff --git a/django/utils/helpers.py b/django/utils/helpers.py',
  '--- a/django/utils/helpers.py',
  '+++ b/django/utils/helpers.py',
  '@@ -1 +1 @@',
  '-a',
  '+b',
  '',
].join('\n');

describe('test directives', () => {
  it('pytest-style: test-patch paths without non-test extensions', () => {
    expect(testDirectives(TEST_PATCH, 'paths')).toEqual([
      'tests/admin_views/tests.py',
      'tests/forms_tests/widget_tests/test_select.py',
      'django/utils/helpers.py',
    ]);
  });

  it('Django: dotted modules relative to tests/, non-test files dropped', () => {
    expect(testDirectives(TEST_PATCH, 'django_modules')).toEqual(['admin_views.tests', 'forms_tests.widget_tests.test_select']);
  });

  it('modified files are checked out, created files removed', () => {
    expect(testPatchFiles(TEST_PATCH)).toEqual({
      modified: ['tests/admin_views/tests.py', 'tests/fixtures/data.json', 'docs/notes.txt', 'django/utils/helpers.py'],
      created: ['tests/forms_tests/widget_tests/test_select.py'],
    });
  });
});

describe('eval script', () => {
  const specs = loadBuiltinSpecs();

  it('Django 3.0: harness test command, eval_commands, markers, reset before and after', () => {
    const spec = specs.get('django/django', '3.0');
    const script = makeEvalScript({ base_commit: 'abc1234', test_patch: TEST_PATCH }, spec, {
      prelude: ['source /opt/miniconda3/bin/activate', 'conda activate testbed'],
      runInstall: true,
    });
    expect(script.startsWith('#!/bin/bash\nset -uxo pipefail\nsource /opt/miniconda3/bin/activate\nconda activate testbed\ncd /testbed\n')).toBe(true);
    expect(script).toContain('export LANG=en_US.UTF-8');
    expect(script).toContain('./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 admin_views.tests forms_tests.widget_tests.test_select\n');
    const reset =
      'git checkout abc1234 tests/admin_views/tests.py tests/fixtures/data.json docs/notes.txt django/utils/helpers.py\nrm -f tests/forms_tests/widget_tests/test_select.py';
    const parts = script.split(`: '>>>>> Start Test Output'`);
    expect(parts).toHaveLength(2);
    expect(parts[0]).toContain(`${reset}\ngit apply -v - <<'EOF_114329324912'\n${TEST_PATCH}\nEOF_114329324912\n`);
    // the test command's own exit status, recorded after the end marker as harness 5.0 records it (#620)
    expect(
      parts[1].trimEnd().endsWith(`SWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'\necho ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"\n${reset}`),
    ).toBe(true);
    expect(script).toContain('python -m pip install -e .');
  });

  it('sympy and minibench test commands; version-specific Django 1.9 command', () => {
    expect(specs.get('sympy/sympy', '1.1').spec.test_cmd).toBe("PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose");
    expect(specs.get('django/django', '1.9').spec.test_cmd).toBe('./tests/runtests.py --verbosity 2');
    expect(specs.get('psf/requests', '2.0').logParser).toBe('pytest_options');
    const mini = specs.get('minibench/urlkit', '0.3');
    expect(mini.spec.env_from).toBe('base');
    const script = makeEvalScript({ base_commit: 'abc1234', test_patch: TEST_PATCH }, mini);
    expect(script).toContain('pytest --no-header -rA --tb=no -p no:cacheprovider tests/admin_views/tests.py');
    expect(script).not.toContain('conda');
  });

  it('unknown repositories and versions are clear errors', () => {
    expect(() => specs.get('acme/unknown', '1.0')).toThrow(/no environment spec for repository acme\/unknown/);
    expect(() => specs.get('django/django', '0.1')).toThrow(/version "0.1"/);
  });
});

describe('image names and predictions', () => {
  it('official image names as the harness spells them', () => {
    expect(officialImageName('django__django-11099')).toBe('swebench/sweb.eval.x86_64.django_1776_django-11099:latest');
    expect(officialImageName('scikit-learn__scikit-learn-13142')).toBe('swebench/sweb.eval.x86_64.scikit-learn_1776_scikit-learn-13142:latest');
  });

  it('JSONL, JSON list and dict predictions; duplicates and bad rows are errors', () => {
    const row = { instance_id: 'a__b-1', model_name_or_path: 'm', model_patch: 'diff' };
    expect(parsePredictions(JSON.stringify(row) + '\n\n' + JSON.stringify({ ...row, instance_id: 'a__b-2', model_patch: null }))).toHaveLength(2);
    expect(parsePredictions(JSON.stringify([row]))[0]).toEqual(row);
    expect(parsePredictions(JSON.stringify({ 'a__b-3': { model_name_or_path: 'm', model_patch: '' } }))[0]).toEqual({
      instance_id: 'a__b-3',
      model_name_or_path: 'm',
      model_patch: '',
    });
    expect(() => parsePredictions(JSON.stringify([row, row]), 'p.json')).toThrow(/more than one prediction/);
    expect(() => parsePredictions('{"instance_id": 3}\n', 'p.jsonl')).toThrow(/p.jsonl: prediction 1 is invalid: instance_id/);
    expect(() => parsePredictions('{"instance_id": "x"}\nnot json', 'p.jsonl')).toThrow(/p.jsonl:2: not a JSON line/);
  });

  it('gold predictions carry the dataset patch', () => {
    const preds = goldPredictions([
      {
        instance_id: 'x',
        repo: 'a/b',
        base_commit: 'abcdef1',
        problem_statement: '',
        patch: 'P',
        test_patch: '',
        hints_text: '',
        FAIL_TO_PASS: [],
        PASS_TO_PASS: [],
      },
    ]);
    expect(preds).toEqual([{ instance_id: 'x', model_name_or_path: 'gold', model_patch: 'P' }]);
  });
});

describe('recorded test exit code (harness 5.0, #620)', () => {
  it('is the test command’s status, not the script’s: a passing reset cannot hide failing tests', () => {
    const script = recordTestExitCode([": '>>>>> Start Test Output'", "bash -c 'echo PASSED test_a; exit 1'", ": '>>>>> End Test Output'", 'true']);
    const run = spawnSync('bash', ['-c', ['set -uxo pipefail', ...script].join('\n')], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(parseTestExitCode(run.stdout + run.stderr)).toBe(1);
    // written after the end marker, outside what the parsers read
    expect(run.stdout.indexOf('>>>>> Test Exit Code: 1')).toBeGreaterThan(run.stdout.indexOf('PASSED test_a'));
  });
});
