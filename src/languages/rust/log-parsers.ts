/** `cargo test` logs (swebench/harness/log_parsers/rust.py at SWE-bench b8d5332): `test path::name ... ok`. */
import { TestStatus } from '../log-parser.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext, runnerOwnOutput } from '../log-parser.ts';

export function parseLogCargo(fullLog: string, context: ParseContext = {}): StatusMap {
  // libtest closes each test binary with "test result: ok. 3 passed; …"; results after the last are not its own
  const log = runnerOwnOutput(fullLog, /^test result: /, (line) => /^test\s+\S+\s+\.\.\.\s+\w+$/.test(line), context);
  const map = newStatusMap(context);
  eachMatch(log, /^test\s+(\S+)\s+\.\.\.\s+(\w+)$/, ([name, outcome]) => {
    if (outcome === 'ok') map[name] = TestStatus.PASSED;
    else if (outcome === 'FAILED') map[name] = TestStatus.FAILED;
  });
  return map;
}
