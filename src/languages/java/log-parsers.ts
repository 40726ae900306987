/**
 * Java test logs (swebench/harness/log_parsers/java.py; Maven and Gradle in the harness' current form, which pairs
 * a test with its result when concurrent output interleaves them). Maven prints no passing tests, so the
 * harness runs each test on its own under `set -x` and reads the `-Dtest=` of the traced command and the
 * `BUILD SUCCESS|FAILURE` after it; Ant's `[junit] [PASS] name`; Gradle with the harness' logging config.
 */
import { TestStatus } from '../log-parser.ts';
import { parsingOf } from '../harness-releases.ts';
import { type StatusMap, eachMatch, newStatusMap, type ParseContext } from '../log-parser.ts';

export function parseLogMaven(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  // 5.0's form: traced commands and BUILD lines of concurrent output can interleave, so tests and results pair in
  // order, and results that came before their test pair at the end; 4.1 gave each result to the last command
  const paired = parsingOf(context.harness).pairedMavenResults;
  const pending: string[] = [];
  const unmatched: string[] = [];
  let lastTest = '---NO TEST NAME FOUND YET---';
  let commands = 0;
  let results = 0;
  const record = (name: string, status: string) => {
    map[name] = status === 'SUCCESS' ? TestStatus.PASSED : TestStatus.FAILED;
  };
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    const name = /^.*-Dtest=(\S+).*$/.exec(line);
    if (name) {
      commands++;
      pending.push(name[1]);
      lastTest = name[1];
    }
    const result = /^.*BUILD (SUCCESS|FAILURE)$/.exec(line);
    if (!result) continue;
    results++;
    if (!paired) record(lastTest, result[1]);
    else if (pending.length) record(pending.shift()!, result[1]);
    else unmatched.push(result[1]);
  }
  if (paired) while (pending.length && unmatched.length) record(pending.shift()!, unmatched.shift()!);
  // Maven prints one BUILD line per run: a surplus was printed by something else (a test can print one before
  // Maven's own), and pairing in order would give a test the wrong result
  if (results > commands) context.onAmbiguity?.(`${results} BUILD results for ${commands} traced Maven commands`);
  return map;
}

export function parseLogAnt(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
  eachMatch(log, /^\s*\[junit\]\s+\[(PASS|FAIL|ERR)\]\s+(.*)$/, ([status, name]) => {
    map[name] = status === 'PASS' ? TestStatus.PASSED : TestStatus.FAILED;
  });
  return map;
}

/** Gradle with the harness' logging config; a test's name and its status may be split by other output (HEAD's form). */
export function parseLogGradleCustom(log: string, context: ParseContext = {}): StatusMap {
  const map = newStatusMap(context);
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
