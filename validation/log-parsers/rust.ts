/** `cargo test` logs (swebench/harness/log_parsers/rust.py at SWE-bench b8d5332): `test path::name ... ok`. */
import { TestStatus } from '../../src/harness/constants.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from './types.ts';

export function parseLogCargo(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^test\s+(\S+)\s+\.\.\.\s+(\w+)$/, ([name, outcome]) => {
    if (outcome === 'ok') map[name] = TestStatus.PASSED;
    else if (outcome === 'FAILED') map[name] = TestStatus.FAILED;
  });
  return map;
}
