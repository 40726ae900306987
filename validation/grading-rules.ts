/**
 * Which rules grade an evaluation log: a SWE-bench harness release's (4.1 or 5.0.2), and locfix's own rule that a
 * verdict must not rest on output the evaluated code can write. The harness releases are reproduced exactly; the
 * locfix rule is on by default and reported by its name, so `--harness 5.0.2 --no-unforgeable` stays 5.0.2-exact.
 */
import {
  DEFAULT_HARNESS,
  parseHarnessVersion,
  releaseOf,
  releaseRuleNames,
  type GradingSwitches,
  type HarnessVersion,
} from '../src/languages/harness-releases.ts';
import { END_TEST_OUTPUT, START_TEST_OUTPUT, TEST_EXIT_CODE, type TestMachineryPolicy } from '../src/harness/constants.ts';

export interface GradingRules {
  harness: HarnessVersion;
  /** locfix's rule: one status per test with failures winning, failure headers keyed like status lines, and a
   * log that reads two ways (more results than runs) not graded */
  unforgeable: boolean;
  /** the model patch's test machinery (validation/test-machinery.ts); only under the unforgeable rule, default restore */
  testMachinery?: TestMachineryPolicy;
}

/** The policy in force: the harness' own grading (no unforgeable rule) applies the patch as written. */
export function machineryPolicy(rules: GradingRules): TestMachineryPolicy {
  return rules.unforgeable ? (rules.testMachinery ?? 'restore') : 'keep';
}

/** The rules a run's evaluation settings name: one place that assembles them. */
export function gradingRulesOf(evaluation: { harness: HarnessVersion; unforgeable: boolean; testMachinery?: TestMachineryPolicy }): GradingRules {
  return {
    harness: evaluation.harness,
    unforgeable: evaluation.unforgeable,
    ...(evaluation.testMachinery && evaluation.testMachinery !== 'restore' ? { testMachinery: evaluation.testMachinery } : {}),
  };
}

export const DEFAULT_GRADING_RULES: GradingRules = { harness: DEFAULT_HARNESS, unforgeable: true };

/** What each rule set does, as the report lists it: the release's switches (src/languages/harness-releases.ts), then locfix's rule. */
export function gradingRuleNames(rules: GradingRules): string[] {
  const names = releaseRuleNames(rules.harness);
  if (rules.unforgeable) {
    names.push(
      "locfix unforgeable: failure wins per test, failure headers by full id, no result after the runner's closing summary, ambiguous logs not graded, one marker of each kind, the runner's own report required where it writes one",
    );
  }
  return names;
}

/** The grading switches of the rules' release. */
export function gradingSwitches(rules: GradingRules): GradingSwitches {
  return releaseOf(rules.harness).grading;
}

export { parseHarnessVersion };

/**
 * Evidence that a runner executed (grading.py SUITE_RAN): every count non-zero, since karma prints "Executed 0 of
 * 0" when it loses the browser. Python's `^` under re.M is a \n line start; written with a look-behind here.
 */
export const SUITE_RAN =
  /Executed [1-9]\d* of \d+|TOTAL: [1-9]\d* (?:SUCCESS|FAILED)|[1-9]\d* passing|Tests:\s+[1-9]\d*|Test Suites:\s+(?:\d+ \w+, )*[1-9]\d* total|(?<![^\n])# tests [1-9]\d*|[1-9]\d* specs?, \d+ failures?|': ok(?![^\n])/;

const EXIT_CODE = new RegExp(`${TEST_EXIT_CODE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\s*(-?\\d+)`);

/** The test command's exit status the eval script recorded after the end marker, if it did. */
export function parseTestExitCode(content: string): number | undefined {
  const match = EXIT_CODE.exec(content);
  return match ? Number(match[1]) : undefined;
}

/** `marker` as a whole line: as the script's shell traces it (`+ : '…'`) or as written. */
function markerLine(text: string, marker: string): boolean {
  return text === marker || text === `+ : '${marker}'` || text === `: '${marker}'`;
}

const EXIT_CODE_LINE = new RegExp(`^(?:\\+ echo ')?${TEST_EXIT_CODE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: -?\\d+'?$`);

/** Where the eval script's own markers stand in a log, as locfix's rule reads them (`readMarkers`). */
export interface MarkerReading {
  /** the text between the one whole-line start marker and the one whole-line end marker */
  between?: string;
  /** the log from the one whole-line start marker on: what the whole-log fallback (#402) may read under locfix's rule */
  fromStart?: string;
  /** the test command's exit status, from the one whole-line echo of it */
  exitCode?: number;
  /** why the log holds markers the script did not write */
  forged?: string;
}

/**
 * The eval script's markers, as only it writes them (locfix's rule). The script writes each marker once, as a line of
 * its own: the start and end markers as its shell traces them (`+ : '>>>>> Start Test Output'`), the exit code as
 * traced and as echoed. The tested process writes to the same stream, so a second whole-line marker (to cut the parsed
 * region early; the harness reads the first exit code), or a marker's text anywhere inside the test output, is one it
 * printed: such a log does not describe the run. Outside the test output a marker's text is no marker (the patch that
 * `git diff` shows before the tests may hold it): the region and the exit code come from the whole lines alone.
 */
export function readMarkers(content: string): MarkerReading {
  const lines = content.split('\n');
  const starts: number[] = [];
  const ends: number[] = [];
  const echoed: number[] = [];
  let traced = 0;
  lines.forEach((line, index) => {
    const text = line.trim();
    if (markerLine(text, START_TEST_OUTPUT)) starts.push(index);
    else if (markerLine(text, END_TEST_OUTPUT)) ends.push(index);
    else if (EXIT_CODE_LINE.test(text)) {
      if (text.startsWith('+')) traced++;
      else echoed.push(Number(/-?\d+/.exec(text.slice(TEST_EXIT_CODE.length))![0]));
    }
  });
  const extra = [
    starts.length > 1 ? `${starts.length} start markers` : '',
    ends.length > 1 ? `${ends.length} end markers` : '',
    echoed.length > 1 || traced > 1 ? `${echoed.length + traced} test exit codes` : '',
  ].filter(Boolean);
  const reading: MarkerReading = echoed.length === 1 ? { exitCode: echoed[0] } : {};
  if (extra.length) return { ...reading, forged: `the log holds ${extra.join(', ')}; the eval script writes one of each: the tested code printed the others` };
  if (starts.length !== 1 || ends.length !== 1 || ends[0]! < starts[0]!) return reading;
  const between = lines.slice(starts[0]! + 1, ends[0]).join('\n');
  const inside = [START_TEST_OUTPUT, END_TEST_OUTPUT, TEST_EXIT_CODE].find((marker) => between.includes(marker));
  if (inside) return { ...reading, forged: `the test output holds "${inside}", which only the eval script writes: the tested code printed it` };
  return { ...reading, between, fromStart: lines.slice(starts[0]! + 1).join('\n') };
}
