/**
 * When an evaluation's tests could not run, its verdict says nothing about the patch: the instance is an
 * evaluation error with a reason, counted apart and retried, never "unresolved". This reads the test log
 * (and the status map the harness' parser made of it) for the ways a run fails before it judges anything:
 *
 * - the eval script stopped before or during the test command (no start/end markers);
 * - no test result at all (the test command failed before running tests: a missing module, a usage error,
 *   a version check such as pytest's minversion);
 * - collection failed and none of the instance's own tests has a status;
 * - one of the instance's tests failed on a network error while the sandbox has no network.
 *
 * A patch that breaks the code under test keeps its normal verdict: when the output that stopped the run
 * names a file the model patch changed (a traceback through it, a syntax error in it), the patch is the
 * likely cause and, confirmed by the gold baseline when there is execution (`patchStopsToo`), the instance is
 * graded as the harness grades it (unresolved). Checked on the 298 published
 * harness runs of SWE-Fixer's Lite patches: the 11 whose tests never ran all stop in a patched file.
 * A patch can also stop the run elsewhere (removing a name the new tests import, breaking the ORM under the
 * test database's setup): with execution, the gold patch's run in the same image decides
 * (validation/gold-baseline.ts); without it (regrading recorded logs), `repositoryCode` makes any stop that
 * names the repository's own code the patch's.
 */
import { END_TEST_OUTPUT, START_TEST_OUTPUT, TestStatus } from '../src/harness/constants.ts';
import { parsePatch } from '../src/patch.ts';
import type { GoldTests } from './grading.ts';
import type { StatusMap } from './log-parsers/index.ts';
import type { CannotRunReason } from '../src/util/error-kinds.ts';

export type CannotRunKind = CannotRunReason;

export interface CannotRun {
  kind: CannotRunKind;
  reason: string;
  /**
   * The output that stopped the run names code the model patch changed (only with `patchStopsToo`). That
   * points at the patch, but does not prove it: a dependency missing from the image is also reported at the
   * patched file that imports it (Go's "cannot find package" at gin.go). The gold baseline decides.
   */
  namesPatchedCode?: boolean;
}

/** What a failure looks like when it is the missing network, not the code (Python, requests, urllib, pip). */
const NETWORK_ERROR = new RegExp(
  [
    // messages of resolvers and sockets
    'Temporary failure in name resolution|Name or service not known|nodename nor servname|Network is unreachable|No route to host',
    'getaddrinfo failed|Failed to establish a new connection|Max retries exceeded with url|urlopen error|Could not resolve host',
    // exception types, which lead pytest's one-line summaries and so survive their truncation under --tb=no;
    // only as raised or printed (`Name: message`, `Name(args)`): a name alone also appears in dumps of
    // namespaces (pytest printing `__builtins__` lists ConnectionRefusedError), which say nothing
    String.raw`\b(?:requests\.exceptions\.ConnectionError|urllib\.error\.URLError|urllib3\.exceptions\.(?:MaxRetryError|NewConnectionError|NameResolutionError)|socket\.gaierror|ConnectionRefusedError)(?::|\()`,
  ].join('|'),
);

/**
 * A runner's own count of tests it ran (pytest's summary line, unittest's "Ran N tests"): then tests did run
 * even when no per-test line survived. pytest-dev__pytest-7168 before its fix crashes pytest's reporting
 * (INTERNALERROR) after "10 passed": that is the code under test failing, graded as the harness grades it.
 */
const TESTS_RAN = /^(?:=+ .*\b[1-9]\d* (?:passed|failed|errors?|xfailed|xpassed)\b.* in [\d.]+s.*=+|Ran [1-9]\d* tests? in [\d.]+s)$/m;

/** pytest's words for a collection that did not finish (and unittest's for a module it could not import). */
const COLLECTION_ERROR =
  /^(?:ERROR collecting .*|=+ ERRORS =+|Interrupted: \d+ errors? during collection.*|.*ImportError while importing test module.*|ERROR: (?:file or directory not found|usage): .*)$/m;

/** The first line of `text` matching `pattern`, trimmed and cut to a readable length. */
function firstLine(text: string, pattern: RegExp): string | undefined {
  for (const line of text.split('\n')) if (pattern.test(line)) return line.trim().slice(0, 300);
  return undefined;
}

