/** Cannot-run diagnosis on test logs: what makes an instance an evaluation error instead of "unresolved". */
import { describe, expect, it } from 'vitest';
import { END_TEST_OUTPUT, START_TEST_OUTPUT } from '../../src/harness/constants.ts';
import { statusMapFromLog } from '../../validation/grading.ts';
import { parseLogPytest } from '../../src/languages/python/log-parsers.ts';
import { diagnoseTestRun, patchedFiles, repositoryRoots } from '../../validation/run-diagnosis.ts';

const gold = { FAIL_TO_PASS: ['tests/test_a.py::test_new'], PASS_TO_PASS: ['tests/test_a.py::test_old'] };
const wrap = (body: string) => `+ git status\n+ : '${START_TEST_OUTPUT}'\n${body}\n+ : '${END_TEST_OUTPUT}'\n`;
const diagnose = (log: string, networkOff = true) => diagnoseTestRun(log, statusMapFromLog(log, parseLogPytest).statusMap, gold, { networkOff });

describe('diagnoseTestRun', () => {
  it('no markers: the script stopped before the tests', () => {
    expect(diagnose('+ git apply -v -\nerror: patch failed\n')).toMatchObject({ kind: 'no-test-output' });
  });

  it('no test result: the test command failed before running tests (pytest minversion, a broken conftest)', () => {
    const minversion = wrap("ERROR: /testbed/tox.ini: 'minversion' requires pytest-2.0, actual pytest-0.1.dev1'");
    expect(diagnose(minversion)).toEqual({ kind: 'no-tests-ran', reason: expect.stringContaining("'minversion' requires pytest-2.0") });
    const conftest = wrap(
      "ImportError while loading conftest '/testbed/tests/conftest.py'.\ntests/conftest.py:1: in <module>\n    raise RuntimeError('x')\nE   RuntimeError: x",
    );
    expect(diagnose(conftest)?.kind).toBe('no-tests-ran');
    // the runner counted tests it ran, though no per-test line survived (pytest-dev__pytest-7168's bug crashes
    // pytest's reporting): tests ran, the code under test failed, graded as the harness grades it
    expect(
      diagnose(
        wrap(
          'INTERNALERROR>     raise RuntimeError\nINTERNALERROR> RuntimeError\n\n============================== 10 passed in 0.13s ==============================',
        ),
      ),
    ).toBeUndefined();
    expect(
      diagnose(
        wrap('Traceback (most recent call last):\nRuntimeError\n----------------------------------------------------------------------\nRan 3 tests in 0.002s'),
      ),
    ).toBeUndefined();
    expect(diagnose(wrap('============================ no tests ran in 0.01s ============================='))?.kind).toBe('no-tests-ran');
  });

  it('a run the model patch stopped (a traceback through a file it changed) keeps its normal verdict', () => {
    const broken = wrap('  File "/testbed/pkg/core.py", line 3\n    def f(:\nSyntaxError: invalid syntax');
    const statusMap = statusMapFromLog(broken, parseLogPytest).statusMap;
    expect(diagnoseTestRun(broken, statusMap, gold, { networkOff: true, patchedFiles: ['pkg/core.py'] })).toBeUndefined();
    // the same stop in a file the patch did not touch is the environment's
    expect(diagnoseTestRun(broken, statusMap, gold, { networkOff: true, patchedFiles: ['pkg/other.py'] })?.kind).toBe('no-tests-ran');
    // with execution the stop is reported, marked, for the gold baseline to decide (a missing dependency is also
    // reported at the patched file that imports it)
    expect(diagnoseTestRun(broken, statusMap, gold, { networkOff: true, patchedFiles: ['pkg/core.py'], patchStopsToo: true })).toMatchObject({
      kind: 'no-tests-ran',
      namesPatchedCode: true,
    });
    expect(diagnoseTestRun(broken, statusMap, gold, { networkOff: true, patchedFiles: ['pkg/other.py'], patchStopsToo: true })).not.toHaveProperty(
      'namesPatchedCode',
    );
    expect(patchedFiles('diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1 +1 @@\n-a\n+b\n')).toEqual(['pkg/core.py']);
    expect(patchedFiles('not a patch')).toEqual([]);
  });

  it("collection errors count only when none of the instance's tests ran", () => {
    const collectionOnly = wrap(
      'ERROR collecting tests/test_a.py\nImportError while importing test module\nPASSED tests/test_other.py::test_x\nInterrupted: 1 error during collection',
    );
    expect(diagnose(collectionOnly)).toMatchObject({ kind: 'collection-failed', reason: expect.stringContaining('ERROR collecting tests/test_a.py') });
    // the patch broke one module, but the instance's own tests ran: a normal verdict
    const ran = wrap('ERROR collecting tests/test_b.py\nPASSED tests/test_a.py::test_old\nFAILED tests/test_a.py::test_new - AssertionError');
    expect(diagnose(ran)).toBeUndefined();
  });

  it("a network error in a failing test of the instance, with the network off, is not the patch's fault", () => {
    const network = wrap(
      'PASSED tests/test_a.py::test_old\nFAILED tests/test_a.py::test_new - requests.exceptions.ConnectionError: ' +
        "HTTPConnectionPool(host='httpbin.org', port=80): Max retries exceeded with url: /get (Caused by NewConnectionError('Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))",
    );
    expect(diagnose(network)).toMatchObject({ kind: 'network', reason: expect.stringContaining('tests/test_a.py::test_new') });
    // with the network on the same log is a plain failure; and a failure without a network error is graded
    expect(diagnose(network, false)).toBeUndefined();
    expect(diagnose(wrap('PASSED tests/test_a.py::test_old\nFAILED tests/test_a.py::test_new - AssertionError: 1 != 2'))).toBeUndefined();
    // passing tests that print a network word do not make an error
    expect(diagnose(wrap('PASSED tests/test_a.py::test_old\nPASSED tests/test_a.py::test_new\nwarning: Temporary failure in name resolution'))).toBeUndefined();
    // an exception type's name in a dump of a namespace is not a raised network error (pytest-dev__pytest-6116
    // without its fix printed `__builtins__` in an assertion message)
    const dump = wrap(
      'PASSED tests/test_a.py::test_old\nFAILED tests/test_a.py::test_new - assert 0 == 1\n' +
        "E  <ParsedCall 'pytest_pycollect_makeitem'(**{'obj': {'ConnectionError': <class 'ConnectionError'>, 'ConnectionRefusedError': <class 'ConnectionRefusedError'>}})>",
    );
    expect(diagnose(dump)).toBeUndefined();
    expect(
      diagnose(wrap('PASSED tests/test_a.py::test_old\nFAILED tests/test_a.py::test_new - ConnectionRefusedError: [Errno 111] Connection refused')),
    ).toMatchObject({
      kind: 'network',
    });
  });
});

