/**
 * Why one log's verdict differs between two rule sets (harness releases, with or without locfix's rule): the rule
 * that decided it. `bench:fidelity --regrade --compare-rules` and `locfix evaluate --compare-harness` both name it.
 */
import { END_TEST_OUTPUT, START_TEST_OUTPUT } from '../src/harness/constants.ts';
import type { GradingRules } from './grading-rules.ts';
import { statusMapFromLog, type TestsStatus } from './grading.ts';
import type { BoundLogParser } from './log-parsers/index.ts';

/**
 * Why a log's verdict under `rules` differs from its verdict under `base`: the reason it was not graded (the
 * exit-code check, no sign the suite ran, an ambiguous log), else the first test whose side changed and why
 * (a skipped test, a truncated id, a different parser key, the whole-log fallback, a failure kept over a pass).
 */
export function verdictCause(
  log: string,
  parser: BoundLogParser,
  tests: { base?: TestsStatus; other?: TestsStatus },
  rules: { base: GradingRules; other: GradingRules },
): string {
  const base = statusMapFromLog(log, parser, rules.base);
  const other = statusMapFromLog(log, parser, rules.other);
  if (base.found && !other.found) return other.notGraded!.replace(/exited \d+/, 'exited non-zero').replace(/: .*$/, '');
  if (!base.found && other.found) return `not graded under ${rules.base.harness}: ${base.notGraded}`;
  if (!tests.base || !tests.other) return 'not graded under either';
  const between = log.split(START_TEST_OUTPUT)[1]?.split(END_TEST_OUTPUT)[0] ?? '';
  if (Object.keys(parser(between, { harness: rules.base.harness })).length === 0 && Object.keys(other.statusMap).length > 0) {
    return 'whole-log fallback (#402)';
  }
  if (other.ignored && !base.ignored) return "result lines after the runner's closing summary left out";
  for (const category of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
    const was = new Set(tests.base[category].success);
    for (const test of [...tests.base[category].success, ...tests.other[category].success]) {
      if (was.has(test) === tests.other[category].success.includes(test)) continue;
      if (other.conflicts.some((c) => c.test === test)) return 'failure wins over a later pass';
      if (other.statusMap[test] === 'SKIPPED' || base.statusMap[test] === 'SKIPPED') return `skipped ${category} test`;
      if (!(test in other.statusMap) && test.split('[').length > test.split(']').length) return 'truncated id (#290)';
      if (base.statusMap[test] !== other.statusMap[test]) return `parser change (${category} test read differently)`;
      return `other (${category})`;
    }
  }
  return 'other';
}
