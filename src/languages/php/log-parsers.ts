/**
 * phpunit `--testdox` logs (swebench/harness/log_parsers/php.py at SWE-bench b8d5332): a suite line `Name (Class)`
 * and its tests `✔ does x`; the test's name is `Suite > test`. Lines are not stripped here, as in the harness.
 */
import { TestStatus } from '../log-parser.ts';
import { type StatusMap, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogPhpunit(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  let suite: string | undefined;
  for (const line of log.split('\n')) {
    const suiteMatch = /^(\w.+) \(.+\)$/.exec(line);
    if (suiteMatch) {
      suite = suiteMatch[1];
      continue;
    }
    const test = /^\s*([✔✘↩])\s*(.*)$/.exec(line);
    if (!test) continue;
    const name = `${suite ?? 'None'} > ${test[2]}`;
    map[name] = test[1] === '✔' ? TestStatus.PASSED : test[1] === '✘' ? TestStatus.FAILED : TestStatus.SKIPPED;
  }
  return map;
}