describe('regrading without execution: a stop that names the repository’s own code is the patch’s', () => {
  // excerpts shaped like the published harness logs of the two cases the issue names
  const pylintGold =
    'diff --git a/pylint/pyreverse/utils.py b/pylint/pyreverse/utils.py\n--- a/pylint/pyreverse/utils.py\n+++ b/pylint/pyreverse/utils.py\n@@ -1 +1 @@\n-a\n+b\n';
  const djangoGold =
    'diff --git a/django/db/models/query.py b/django/db/models/query.py\n--- a/django/db/models/query.py\n+++ b/django/db/models/query.py\n@@ -1 +1 @@\n-a\n+b\n';
  const importError = wrap(
    [
      '==================================== ERRORS ====================================',
      '_________________ ERROR collecting tests/unittest_pyreverse_writer.py _________________',
      "ImportError while importing test module '/testbed/tests/unittest_pyreverse_writer.py'.",
      "E   ImportError: cannot import name 'get_annotation' from 'pylint.pyreverse.utils' (/testbed/pylint/pyreverse/utils.py)",
      '!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!',
    ].join('\n'),
  );
  const ormCrash = wrap(
    [
      "Creating test database for alias 'default'...",
      'Traceback (most recent call last):',
      '  File "./tests/runtests.py", line 577, in <module>',
      '  File "/testbed/django/test/runner.py", line 695, in setup_databases',
      '  File "/testbed/django/db/backends/base/creation.py", line 78, in create_test_db',
      "AttributeError: 'NoneType' object has no attribute 'get_compiler'",
    ].join('\n'),
  );
  const regrade = (log: string, goldPatch: string) =>
    diagnoseTestRun(log, statusMapFromLog(log, parseLogPytest).statusMap, gold, {
      networkOff: false,
      patchedFiles: ['pylint/pyreverse/diagrams.py'],
      repositoryCode: repositoryRoots(goldPatch),
    });

  it('an ImportError of a name the tests import from the repository, a test database crashed inside the repository', () => {
    expect(repositoryRoots(pylintGold)).toEqual(['pylint']);
    expect(regrade(importError, pylintGold)).toBeUndefined();
    expect(regrade(ormCrash, djangoGold)).toBeUndefined();
    // with execution the gold baseline decides; without the roots, the same logs read as cannot-run
    expect(diagnose(importError, false)?.kind).toBe('collection-failed');
    expect(diagnose(ormCrash, false)?.kind).toBe('no-tests-ran');
  });

  it('an environment failure that names only outside code stays an evaluation error', () => {
    const missingTool = wrap('/eval.sh: line 12: pytest: command not found');
    expect(regrade(missingTool, djangoGold)?.kind).toBe('no-tests-ran');
    expect(repositoryRoots('diff --git a/tests/test_x.py b/tests/test_x.py\n--- a/tests/test_x.py\n+++ b/tests/test_x.py\n@@ -1 +1 @@\n-a\n+b\n')).toEqual([]);
  });
});
