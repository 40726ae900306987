/** What a test-log parser is: a log (and the instance it belongs to, for parsers that choose by instance) to test → status. */
import type { HarnessVersion } from './harness-releases.ts';

/** A test's status, spelled as the SWE-bench harness spells it (logs and reports read the same as its own). */
export const TestStatus = {
  FAILED: 'FAILED',
  PASSED: 'PASSED',
  SKIPPED: 'SKIPPED',
  ERROR: 'ERROR',
  XFAIL: 'XFAIL',
} as const;
export type TestStatus = (typeof TestStatus)[keyof typeof TestStatus];

export type StatusMap = Record<string, TestStatus>;

/** A test the log reports more than once with different outcomes: which status was kept, which was not. */
export interface StatusConflict {
  test: string;
  kept: TestStatus;
  dropped: TestStatus;
}

export interface ParseContext {
  /** the instance, for parsers that choose their form by instance (immutable-js, jekyll) */
  instanceId?: string;
  /** whose parser to be: a release's parsers differ in a few places (pytest_v2 ids with spaces); default 5.0.2 */
  harness?: HarnessVersion;
  /**
   * One status per test, the failure winning: the harness' maps are last-wins, so a line printed after the
   * runner's own (by the code under test, which shares its stdout) replaces a failure with a pass. locfix's
   * rule keeps any FAILED or ERROR a test was given and reports each conflict here.
   */
  failureWins?: boolean;
  onConflict?: (conflict: StatusConflict) => void;
  /** reports that the log cannot be read as the runner wrote it (output the code under test can write) */
  onAmbiguity?: (reason: string) => void;
  /** reports output the parser left out under failure-wins: result lines after the runner's closing summary */
  onIgnored?: (reason: string) => void;
}

export type LogParser = (log: string, context?: ParseContext) => StatusMap;

const FAILING = new Set<string>([TestStatus.FAILED, TestStatus.ERROR]);
/**
 * pytest's progress column ("[100%]") read as a test id from wrapped lines: no test, but three Lite rows list it
 * as PASS_TO_PASS (pytest-dev__pytest-5227, -5262, -7521) and it is given every status the wrapped lines show,
 * so it stays last-wins as the harness graded it.
 */
const PROGRESS_COLUMN = /^\[\s*\d+%\]$/;

/**
 * The map a parser fills. Under `failureWins` a later pass, skip or xfail never replaces a failure (and the
 * conflict is reported); otherwise assignments are last-wins, as the harness' dicts are.
 */
export function newStatusMap(context: ParseContext = {}): StatusMap {
  const target: StatusMap = {};
  if (!context.failureWins) return target;
  return new Proxy(target, {
    set(map, key, value: TestStatus) {
      if (typeof key !== 'string' || PROGRESS_COLUMN.test(key)) return Reflect.set(map, key, value);
      const before = Object.hasOwn(map, key) ? map[key] : undefined;
      if (before !== undefined && before !== value) {
        const keepBefore = FAILING.has(before) && !FAILING.has(value);
        context.onConflict?.({ test: key, kept: keepBefore ? before : value, dropped: keepBefore ? value : before });
        if (keepBefore) return true;
      }
      map[key] = value;
      return true;
    },
  });
}

/**
 * The log up to its runner's last closing summary (pytest's "== 1 failed, 2 passed in 0.1s ==", unittest's "OK" or
 * "FAILED (…)", libtest's "test result: …"), under failure-wins: a runner prints no result after it, so result
 * lines there are the code under test's own (an atexit print, a pytest_unconfigure hook) and are left out. A
 * log without a closing line (the runner died) is read whole.
 */
export function runnerOwnOutput(
  log: string,
  closing: RegExp,
  isResult: (line: string) => boolean,
  context: ParseContext,
  normalize: (line: string) => string = (line) => line,
): string {
  if (!context.failureWins) return log;
  const lines = log.split('\n');
  const read = (line: string) => normalize(line).trim();
  const last = lines.findLastIndex((line) => closing.test(read(line)));
  if (last < 0) return log;
  const after = lines.slice(last + 1).filter((line) => isResult(read(line))).length;
  if (after === 0) return log;
  context.onIgnored?.(`${after} result line(s) after the runner's closing summary, which the runner cannot have printed`);
  return lines.slice(0, last + 1).join('\n');
}

/**
 * The runner's own count of passed tests against the log's (locfix's rule): a log that reports more passed tests
 * than the runner's closing lines count (pytest's "=== 5 passed in 0.1s ===", unittest's "Ran 5 tests") holds
 * result lines the runner did not print, such as PASSED lines printed by code that deselected or never ran the
 * tests. `counted` sums every closing line of the log (undefined: none, the runner died); `perTest` allows for a
 * parser that reads one test under two names (Django's described tests).
 */
export function checkPassCount(map: StatusMap, counted: number | undefined, runner: string, context: ParseContext, perTest = 1): void {
  if (!context.failureWins || counted === undefined) return;
  const passed = Object.entries(map).filter(([test, status]) => status === TestStatus.PASSED && !PROGRESS_COLUMN.test(test)).length;
  if (passed > counted * perTest) {
    context.onAmbiguity?.(`the log reports ${passed} passed test(s) but ${runner}'s own closing lines count ${counted}`);
  }
}

/** A plain copy of a parser's map (a failure-wins map is a Proxy). */
export function plainStatusMap(map: StatusMap): StatusMap {
  return { ...map };
}

/**
 * Each line of a log, as the harness' `re.match(pattern, line.strip())` sees it: `pattern` anchored at the start,
 * the line stripped. Calls `onMatch` with the groups of every matching line.
 */
export function eachMatch(log: string, pattern: RegExp, onMatch: (groups: string[]) => void): void {
  const anchored = pattern.source.startsWith('^') ? pattern : new RegExp(`^(?:${pattern.source})`, pattern.flags);
  for (const line of log.split('\n')) {
    const m = anchored.exec(line.trim());
    if (m) onMatch(m.slice(1));
  }
}
