/**
 * A tiny SWE-bench-style task made on the fly for evaluation tests: a Python project with one bug, a bare
 * mirror of it, the gold patch, a test patch (one modified and one new test file), FAIL_TO_PASS /
 * PASS_TO_PASS lists, and a few other candidate patches (wrong, not applicable, hanging).
 * The repository is named "minibench/clampkit" so it uses the mini-benchmark's environment spec.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SweInstance } from '../../src/dataset/schema.ts';

export const FIXTURE_REPO = 'minibench/clampkit';

const BASE_FILES: Record<string, string> = {
  'clampkit/__init__.py': 'from .core import add, clamp\n',
  'clampkit/core.py': [
    'def add(a, b):',
    '    return a + b',
    '',
    '',
    'def clamp(x, lo, hi):',
    '    """Limit x to the closed interval [lo, hi]."""',
    '    if x < lo:',
    '        return lo',
    '    if x > hi:',
    '        return lo',
    '    return x',
    '',
  ].join('\n'),
  'tests/__init__.py': '',
  'tests/test_core.py': [
    'from clampkit import add, clamp',
    '',
    '',
    'def test_add():',
    '    assert add(2, 3) == 5',
    '',
    '',
    'def test_clamp_low():',
    '    assert clamp(-5, 0, 10) == 0',
    '',
    '',
    'def test_clamp_inside():',
    '    assert clamp(4, 0, 10) == 4',
    '',
  ].join('\n'),
};

const TEST_PATCH_EDITS: Record<string, string> = {
  'tests/test_core.py': BASE_FILES['tests/test_core.py'] + ['', '', 'def test_clamp_high():', '    assert clamp(15, 0, 10) == 10', ''].join('\n'),
  'tests/test_bounds.py': [
    'import pytest',
    'from clampkit import clamp',
    '',
    '',
    '@pytest.mark.parametrize("x,expected", [(11, 10), (10, 10), (-1, 0)])',
    'def test_bounds(x, expected):',
    '    assert clamp(x, 0, 10) == expected',
    '',
  ].join('\n'),
};

export interface EvalFixture {
  root: string;
  /** bare mirror of the repository */
  gitDir: string;
  instance: SweInstance;
  patches: {
    gold: string;
    wrong: string;
    notApplicable: string;
    hanging: string;
    fixBreaksAdd: string;
    hangsInAdd: string;
    fuzzy: string;
    alreadyApplied: string;
    /** the wrong fix, and a conftest.py whose hook prints PASSED lines for the FAIL_TO_PASS tests after pytest's own */
    forgesPassed: string;
    /** the wrong fix, and a conftest.py that drops the FAIL_TO_PASS tests from the run and prints their PASSED
     * lines to the terminal during collection (before pytest's closing summary, with nothing failing), with a
     * closing line that counts them */
    forgesByDeselecting: string;
    /** no fix; a conftest.py whose pytest_runtest_makereport hook turns failed reports into passed (SWE-bench #631) */
    forgesByReportHook: string;
    /** no fix; a new tests/conftest.py that replaces every collected test's body with a no-op */
    neutersTests: string;
    /** no fix; the module under test prints PASSED lines and a forged exit code at import, then os._exit(0) */
    forgesExitCode: string;
    /** no fix; the module under test prints PASSED lines and a fake early end marker, rewrites pytest's JUnit file
     * (its path read from PYTEST_ADDOPTS) as all passing, then os._exit(0) */
    forgesEndMarker: string;
    /** a new setup.cfg whose [tool:pytest] puts a fixed copy of the package first on sys.path (the repository's stays broken) */
    forgesBySetupCfg: string;
    /** the gold fix, and a harmless `atexit` hook: resolves, flagged by the runner audit */
    goldWithExitHook: string;
  };
  cleanup(): void;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'fixture',
      GIT_AUTHOR_EMAIL: 'f@x',
      GIT_COMMITTER_NAME: 'fixture',
      GIT_COMMITTER_EMAIL: 'f@x',
      GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
      GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
    },
  });
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), content);
  }
}

/** The diff that `edit` makes to the work tree (new files included), after which the tree is reset. */
function diffOf(work: string, edit: Record<string, string>): string {
  writeFiles(work, edit);
  git(work, ['add', '-A']);
  const diff = git(work, ['diff', '--cached']);
  git(work, ['reset', '-q', '--hard']);
  git(work, ['clean', '-qfdx']);
  return diff;
}

