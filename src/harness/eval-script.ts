/**
 * The per-instance evaluation script, written the way the harness writes it. Python (test_spec/python.py): show
 * the state, check out the test files at the base commit, apply the test patch, run the test command with
 * directives derived from the test patch between start/end markers, and revert the test files. Every other
 * language (test_spec/utils.py, make_eval_script_list_common, at SWE-bench b8d5332): reset the test files, apply
 * the test patch, run the spec's build commands, then its test commands between the markers, and reset again.
 * Both record the test command's exit status after the end marker, as harness 5.0 makes every script do.
 */
import { parsePatch } from '../patch.ts';
import { pythonTestCommand, testCommandsOf, type ResolvedSpec } from './specs.ts';
import { DOCKER_WORKDIR, END_TEST_OUTPUT, HEREDOC_DELIMITER, NON_TEST_EXTS, START_TEST_OUTPUT, TEST_EXIT_CODE, TEST_EXIT_CODE_VAR } from './constants.ts';

/** File paths named by `diff --git a/… b/<path>` lines, as the harness' regex reads them. */
function diffTargets(testPatch: string): string[] {
  return [...testPatch.matchAll(/diff --git a\/.* b\/(.*)/g)].map((m) => m[1]);
}

export function isDjangoTestFile(file: string): boolean {
  const base = file.split('/').at(-1) ?? file;
  return base === 'tests.py' || base.startsWith('test_') || file.includes('/tests/') || file.includes('/test_');
}

/** Test directives: test file paths, or for Django dotted module names relative to tests/. */
export function testDirectives(testPatch: string, style: ResolvedSpec['testDirectives']): string[] {
  if (style === 'none') return [];
  const files = diffTargets(testPatch).filter((f) => !NON_TEST_EXTS.some((ext) => f.endsWith(ext)));
  if (style !== 'django_modules') return files;
  return files.filter(isDjangoTestFile).map((f) => {
    let d = f.endsWith('.py') ? f.slice(0, -'.py'.length) : f;
    if (d.startsWith('tests/')) d = d.slice('tests/'.length);
    return d.replaceAll('/', '.');
  });
}

/** Files the test patch modifies that exist at the base commit, and files it creates. */
export function testPatchFiles(testPatch: string): { modified: string[]; created: string[] } {
  const modified: string[] = [];
  const created: string[] = [];
  for (const file of parsePatch(testPatch)) {
    if (file.isNew) {
      if (file.newPath) created.push(file.newPath);
    } else if (file.oldPath) {
      modified.push(file.oldPath);
    }
  }
  return { modified, created };
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The harness' record_test_exit_code (5.0, #620): the test command's own exit status, captured right after it and
 * echoed after the end marker, outside the parsed region. The script's own status is the trailing reset's, so
 * it says nothing about the tests. A script without an end marker is left as it is.
 */
export function recordTestExitCode(lines: readonly string[]): string[] {
  const end = lines.findIndex((line) => line.includes(END_TEST_OUTPUT));
  if (end < 0) return [...lines];
  return [...lines.slice(0, end), `${TEST_EXIT_CODE_VAR}=$?`, lines[end], `echo "${TEST_EXIT_CODE}: $${TEST_EXIT_CODE_VAR}"`, ...lines.slice(end + 1)];
}

/**
 * A 5.0 row's own eval script as the harness runs it (utils.make_test_spec): its lines without the shebang and
 * `set` line, the exit-code lines added, and the two put back.
 */
export function harnessEvalScript(evalScript: string): string {
  const lines = evalScript
    .trim()
    .split('\n')
    .filter((line) => line !== '#!/bin/bash' && line !== 'set -uxo pipefail');
  return ['#!/bin/bash', 'set -uxo pipefail', ...recordTestExitCode(lines)].join('\n') + '\n';
}

export interface EvalScriptInput {
  base_commit: string;
  test_patch: string;
}

export interface EvalScriptOptions {
  /** lines run first and again before the tests (conda activation in the official images) */
  prelude?: readonly string[];
  /** run the spec's install command before the tests (the harness does; only images that were set up with it) */
  runInstall?: boolean;
  /** test command override (default: the spec's test_cmd) */
  testCommand?: string;
}

export function makeEvalScript(instance: EvalScriptInput, spec: ResolvedSpec, options: EvalScriptOptions = {}): string {
  const prelude = options.prelude ?? [];
  const { modified, created } = testPatchFiles(instance.test_patch);
  const reset: string[] = [];
  if (modified.length) reset.push(`git checkout ${instance.base_commit} ${modified.map(shellQuote).join(' ')}`);
  if (created.length) reset.push(`rm -f ${created.map(shellQuote).join(' ')}`);
  const testCommand = [options.testCommand ?? pythonTestCommand(spec.spec), ...testDirectives(instance.test_patch, spec.testDirectives).map(shellQuote)].join(
    ' ',
  );
  const lines = [
    ...prelude,
    `cd ${DOCKER_WORKDIR}`,
    ...(spec.spec.eval_commands ?? []),
    `git config --global --add safe.directory ${DOCKER_WORKDIR}`,
    `cd ${DOCKER_WORKDIR}`,
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${instance.base_commit}`,
    ...prelude,
    ...(options.runInstall && spec.spec.install ? spec.spec.install : []),
    ...reset,
    `git apply -v - <<'${HEREDOC_DELIMITER}'\n${instance.test_patch}\n${HEREDOC_DELIMITER}`,
    `: '${START_TEST_OUTPUT}'`,
    testCommand,
    `: '${END_TEST_OUTPUT}'`,
    ...reset,
  ];
  return '#!/bin/bash\nset -uxo pipefail\n' + recordTestExitCode(lines).join('\n') + '\n';
}

/**
 * The eval script of a repository in any language but Python, line for line as the harness writes it: the test
 * files the patch modifies are reset (files it creates are left, as the harness leaves them), the test patch is
 * applied with `--reject`, the build commands run, and the test commands run as the spec names them (no
 * directives are appended). `testCommands` replaces the spec's (a single test file's run, for reproduction).
 */
export function makeCommonEvalScript(instance: EvalScriptInput, spec: ResolvedSpec, options: { testCommands?: readonly string[] } = {}): string {
  const { modified } = testPatchFiles(instance.test_patch);
  const reset = modified.length ? `git checkout ${instance.base_commit} ${modified.join(' ')}` : 'echo "No test files to reset"';
  const lines = [
    `cd ${DOCKER_WORKDIR}`,
    `git config --global --add safe.directory ${DOCKER_WORKDIR}`,
    `cd ${DOCKER_WORKDIR}`,
    reset,
    `git apply --verbose --reject - <<'${HEREDOC_DELIMITER}'\n${instance.test_patch}\n${HEREDOC_DELIMITER}`,
    ...(spec.spec.build ?? []),
    `: '${START_TEST_OUTPUT}'`,
    ...(options.testCommands ?? testCommandsOf(spec.spec)),
    `: '${END_TEST_OUTPUT}'`,
    reset,
  ];
  return ['#!/bin/bash', 'set -uxo pipefail', ...recordTestExitCode(lines)].join('\n') + '\n';
}
