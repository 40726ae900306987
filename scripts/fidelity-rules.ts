/**
 * What `bench:fidelity --regrade` needs beyond grading itself: a published pre-5.0 log in 5.0's shape (markers and
 * the recorded exit code), and a log forged as a patch that prints passing lines would forge it.
 */
import { END_TEST_OUTPUT, START_TEST_OUTPUT, TEST_EXIT_CODE } from '../src/harness/constants.ts';
import { parseTestExitCode } from '../validation/grading-rules.ts';

const PYTEST_FAMILY = new Set([
  'pytest',
  'pytest_options',
  'pytest_v2',
  'matplotlib',
  'seaborn',
  'astropy',
  'scikit',
  'sphinx',
  'xarray',
  'requests',
  'pylint',
]);

/**
 * The test command's exit status as its runner's own closing lines say it, for a log that did not record one:
 * pytest's "= 1 failed, 3 passed in 2s =" (1 with a failure or error, 5 when no test ran), unittest's (Django's)
 * "FAILED (failures=1)" or "OK", sympy's "tests finished: 3 passed, 1 failed". A runner that never printed its
 * closing line did not finish (it crashed or was killed): 1, as a 5.0 eval script would have recorded a non-zero
 * status. Undefined for other runners.
 */
export function exitCodeFromSummary(log: string, parser: string): number | undefined {
  // eslint-disable-next-line no-control-regex
  const lines = log.split('\n').map((line) => line.replace(/\x1b\[[\d;]*m/g, ''));
  const last = (pattern: RegExp) => lines.filter((l) => pattern.test(l)).at(-1);
  if (PYTEST_FAMILY.has(parser)) {
    const summary = last(/^=+ .* in [\d.]+ ?s(econds)?( \([\d:]+\))? =+$/);
    if (!summary) return last(/^=+ no tests ran/) ? 5 : 1;
    if (/\d+ (failed|errors?)\b/.test(summary)) return 1;
    return /no tests ran/.test(summary) ? 5 : 0;
  }
  if (parser === 'django') {
    const summary = last(/^(FAILED \(|OK\b)/);
    return summary === undefined || summary.startsWith('FAILED') ? 1 : 0;
  }
  if (parser === 'sympy') {
    const summary = last(/tests finished: /);
    if (!summary) return 1;
    return /\d+ (failed|exceptions?)/.test(summary.replace(/\b0 (failed|exceptions?)/g, '')) ? 1 : 0;
  }
  return undefined;
}

/** A log in 5.0's shape: its test exit code recorded after the end marker, from the runner's own summary. */
export function reshapeAs50(markedLog: string, parser: string): { log: string; exitCode?: number } {
  if (parseTestExitCode(markedLog) !== undefined) return { log: markedLog, exitCode: parseTestExitCode(markedLog) };
  const at = markedLog.lastIndexOf(END_TEST_OUTPUT);
  const exitCode = exitCodeFromSummary(markedLog.slice(0, at < 0 ? undefined : at), parser);
  if (exitCode === undefined || at < 0) return { log: markedLog };
  const lineEnd = markedLog.indexOf('\n', at);
  const cut = lineEnd < 0 ? markedLog.length : lineEnd + 1;
  return { log: `${markedLog.slice(0, cut)}${lineEnd < 0 ? '\n' : ''}${TEST_EXIT_CODE}: ${exitCode}\n${markedLog.slice(cut)}`, exitCode };
}

/** The line a runner prints for a passing test, as the parser reads it back. */
export function passingLine(test: string, parser: string): string | undefined {
  if (PYTEST_FAMILY.has(parser) || parser === 'pytest') return `PASSED ${test}`;
  if (parser === 'django') return `${test} ... ok`;
  if (parser === 'sympy') return `${test} ok`;
  return undefined;
}

/**
 * The log a patch would make that prints a passing line for every test the grading looks at (a conftest hook, an
 * atexit print) after the runner's own output and before the end marker.
 */
export function forgePasses(log: string, tests: readonly string[], parser: string): string | undefined {
  const lines = tests.map((t) => passingLine(t, parser));
  if (lines.some((l) => l === undefined)) return undefined;
  const at = log.lastIndexOf(END_TEST_OUTPUT);
  if (at < 0 || !log.includes(START_TEST_OUTPUT)) return undefined;
  const lineStart = log.lastIndexOf('\n', at) + 1;
  return `${log.slice(0, lineStart)}${lines.join('\n')}\n${log.slice(lineStart)}`;
}
