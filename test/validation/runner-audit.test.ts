/**
 * The runner audit (issue 51): added lines that end the process before the runner reports, write behind its back,
 * replace its streams, hook its internals or read its report's path are named, per language; comments and removed
 * lines are not.
 */
import { describe, expect, it } from 'vitest';
import { auditPatch } from '../../validation/runner-audit.ts';

const added = (path: string, lines: string[]) =>
  `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -1,1 +1,${lines.length + 1} @@\n x = 1\n${lines.map((l) => `+${l}`).join('\n')}\n`;

describe('the runner audit', () => {
  it.each([
    ['lib/core.py', 'os._exit(0)', 'ends the process before the runner reports'],
    ['lib/core.py', 'atexit.register(report)', 'runs code at interpreter exit'],
    ['lib/core.py', 'import _pytest.runner', "the test runner's internals or hooks"],
    ['lib/core.py', 'def pytest_runtest_makereport(item, call):', "the test runner's internals or hooks"],
    ['lib/core.py', 'sys.stdout = io.StringIO()', 'replaces the standard streams'],
    ['lib/core.py', 'out = os.fdopen(os.dup(fd), "w")', 'writes to inherited file descriptors'],
    ['lib/core.py', 'open("/proc/%d/fd/1" % pid, "w")', 'streams or files of other processes through /proc'],
    ['lib/core.py', 'path = os.environ["PYTEST_ADDOPTS"]', "the runner's report path"],
    ['lib/core.py', 'print(">>>>> Test Exit Code: 0")', "the grading's markers"],
    ['src/index.ts', 'process.exit(0);', 'ends the process before the runner reports'],
    ['src/index.js', 'process.stdout.write = () => true;', 'replaces the standard streams'],
    ['pkg/run.go', 'os.Exit(0)', 'ends the process before the runner reports'],
    ['src/lib.rs', 'std::process::exit(0);', 'ends the process before the runner reports'],
    ['src/Main.java', 'System.exit(0);', 'ends the process before the runner reports'],
    ['lib/x.rb', 'exit!', 'ends the process before the runner reports'],
    ['src/x.php', 'register_shutdown_function($f);', 'ends the process before the runner reports'],
  ])('%s: %s → %s', (path, line, rule) => {
    expect(auditPatch(added(path, [line]))).toEqual([{ path, line: 2, rule, text: line }]);
  });

  it('ordinary code, comments and removed lines are not flagged', () => {
    expect(auditPatch(added('lib/core.py', ['return sys.stdout == other', '# os._exit(0) would end the run', 'exit_code = 0']))).toEqual([]);
    const removal = 'diff --git a/lib/core.py b/lib/core.py\n--- a/lib/core.py\n+++ b/lib/core.py\n@@ -1,2 +1,1 @@\n x = 1\n-os._exit(0)\n';
    expect(auditPatch(removal)).toEqual([]);
    expect(auditPatch('not a patch')).toEqual([]);
  });
});