/** The last non-blank lines of the test command's output: usually the error that stopped it. */
function tail(text: string, lines = 3): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('+ '))
    .slice(-lines)
    .join(' | ')
    .slice(0, 400);
}

export interface DiagnosisOptions {
  networkOff: boolean;
  /** repository paths the model patch changes: a run stopped in one of them is the patch's doing */
  patchedFiles?: readonly string[];
  /**
   * Without execution (regrading recorded logs, where no gold baseline can be run): the repository's own
   * top-level source folders (`repositoryRoots`). A run stopped with output naming the repository's own code
   * (a traceback through it, an import from it) is the patch's failure until shown otherwise.
   */
  repositoryCode?: readonly string[];
  /**
   * With execution: report a stop that names the patched code too (marked `namesPatchedCode`), so that the gold
   * patch's run in the same image can tell a broken patch from a broken environment. Without it (regrading
   * recorded logs), such a stop is the patch's and the run gets its normal verdict.
   */
  patchStopsToo?: boolean;
}

/**
 * The top-level source folders of the repository, from the files the gold patch changes (tests left out):
 * `django` for django/django, `pylint` for pylint-dev/pylint.
 */
export function repositoryRoots(goldPatch: string): string[] {
  const roots = patchedFiles(goldPatch)
    .filter((file) => file.includes('/') && !/(^|\/)(tests?|testing)(\/|$)/.test(file))
    .map((file) => file.split('/')[0]);
  return [...new Set(roots)];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the output names a file or module of the repository's own code (`django/db/…`, `'pylint.pyreverse.utils'`). */
function namesRepositoryCode(output: string, roots: readonly string[]): boolean {
  return roots.some((root) => new RegExp(`(?:^|[\\s"'(/])${escapeRegExp(root)}[/.][A-Za-z_]`, 'm').test(output));
}

export function diagnoseTestRun(log: string, statusMap: StatusMap, gold: GoldTests, options: DiagnosisOptions): CannotRun | undefined {
  const start = log.indexOf(START_TEST_OUTPUT);
  const end = log.indexOf(END_TEST_OUTPUT, start + 1);
  if (start < 0 || end < 0) {
    return {
      kind: 'no-test-output',
      reason: `the eval script stopped before the tests finished (no "${start < 0 ? START_TEST_OUTPUT : END_TEST_OUTPUT}" marker): ${tail(log)}`,
    };
  }
  const output = log.slice(start + START_TEST_OUTPUT.length, end);
  const own = [...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS];
  const patchBroke =
    (options.patchedFiles ?? []).some((file) => output.includes(file)) ||
    (options.repositoryCode !== undefined && namesRepositoryCode(output, options.repositoryCode));
  const reported = !patchBroke || options.patchStopsToo === true;
  const marked = (cannotRun: CannotRun): CannotRun => (patchBroke ? { ...cannotRun, namesPatchedCode: true } : cannotRun);
  if (Object.keys(statusMap).length === 0 && reported && !TESTS_RAN.test(output)) {
    return marked({ kind: 'no-tests-ran', reason: `no test ran: the test command produced no test result (${tail(output) || 'no output'})` });
  }
  const collection = firstLine(output, COLLECTION_ERROR);
  if (collection && reported && own.length > 0 && own.every((test) => !(test in statusMap))) {
    return marked({ kind: 'collection-failed', reason: `test collection failed, none of the instance's tests ran: ${collection}` });
  }
  if (options.networkOff) {
    const failed = own.filter((test) => statusMap[test] === TestStatus.FAILED || statusMap[test] === TestStatus.ERROR);
    const network = failed.length > 0 ? firstLine(output, NETWORK_ERROR) : undefined;
    if (network) {
      return { kind: 'network', reason: `${failed.length} of the instance's tests failed with the network off (e.g. ${failed[0]}): ${network}` };
    }
  }
  return undefined;
}

/** Repository paths a model patch changes (an unreadable patch changes none that we can name). */
export function patchedFiles(patch: string): string[] {
  try {
    return [...new Set(parsePatch(patch).flatMap((f) => [f.oldPath, f.newPath].filter((p): p is string => Boolean(p) && p !== '/dev/null')))];
  } catch {
    return [];
  }
}
