/**
 * Test-log parsers of the harness' C and C++ repositories (swebench/harness/log_parsers/c.py at SWE-bench b8d5332),
 * line for line: redis/valkey's `[ok]: name (12 ms)`, jq's `PASS: name`, doctest's XML report, micropython's
 * run-tests (`pass name`), googletest's `[       OK ] Suite.Test (0 ms)`.
 */
import { TestStatus } from '../log-parser.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogRedis(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\[(ok|err|skip|ignore)\]:\s(.+?)(?:\s\((\d+\s*m?s)\))?$/, ([status, name]) => {
    if (status === 'ok') map[name] = TestStatus.PASSED;
    // a failure names the file it failed in: the harness strips it
    else if (status === 'err') map[name.replace(/\s+in\s+\S+$/, '')] = TestStatus.FAILED;
    else map[name] = TestStatus.SKIPPED;
  });
  return map;
}

export function parseLogJq(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\s*(PASS|FAIL):\s(.+)$/, ([status, name]) => {
    map[name] = status === 'PASS' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

/** doctest's `-r=xml` report: a subcase passes when every expression in it succeeded. */
export function parseLogDoctest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  const start = log.indexOf('<doctest');
  const end = start === -1 ? -1 : log.indexOf('</doctest>', start);
  if (start === -1 || end === -1) return map;
  const xml = log.slice(start, end + '</doctest>'.length);
  const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
  for (const testCase of xml.matchAll(/<TestCase\b([^>]*)>([\s\S]*?)<\/TestCase>/g)) {
    const caseName = attr(testCase[1], 'name');
    for (const sub of testCase[2].matchAll(/<SubCase\b([^>]*)>([\s\S]*?)<\/SubCase>/g)) {
      const passed = [...sub[2].matchAll(/<Expression\b([^>]*)>/g)].every((e) => attr(e[1], 'success') === 'true');
      map[`${unescapeXml(caseName ?? 'None')} > ${unescapeXml(attr(sub[1], 'name') ?? 'None')}`] = passed ? TestStatus.PASSED : TestStatus.FAILED;
    }
  }
  return map;
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e]!);
}

export function parseLogMicropythonTest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^(pass|FAIL|skip)\s+(.+)$/, ([status, name]) => {
    map[name] = status === 'pass' ? TestStatus.PASSED : status === 'FAIL' ? TestStatus.FAILED : TestStatus.SKIPPED;
  });
  return map;
}

export function parseLogGoogletest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^.*\[\s*(OK|FAILED)\s*\]\s(.*)\s\(.*\)$/, ([status, name]) => {
    map[name] = status === 'OK' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}
