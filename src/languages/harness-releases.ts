/**
 * The SWE-bench harness releases whose grading locfix reproduces, as a table of named switches: 4.1 (the
 * per-language specs of commit b8d5332) and 5.0.2 (commit 7a21e05). Grading (validation/grading.ts) and the log
 * parsers (src/languages/<l>/log-parsers.ts) ask a release's switches, never its version string; the report's list
 * of rules is generated from the same record (`releaseRuleNames`). Adding a release is one record here. Like
 * SWE-bench's own grading.py, which picks its variant once (`check_pass_and_fail if eval_type == …`).
 */

/** What a release's grading does beyond reading the status lines between the markers. */
export interface GradingSwitches {
  /** a non-zero test exit code with no failure in the map is not graded (#620) */
  exitCodeCheck: boolean;
  /** a log with no results is graded only when it shows the suite ran (grading.py SUITE_RAN) */
  suiteRanEvidence: boolean;
  /** a skipped FAIL_TO_PASS test fails, a skipped PASS_TO_PASS one is maintained */
  skippedTests: boolean;
  /** an expected id cut mid-parameter matches the ids it prefixes when they agree (#290) */
  truncatedIds: boolean;
  /** no results between the markers: the whole log is parsed (#402) */
  wholeLogFallback: boolean;
  /** not-graded logs are labelled with harness 5.0's infrastructure tiers (#586) */
  infrastructureLabels: boolean;
}

/** Where a release's log parsers differ. */
export interface ParsingSwitches {
  /** pytest's "SKIPPED [3] file.py:12: reason" summary lines are not tests */
  skipSummaryLines: boolean;
  /** pytest_v2 result lines read as 5.0's parser reads them (ids with spaces) */
  pytestV2Lines: boolean;
  /** jest names are trimmed ("name  (5 ms)" and "name" are one test) */
  trimmedJestNames: boolean;
  /** Maven's BUILD results are paired with the traced commands in order (not all given to the last one) */
  pairedMavenResults: boolean;
}

export interface HarnessRelease {
  /** how `--harness` may name it besides its version ("5", "5.0", "v5.0.2" …) */
  aliases: readonly string[];
  grading: GradingSwitches;
  parsing: ParsingSwitches;
}

export const HARNESS_RELEASES = {
  '5.0.2': {
    aliases: ['5', '5.0'],
    grading: { exitCodeCheck: true, suiteRanEvidence: true, skippedTests: true, truncatedIds: true, wholeLogFallback: true, infrastructureLabels: true },
    parsing: { skipSummaryLines: true, pytestV2Lines: true, trimmedJestNames: true, pairedMavenResults: true },
  },
  '4.1': {
    aliases: ['4', '4.1.0'],
    grading: { exitCodeCheck: false, suiteRanEvidence: false, skippedTests: false, truncatedIds: false, wholeLogFallback: false, infrastructureLabels: false },
    parsing: { skipSummaryLines: false, pytestV2Lines: false, trimmedJestNames: false, pairedMavenResults: false },
  },
} as const satisfies Record<string, HarnessRelease>;

export type HarnessVersion = keyof typeof HARNESS_RELEASES;
/** Every release, the default first. */
export const HARNESS_VERSIONS = Object.keys(HARNESS_RELEASES) as [HarnessVersion, ...HarnessVersion[]];
export const DEFAULT_HARNESS: HarnessVersion = HARNESS_VERSIONS[0];

export function releaseOf(version: HarnessVersion | undefined): HarnessRelease {
  return HARNESS_RELEASES[version ?? DEFAULT_HARNESS];
}

/** The parsing switches of a release (the default's when none is named). */
export function parsingOf(version: HarnessVersion | undefined): ParsingSwitches {
  return releaseOf(version).parsing;
}

/** A release named as `--harness` takes it: its version, an alias, with or without a leading "v". */
export function parseHarnessVersion(text: string): HarnessVersion {
  const normal = text.trim().replace(/^v/, '');
  const found = HARNESS_VERSIONS.find((v) => v === normal || (HARNESS_RELEASES[v].aliases as readonly string[]).includes(normal));
  if (!found) throw new Error(`unknown harness version ${JSON.stringify(text)}; known: ${HARNESS_VERSIONS.join(', ')}`);
  return found;
}

/** How the report names each grading switch, in the order it lists them. */
const GRADING_SWITCH_NAMES: Record<keyof GradingSwitches, string> = {
  exitCodeCheck: 'exit-code check (#620)',
  suiteRanEvidence: 'suite-ran evidence',
  skippedTests: 'skipped FAIL_TO_PASS fails, skipped PASS_TO_PASS is maintained',
  truncatedIds: 'truncated parametrized ids (#290)',
  wholeLogFallback: 'whole-log fallback (#402)',
  infrastructureLabels: 'infrastructure labels (#586)',
};

/** What a release's grading does when no switch is on: the harness' reading of a log before 5.0. */
const BASELINE = 'results between the markers, last status wins, exact test ids';

/** A release's rules as the report lists them: its switches that are on, or the baseline when none is. */
export function releaseRuleNames(version: HarnessVersion): string[] {
  const on = (Object.keys(GRADING_SWITCH_NAMES) as Array<keyof GradingSwitches>).filter((s) => HARNESS_RELEASES[version].grading[s]);
  const names = on.map((s) => GRADING_SWITCH_NAMES[s]);
  if (names.length === 0) return [`harness ${version}: ${BASELINE}`];
  return [`harness ${version}: ${names[0]}`, ...names.slice(1)];
}
