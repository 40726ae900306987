/**
 * Python test-log parsers: test name -> status, behaving like the SWE-bench harness' parsers (log_parsers/python.py)
 * line for line, including their quirks. The FAIL_TO_PASS / PASS_TO_PASS names in the dataset were produced
 * by those parsers, so a "better" parser would grade differently: e.g. for `FAILED x - msg` the harness
 * turns " - " into a space and takes the second word, which also cuts a parametrized id that contains
 * " - " or a space at that point.
 */
import { TestStatus } from '../log-parser.ts';
import { parsingOf, type ParsingSwitches } from '../harness-releases.ts';
import { checkPassCount, type StatusMap, newStatusMap, type ParseContext, runnerOwnOutput } from '../log-parser.ts';

const STATUSES = Object.values(TestStatus);
/** pytest's closing line: "=== 1 failed, 2 passed, 1 warning in 0.12s ===" ("in 0.12 seconds" before pytest 5) */
const PYTEST_CLOSING = /^=+ .*\b(passed|failed|errors?|skipped|xfailed|xpassed|deselected|no tests ran)\b.* in [\d.]+ ?s.*=+$/;
const UNITTEST_CLOSING = /^(OK\b|FAILED \()/;
const SYMPY_CLOSING = /^=+ tests finished: /;
const noColour = (line: string) => line.replace(/\x1b?\[(\d+;)*\d*m/g, '');
const pytestOwnOutput = (log: string, context: ParseContext) =>
  runnerOwnOutput(log, PYTEST_CLOSING, (line) => STATUSES.some((s) => line.startsWith(s) || line.endsWith(s) || line.includes(` ${s} `)), context, noColour);

/** The passed tests every pytest closing line of the log counts, summed (sessions run one after another); none: undefined. */
function pytestPassedCount(log: string): number | undefined {
  let total: number | undefined;
  for (const raw of log.split('\n')) {
    const line = noColour(raw).trim();
    if (!PYTEST_CLOSING.test(line)) continue;
    total = (total ?? 0) + Number(/(?<![\w-])(\d+) passed\b/.exec(line)?.[1] ?? 0);
  }
  return total;
}

/** The parsed map, checked against pytest's closing counts (log-parser.ts `checkPassCount`). */
function checkedAgainstPytest(map: StatusMap, log: string, context: ParseContext): StatusMap {
  checkPassCount(map, pytestPassedCount(log), 'pytest', context);
  return map;
}

/** The tests every unittest "Ran N tests" line counts, summed; none: undefined. */
function unittestRanCount(log: string): number | undefined {
  let total: number | undefined;
  for (const match of log.matchAll(/^Ran (\d+) tests? in /gm)) total = (total ?? 0) + Number(match[1]);
  return total;
}
const STATUS_ALT = STATUSES.join('|');
const STATUS_FIRST = new RegExp(`^(${STATUS_ALT})\\s+(\\S+)`);
const TEST_FIRST = new RegExp(`^(\\S+)\\s+(${STATUS_ALT})(?:\\s|$)`);
/** pytest's "SKIPPED [3] path:12: reason" summary: no test (5.0's _is_skip_summary; 4.1 recorded "[3]") */
const SKIP_COUNT = /^\[\d+\]$/;

/** Python's str.split() with no argument: split on whitespace runs, no empty words. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length > 0);
}

function parsePytestResultLine(line: string, parsing: ParsingSwitches): [string, TestStatus] | undefined {
  const statusFirst = STATUS_FIRST.exec(line);
  if (statusFirst) {
    const status = statusFirst[1] as TestStatus;
    let name = statusFirst[2];
    if (status === TestStatus.FAILED) name = words(line.replaceAll(' - ', ' '))[1];
    // "SKIPPED [3] tests/x.py:12: reason" is a summary of skips, not a test
    if (parsing.skipSummaryLines && status === TestStatus.SKIPPED && SKIP_COUNT.test(name)) return undefined;
    return [name, status];
  }
  const testFirst = TEST_FIRST.exec(line);
  if (testFirst) return [testFirst[1], testFirst[2] as TestStatus];
  return undefined;
}

export function parseLogPytest(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = pytestOwnOutput(fullLog, context);
  const map = newStatusMap(context);
  for (const line of log.split('\n')) {
    const parsed = parsePytestResultLine(line, parsingOf(context.harness));
    if (parsed) map[parsed[0]] = parsed[1];
  }
  return checkedAgainstPytest(map, log, context);
}

/** Parametrized ids that are absolute paths keep only their last component (requests, pylint, pydicom). */
function normalizeOptionTestName(name: string): string {
  const match = /^(.*?)\[(.*)\]/.exec(name);
  if (!match) return name;
  const [, main, rawOption] = match;
  let option = rawOption;
  if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) {
    option = '/' + option.split('/').at(-1);
  }
  return `${main}[${option}]`;
}

export function parseLogPytestOptions(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = pytestOwnOutput(fullLog, context);
  const map = newStatusMap(context);
  for (const line of log.split('\n')) {
    const parsed = parsePytestResultLine(line, parsingOf(context.harness));
    if (parsed) map[normalizeOptionTestName(parsed[0])] = parsed[1];
  }
  return checkedAgainstPytest(map, log, context);
}

/** Later pytest versions: colour codes and control characters stripped first. */
export function parseLogPytestV2(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = pytestOwnOutput(fullLog, context);
  const map = newStatusMap(context);
  for (const raw of log.split('\n')) {
    // eslint-disable-next-line no-control-regex
    const line = raw.replace(/\[(\d+)m/g, '').replace(/[\x01-\x1f]/g, '');
    const parsing = parsingOf(context.harness);
    const parsed = parsing.pytestV2Lines ? pytestV2ResultLine(line) : parsePytestResultLine(line, parsing);
    if (parsed) map[parsed[0]] = parsed[1];
  }
  return checkedAgainstPytest(map, log, context);
}

/**
 * A result line as harness 5.0's parse_log_pytest_v2 reads it (#279): an id may contain spaces, so it is the rest
 * of the line (`FAILED id - message` loses the message), or all but the last word when the status ends the line;
 * a status word alone is no test (#611), nor is a skip summary.
 */
function pytestV2ResultLine(line: string): [string, TestStatus] | undefined {
  if (STATUSES.some((s) => line.startsWith(s))) {
    const parts = words(line.startsWith(TestStatus.FAILED) ? line.split(' - ')[0] : line);
    if (parts.length < 2 || (parts[0] === TestStatus.SKIPPED && SKIP_COUNT.test(parts[1]))) return undefined;
    return [parts.slice(1).join(' '), parts[0] as TestStatus];
  }
  if (STATUSES.some((s) => line.endsWith(s))) {
    const parts = words(line);
    if (parts.length < 2) return undefined;
    return [parts.slice(0, -1).join(' '), parts.at(-1) as TestStatus];
  }
  return undefined;
}

/** A Django test id alone on its line: "test_x (mod.Class)" (Python ≤ 3.10) or "test_x (mod.Class.test_x)" (3.11+). */
const DJANGO_TEST_ID = /^\w+ \([\w.]+\)$/;

export function parseLogDjango(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = runnerOwnOutput(fullLog, UNITTEST_CLOSING, (line) => / \.\.\. (ok|OK|FAIL|ERROR|skipped)/.test(line) || /^(FAIL|ERROR):/.test(line), context);
  const map = newStatusMap(context);
  // the tests a later bare "ok" belongs to (several when a described test is read under two names)
  let prevTests: string[] = [];
  // unittest prints a test's docstring line after its id ("test_x (mod.Class)" then "Docstring ... ok")
  // when descriptions are on; the dataset's ids, from the official images' one-line logs, are the id. Each
  // such line is read as the harness reads it (the docstring as the name) and once more under the id.
  let describedTest: string | undefined;
  for (const rawLine of log.split('\n')) {
    const line = rawLine.trim();
    const readings = [line];
    if (describedTest !== undefined && line.includes(' ... ') && !DJANGO_TEST_ID.test(line.split(' ... ')[0])) {
      readings.push(`${describedTest} ... ${line.split(' ... ').slice(1).join(' ... ')}`);
    }
    describedTest = DJANGO_TEST_ID.test(line) ? line : undefined;
    const named = readings.filter((r) => r.includes(' ... ')).map((r) => r.split(' ... ')[0]);
    if (named.length > 0) prevTests = named;
    for (const reading of readings) readDjangoLine(reading, map, context.failureWins === true);
    // The test passed, but other output (possibly several lines) came between "..." and "ok".
    if (line.trimStart().startsWith('ok')) for (const test of prevTests) map[test] = TestStatus.PASSED;
  }
  // Django's runner sometimes interrupts a test line with a long multi-line message before "ok".
  const interrupted = [
    /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
    /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm,
    /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
  ];
  for (const pattern of interrupted) {
    for (const match of log.matchAll(pattern)) map[match[1]] = TestStatus.PASSED;
  }
  // a described test is read under two names: twice the tests run bounds the passes
  checkPassCount(map, unittestRanCount(log), 'unittest', context, 2);
  return map;
}

/** One line of a Django test log, as the harness' parse_log_django reads it. */
function readDjangoLine(text: string, map: StatusMap, headersById: boolean): void {
  let line = text;
  // This output spans lines; the harness records it as one passing "test".
  if (line.includes('--version is equivalent to version')) map['--version is equivalent to version'] = TestStatus.PASSED;
  for (const suffix of [' ... ok', ' ... OK', ' ...  OK']) {
    if (line.endsWith(suffix)) {
      // A migration message printed on the same line as the test name (django__django-7188).
      if (line.trim().startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) {
        line = line.split('...').slice(1).join('...').trim();
      }
      map[line.slice(0, line.lastIndexOf(suffix))] = TestStatus.PASSED;
      break;
    }
  }
  if (line.includes(' ... skipped')) map[line.split(' ... skipped')[0]] = TestStatus.SKIPPED;
  if (line.endsWith(' ... FAIL')) map[line.split(' ... FAIL')[0]] = TestStatus.FAILED;
  if (line.startsWith('FAIL:')) {
    const name = words(line)[1];
    if (name !== undefined) map[name.trim()] = TestStatus.FAILED;
    if (headersById) failureHeaderById(line, TestStatus.FAILED, map);
  }
  if (line.endsWith(' ... ERROR')) map[line.split(' ... ERROR')[0]] = TestStatus.ERROR;
  if (line.startsWith('ERROR:')) {
    const name = words(line)[1];
    if (name !== undefined) map[name.trim()] = TestStatus.ERROR;
    if (headersById) failureHeaderById(line, TestStatus.ERROR, map);
  }
}

/**
 * unittest's failure header "FAIL: test_x (mod.Class)" names the test by the same id as its status line
 * "test_x (mod.Class) ... ok"; the harness keys it by its first word alone, so a status line that the code under
 * test completed with its own "ok" would stand. locfix's failure-wins rule keys the header by the whole id too.
 */
function failureHeaderById(line: string, status: TestStatus, map: StatusMap): void {
  const id = line.slice(line.indexOf(':') + 1).trim();
  if (DJANGO_TEST_ID.test(id)) map[id] = status;
}

export function parseLogSympy(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = runnerOwnOutput(fullLog, SYMPY_CLOSING, (line) => /^test_\S* (ok|F|E)$/.test(line), context);
  const map = newStatusMap(context);
  // Failure headers: "________ sympy/core/tests/test_basic.py:test_foo ________". The harness' pattern,
  // applied per line to the lines that can match (it never spans lines): over a whole log it retries from
  // every space and is quadratic in long lines without ".py:" (60k spaces: 2 s)
  for (const line of log.split('\n')) {
    if (!line.includes('.py:')) continue;
    for (const match of line.matchAll(/(_*) (.*)\.py:(.*) (_*)/g)) {
      map[`${match[2]}.py:${match[3]}`] = TestStatus.FAILED;
    }
  }
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    const name = words(line)[0];
    if (line.endsWith(' E')) map[name] = TestStatus.ERROR;
    if (line.endsWith(' F')) map[name] = TestStatus.FAILED;
    if (line.endsWith(' ok')) map[name] = TestStatus.PASSED;
  }
  return map;
}

export function parseLogMatplotlib(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = pytestOwnOutput(fullLog, context);
  const map = newStatusMap(context);
  for (const raw of log.split('\n')) {
    let line = raw.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
    if (!STATUSES.some((s) => line.startsWith(s))) continue;
    if (line.startsWith(TestStatus.FAILED)) line = line.replaceAll(' - ', ' ');
    const parts = words(line);
    if (parts.length <= 1) continue;
    if (parsingOf(context.harness).skipSummaryLines && parts[0] === TestStatus.SKIPPED && SKIP_COUNT.test(parts[1])) continue;
    map[parts[1]] = parts[0] as TestStatus;
  }
  return checkedAgainstPytest(map, log, context);
}

export function parseLogSeaborn(fullLog: string, context: ParseContext = {}): StatusMap {
  const log = pytestOwnOutput(fullLog, context);
  const map = newStatusMap(context);
  for (const line of log.split('\n')) {
    if (line.startsWith(TestStatus.FAILED)) {
      const name = words(line)[1];
      if (name !== undefined) map[name] = TestStatus.FAILED;
    } else if (line.includes(` ${TestStatus.PASSED} `)) {
      const parts = words(line);
      if (parts[1] === TestStatus.PASSED) map[parts[0]] = TestStatus.PASSED;
    } else if (line.startsWith(TestStatus.PASSED)) {
      const name = words(line)[1];
      if (name !== undefined) map[name] = TestStatus.PASSED;
    }
  }
  return checkedAgainstPytest(map, log, context);
}
