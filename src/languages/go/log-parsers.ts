/** `go test -v` logs (swebench/harness/log_parsers/go.py at SWE-bench b8d5332): `--- PASS: TestName (0.00s)`. */
import { TestStatus } from '../log-parser.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogGotest(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$/, ([status, name]) => {
    map[name] = status === 'PASS' ? TestStatus.PASSED : status === 'FAIL' ? TestStatus.FAILED : TestStatus.SKIPPED;
  });
  return map;
}
