/**
 * Ruby test logs (swebench/harness/log_parsers/ruby.py at SWE-bench b8d5332): minitest, cucumber's progress
 * format, test-unit's verbose lines (`test_x(Suite): .`), rspec results turned into `name - passed`, and
 * jekyll, whose instances use one or the other by pull request.
 */
import { TestStatus } from '../log-parser.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogMinitest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^(.+)\. .*=.*(\.|F|E).*$/, ([name, outcome]) => {
    if (outcome === '.') map[name] = TestStatus.PASSED;
    else map[name] = TestStatus.FAILED;
  });
  return map;
}

export function parseLogCucumber(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^(.*) \.+(\.|F)/, ([name, outcome]) => {
    map[name] = outcome === '.' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

export function parseLogRubyUnit(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\s*(?:test: )?(.+):\s+(\.|E\b|F\b|O\b)/, ([name, outcome]) => {
    map[name] = outcome === '.' ? TestStatus.PASSED : outcome === 'O' ? TestStatus.SKIPPED : TestStatus.FAILED;
  });
  return map;
}

export function parseLogRspecTransformedJson(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /(.+) - (passed|failed)/, ([name, outcome]) => {
    map[name] = outcome === 'passed' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

/** jekyll's instances use minitest or cucumber by pull request; another instance is an error, as in the harness. */
export function parseLogJekyll(log: string, context: ParseContext = {}): StatusMap {
  const pr = context.instanceId?.split('-')[1];
  if (pr && ['9141', '8047', '8167'].includes(pr)) return parseLogMinitest(log, context);
  if (pr && ['8761', '8771'].includes(pr)) return parseLogCucumber(log, context);
  throw new Error(`jekyll log parser: unknown instance id ${JSON.stringify(context.instanceId)}`);
}
