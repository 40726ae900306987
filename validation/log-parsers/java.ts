/**
 * Java test logs (swebench/harness/log_parsers/java.py; Maven and Gradle in the harness' current form, which pairs
 * a test with its result when concurrent output interleaves them). Maven prints no passing tests, so the
 * harness runs each test on its own under `set -x` and reads the `-Dtest=` of the traced command and the
 * `BUILD SUCCESS|FAILURE` after it; Ant's `[junit] [PASS] name`; Gradle with the harness' logging config.
 */
import { TestStatus } from '../../src/harness/constants.ts';
import { type StatusMap, eachMatch } from './types.ts';

export function parseLogMaven(log: string): StatusMap {
  const map: StatusMap = {};
  // the harness' current form (SWE-bench HEAD): traced commands and BUILD lines of concurrent output can
  // interleave, so tests and results pair in order, and results that came before their test pair at the end
  const pending: string[] = [];
  const unmatched: string[] = [];
  const record = (name: string, status: string) => {
    map[name] = status === 'SUCCESS' ? TestStatus.PASSED : TestStatus.FAILED;
  };
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    const name = /^.*-Dtest=(\S+).*$/.exec(line);
    if (name) pending.push(name[1]);
    const result = /^.*BUILD (SUCCESS|FAILURE)$/.exec(line);
    if (!result) continue;
    if (pending.length) record(pending.shift()!, result[1]);
    else unmatched.push(result[1]);
  }
  while (pending.length && unmatched.length) record(pending.shift()!, unmatched.shift()!);
  return map;
}

export function parseLogAnt(log: string): StatusMap {
  const map: StatusMap = {};
  eachMatch(log, /^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$/, ([status, name]) => {
    map[name] = status === 'PASS' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

/** Gradle with the harness' logging config; a test's name and its status may be split by other output (HEAD's form). */
export function parseLogGradleCustom(log: string): StatusMap {
  const map: StatusMap = {};
  let pending: string | undefined;
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    const full = /^([^>].+)\s+(PASSED|FAILED)$/.exec(line);
    if (full) {
      map[full[1]] = full[2] === 'PASSED' ? TestStatus.PASSED : TestStatus.FAILED;
      pending = undefined;
      continue;
    }
    const nameOnly = /^([^>]\S*\s+>\s+\S+)$/.exec(line);
    if (nameOnly) {
      pending = nameOnly[1];
      continue;
    }
    const status = pending ? /^(PASSED|FAILED)$/.exec(line) : null;
    if (pending && status) {
      map[pending] = status[1] === 'PASSED' ? TestStatus.PASSED : TestStatus.FAILED;
      pending = undefined;
    }
  }
  return map;
}