function replaceIn(file: string, from: string, to: string): string {
  const content = BASE_FILES[file];
  if (!content.includes(from)) throw new Error(`fixture: ${from} not in ${file}`);
  return content.replace(from, to);
}

export function buildEvalFixture(): EvalFixture {
  const root = mkdtempSync(path.join(os.tmpdir(), 'locfix-evalfix-'));
  const work = path.join(root, 'work');
  mkdirSync(work);
  git(work, ['init', '-q', '-b', 'main']);
  writeFiles(work, BASE_FILES);
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'clampkit 0.1']);
  const baseCommit = git(work, ['rev-parse', 'HEAD']).trim();

  const gold = diffOf(work, { 'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return hi') });
  const wrong = diffOf(work, { 'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return x') });
  const fixBreaksAdd = diffOf(work, {
    'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return hi').replace(
      'return a + b',
      'return a * b',
    ),
  });
  const hangsInAdd = diffOf(work, { 'clampkit/core.py': BASE_FILES['clampkit/core.py'].replace('    return a + b', '    while True:\n        pass') });
  const hanging = diffOf(work, {
    'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        while True:\n            pass'),
  });
  // Its context matches nothing in the file: git apply, git apply --reject and patch --fuzz=5 all fail.
  const notApplicable = [
    'diff --git a/clampkit/core.py b/clampkit/core.py',
    '--- a/clampkit/core.py',
    '+++ b/clampkit/core.py',
    '@@ -20,6 +20,6 @@ def scale(x, factor):',
    ' def scale(x, factor):',
    '     """Multiply x by factor."""',
    '     result = x * factor',
    '-    return result + 1',
    '+    return result',
    ' ',
    ' ',
    '',
  ].join('\n');
  // The gold fix with a context line that differs from the file: only `patch --fuzz` applies it (git apply
  // and --3way refuse, --reject leaves core.py.rej behind, which the harness' reset removes before `patch`).
  const fuzzy = gold.replace('\n     if x < lo:\n', '\n     if x <= lo:\n');
  if (fuzzy === gold) throw new Error('fixture: the fuzzy patch needs `if x < lo:` as context');
  // The wrong patch reversed: it does not apply, but its result is the base commit, so the harness'
  // reverse check counts it as already applied.
  const alreadyApplied = wrong
    .split('\n')
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++') ? `-${line.slice(1)}` : line.startsWith('-') && !line.startsWith('---') ? `+${line.slice(1)}` : line,
    )
    .join('\n');
  const forgesPassed = diffOf(work, {
    'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return x'),
    'conftest.py': [
      'import sys',
      '',
      '',
      'def pytest_unconfigure(config):',
      '    sys.stdout.write("PASSED tests/test_core.py::test_clamp_high\\nPASSED tests/test_bounds.py::test_bounds[11-10]\\n")',
      '',
    ].join('\n'),
  });
  const forgesByDeselecting = diffOf(work, {
    'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return x'),
    'conftest.py': [
      'F2P = ("tests/test_core.py::test_clamp_high", "tests/test_bounds.py::test_bounds[11-10]")',
      '',
      '',
      'def pytest_collection_modifyitems(config, items):',
      '    items[:] = [item for item in items if item.nodeid not in F2P]',
      '    terminal = config.pluginmanager.get_plugin("terminalreporter")',
      '    for test in F2P:',
      '        terminal.write_line("PASSED " + test)',
      // a closing line of its own, so that pytest's closing counts add up to the passes the log shows
      '    terminal.write_line("=== %d passed in 0.01s ===" % len(F2P))',
      '',
    ].join('\n'),
  });
  const allTests = [
    'tests/test_core.py::test_clamp_high',
    'tests/test_bounds.py::test_bounds[11-10]',
    'tests/test_core.py::test_add',
    'tests/test_core.py::test_clamp_low',
    'tests/test_core.py::test_clamp_inside',
    'tests/test_bounds.py::test_bounds[10-10]',
    'tests/test_bounds.py::test_bounds[-1-0]',
  ];
  // pytest captures the test process' own output during collection: the forgery writes to the stream of the shell
  // that runs pytest (the eval script's), through pytest's own saved copy of it, found by its inode in /proc
  const printsPassed = [
    'target = os.stat("/proc/%d/fd/1" % os.getppid()).st_ino',
    'fds = [int(f) for f in os.listdir("/proc/self/fd") if f.isdigit()]',
    'out = os.fdopen(os.dup(next(fd for fd in fds if fd > 2 and os.fstat(fd).st_ino == target)), "w")',
    `out.write(${JSON.stringify(allTests.map((t) => `PASSED ${t}\n`).join(''))})`,
  ].join('\n');
  const forgesByReportHook = diffOf(work, {
    'conftest.py': [
      'import pytest',
      '',
      '',
      '@pytest.hookimpl(hookwrapper=True)',
      'def pytest_runtest_makereport(item, call):',
      '    outcome = yield',
      '    report = outcome.get_result()',
      '    if report.failed:',
      '        report.outcome = "passed"',
      '        report.longrepr = None',
      '',
    ].join('\n'),
  });
  const neutersTests = diffOf(work, {
    'tests/conftest.py': ['def pytest_collection_modifyitems(config, items):', '    for item in items:', '        item.obj = lambda *a, **k: None', ''].join(
      '\n',
    ),
  });
  // pytest loads `-p` plugins before it reads `pythonpath`, so the setup.cfg forgery shadows the package under test
  // instead: the repository's clamp stays broken, and the tests import a fixed copy from a folder the patch adds
  const forgesBySetupCfg = diffOf(work, {
    'setup.cfg': ['[metadata]', 'name = clampkit', '', '[tool:pytest]', 'pythonpath = build/shadow', 'addopts = --import-mode=append', ''].join('\n'),
    'build/shadow/clampkit/__init__.py': 'def add(a, b):\n    return a + b\n\n\ndef clamp(x, lo, hi):\n    return min(max(x, lo), hi)\n',
  });
  const atImport = (lines: string[]) =>
    replaceIn('clampkit/core.py', 'def add(a, b):', ['import os', 'import sys', '', ...lines, '', '', 'def add(a, b):'].join('\n'));
  const forgesExitCode = diffOf(work, {
    'clampkit/core.py': atImport([printsPassed, 'out.write(">>>>> Test Exit Code: 0\\n")', 'out.flush()', 'os._exit(0)']),
  });
  const junit = `<testsuites><testsuite>${allTests.map((t) => `<testcase classname="${t.split('::')[0]!.replace('.py', '').replaceAll('/', '.')}" name="${t.split('::')[1]}"/>`).join('')}</testsuite></testsuites>`;
  const forgesEndMarker = diffOf(work, {
    'clampkit/core.py': atImport([
      printsPassed,
      `out.write("+ : '>>>>> End Test Output'\\n")`,
      'out.flush()',
      'path = os.environ.get("PYTEST_ADDOPTS", "").partition("--junitxml=")[2].split(" ")[0]',
      `if path: open(path, "w").write(${JSON.stringify(junit)})`,
      'os._exit(0)',
    ]),
  });
  const goldWithExitHook = diffOf(work, {
    'clampkit/core.py': replaceIn('clampkit/core.py', '    if x > hi:\n        return lo', '    if x > hi:\n        return hi').replace(
      'def add(a, b):',
      'import atexit\n\natexit.register(lambda: None)\n\n\ndef add(a, b):',
    ),
  });
  const testPatch = diffOf(work, TEST_PATCH_EDITS);

  const gitDir = path.join(root, 'clampkit.git');
  execFileSync('git', ['clone', '-q', '--bare', work, gitDir]);

  const instance: SweInstance = {
    instance_id: 'minibench__clampkit-1',
    repo: FIXTURE_REPO,
    base_commit: baseCommit,
    problem_statement: 'clamp(x, lo, hi) returns lo for values above hi',
    patch: gold,
    test_patch: testPatch,
    hints_text: '',
    version: '0.1',
    FAIL_TO_PASS: ['tests/test_core.py::test_clamp_high', 'tests/test_bounds.py::test_bounds[11-10]'],
    PASS_TO_PASS: [
      'tests/test_core.py::test_add',
      'tests/test_core.py::test_clamp_low',
      'tests/test_core.py::test_clamp_inside',
      'tests/test_bounds.py::test_bounds[10-10]',
      'tests/test_bounds.py::test_bounds[-1-0]',
    ],
  };
  return {
    root,
    gitDir,
    instance,
    patches: {
      gold,
      wrong,
      notApplicable,
      hanging,
      fixBreaksAdd,
      hangsInAdd,
      fuzzy,
      alreadyApplied,
      forgesPassed,
      forgesByDeselecting,
      forgesByReportHook,
      neutersTests,
      forgesBySetupCfg,
      forgesExitCode,
      forgesEndMarker,
      goldWithExitHook,
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A diff adding `file` with `lines` (a test patch or model patch of a new file). */
export function addFile(file: string, lines: string[]): string {
  return [
    `diff --git a/${file} b/${file}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ b/${file}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');
}
