/**
 * Markers and statuses with the SWE-bench harness' exact spellings: logs and reports written by locfix
 * must read the same as the harness' own.
 */
export const START_TEST_OUTPUT = '>>>>> Start Test Output';
export const END_TEST_OUTPUT = '>>>>> End Test Output';
export const APPLY_PATCH_FAIL = '>>>>> Patch Apply Failed';
export const APPLY_PATCH_PASS = '>>>>> Applied Patch';
export const RESET_FAILED = '>>>>> Reset Failed';
export const TESTS_ERROR = '>>>>> Tests Errored';
export const TESTS_TIMEOUT = '>>>>> Tests Timed Out';
/** Written after the end marker by the eval script (harness 5.0, PR #620): the test command's own exit status. */
export const TEST_EXIT_CODE = '>>>>> Test Exit Code';
export const TEST_EXIT_CODE_VAR = 'SWEBENCH_TEST_EXIT_CODE';

/**
 * locfix's policies for a model patch's test machinery (validation/test-machinery.ts): kept at the base commit
 * (restore, the default under the unforgeable rule), applied as written (keep), or the instance not graded (refuse).
 */
export const TEST_MACHINERY_POLICIES = ['restore', 'keep', 'refuse'] as const;
export type TestMachineryPolicy = (typeof TEST_MACHINERY_POLICIES)[number];

/** The harness releases and their grading switches: src/languages/harness-releases.ts. */
export { DEFAULT_HARNESS, HARNESS_VERSIONS, type HarnessVersion } from '../languages/harness-releases.ts';

/** A test's status, in the harness' spelling: the log parsers' vocabulary (src/languages/log-parser.ts). */
export { TestStatus } from '../languages/log-parser.ts';

export const ResolvedStatus = {
  NO: 'RESOLVED_NO',
  PARTIAL: 'RESOLVED_PARTIAL',
  FULL: 'RESOLVED_FULL',
} as const;
export type ResolvedStatus = (typeof ResolvedStatus)[keyof typeof ResolvedStatus];

/** Model patches are tried with these commands, in order, as the harness does (run_evaluation.py GIT_APPLY_CMDS). */
export const PATCH_APPLY_COMMANDS = [
  'git apply --verbose',
  'git apply --verbose --3way',
  'git apply --verbose --reject',
  'patch --batch --forward --fuzz=5 -p1 -i',
] as const;
/** Run before every attempt after the first: a failed attempt (notably --reject) leaves partial state behind. */
export const PATCH_RESET_COMMAND = 'git checkout -- . ; git clean -fd';
/** When every command failed: the chain may still have left the patch fully applied (the harness checks so). */
export const PATCH_ALREADY_APPLIED_CHECK = 'git apply --check --reverse';
/** What the instance report records as the applying command when only that check passed. */
export const PATCH_ALREADY_APPLIED = 'already applied (git apply --check --reverse)';

/** Files a test patch touches that are not tests (the harness' NON_TEST_EXTS; "csv" has no dot there). */
export const NON_TEST_EXTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

export const DOCKER_PATCH = '/tmp/patch.diff';
export const DOCKER_WORKDIR = '/testbed';
export const LOG_REPORT = 'report.json';
export const LOG_INSTANCE = 'run_instance.log';
export const LOG_TEST_OUTPUT = 'test_output.txt';
export const HEREDOC_DELIMITER = 'EOF_114329324912';
