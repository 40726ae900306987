/**
 * Grading as the SWE-bench harness grades (grading.py), by release: a test log becomes a status map, FAIL_TO_PASS
 * and PASS_TO_PASS tests are sorted into success/failure, and an instance is resolved (FULL) only when every F2P
 * test passes and every P2P test is maintained. A test missing from the log counts as failed. The rules of each
 * release, and locfix's own, are in grading-rules.ts.
 */
import {
  APPLY_PATCH_FAIL,
  END_TEST_OUTPUT,
  RESET_FAILED,
  ResolvedStatus,
  START_TEST_OUTPUT,
  TESTS_ERROR,
  TESTS_TIMEOUT,
  TestStatus,
} from '../src/harness/constants.ts';
import { DEFAULT_GRADING_RULES, gradingSwitches, type GradingRules, gradingRuleNames, parseTestExitCode, readMarkers, SUITE_RAN } from './grading-rules.ts';
import { classifyInfraFailure, type InfraTier } from './infra-failure.ts';
import type { BoundLogParser, StatusConflict, StatusMap } from './log-parsers/index.ts';
import { plainStatusMap } from '../src/languages/log-parser.ts';
import { type ReportOutcome, reportDisagreements } from './structured-report.ts';

const PASSING = new Set<string>([TestStatus.PASSED, TestStatus.XFAIL]);

/**
 * The status-map key of an expected test (5.0.2's _resolve_case): the id itself, or for an id cut mid-parameter
 * (more "[" than "]", 676 Verified ids, #290) the first key it prefixes when all such keys agree on pass-vs-fail.
 */
export function resolveTestKey(test: string, map: StatusMap, rules: GradingRules = DEFAULT_GRADING_RULES): string | undefined {
  if (Object.hasOwn(map, test)) return test;
  if (!gradingSwitches(rules).truncatedIds) return undefined;
  if (test.split('[').length <= test.split(']').length) return undefined;
  const matches = Object.keys(map).filter((key) => key.startsWith(test));
  if (matches.length > 0 && new Set(matches.map((key) => PASSING.has(map[key]))).size === 1) return matches[0];
  return undefined;
}

export function testPassed(test: string, map: StatusMap, rules: GradingRules = DEFAULT_GRADING_RULES): boolean {
  const key = resolveTestKey(test, map, rules);
  return key !== undefined && PASSING.has(map[key]);
}

/** 5.0.2: a skipped P2P test is maintained (no regression); 4.1 counted it as neither success nor failure. */
export function testMaintained(test: string, map: StatusMap, rules: GradingRules = DEFAULT_GRADING_RULES): boolean {
  if (!gradingSwitches(rules).skippedTests) return testPassed(test, map, rules);
  const key = resolveTestKey(test, map, rules);
  return testPassed(test, map, rules) || (key !== undefined && map[key] === TestStatus.SKIPPED);
}

/** Missing, failed or errored; under 5.0.2 a skipped test too (a skipped F2P test is no resolution). */
export function testFailed(test: string, map: StatusMap, rules: GradingRules = DEFAULT_GRADING_RULES): boolean {
  const key = resolveTestKey(test, map, rules);
  if (key === undefined) return true;
  const status = map[key];
  return status === TestStatus.FAILED || status === TestStatus.ERROR || (gradingSwitches(rules).skippedTests && status === TestStatus.SKIPPED);
}

/** The graded tests the log reports PASSED (an XFAIL is a JUnit skip, and is not checked). */
function passedInLog(map: StatusMap, gold: GoldTests, rules: GradingRules): string[] {
  return [...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS].filter((test) => {
    const key = resolveTestKey(test, map, rules);
    return key !== undefined && map[key] === TestStatus.PASSED;
  });
}

/** What a log says under a set of rules: its status map, or why it cannot be graded. */
export interface LogReading {
  statusMap: StatusMap;
  found: boolean;
  /** why `found` is false, in words */
  notGraded?: string;
  /** the exit status the eval script recorded for the test command */
  exitCode?: number;
  /** tests reported with two outcomes (only under the unforgeable rule, which keeps the failure) */
  conflicts: StatusConflict[];
  /** output the unforgeable rule left out, and why (result lines after the runner's closing summary) */
  ignored?: string[];
}

function notGraded(reason: string, extra: Partial<LogReading> = {}): LogReading {
  return { statusMap: {}, found: false, notGraded: reason, conflicts: [], ...extra };
}

/**
 * The status map of an evaluation log, and whether the log can be graded (get_logs_eval). Not gradable: a failure
 * marker (patch not applied, reset failed, tests errored or timed out) or a missing start/end marker. Only the
 * text between the markers is parsed; under 5.0.2 the whole log when that yields nothing (#402; under locfix's rule
 * the log from the start marker on), no results and
 * no sign the suite ran is not gradable, nor is a non-zero recorded exit code with no failure in the map (#620).
 * The unforgeable rule parses with failures winning and refuses a log its parser finds ambiguous.
 */
export function statusMapFromLog(content: string, parser: BoundLogParser, rules: GradingRules = DEFAULT_GRADING_RULES): LogReading {
  // under locfix's rule the region and the exit code come from the script's own whole-line markers, not the first
  // occurrence of their text, which the tested code can print (mid-line, too)
  const markers = rules.unforgeable ? readMarkers(content) : undefined;
  const switches = gradingSwitches(rules);
  const exitCode = switches.exitCodeCheck ? (markers?.exitCode ?? parseTestExitCode(content)) : undefined;
  const marker = [APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT].find((code) => content.includes(code));
  if (marker) return notGraded(`the log says "${marker}"`, { exitCode });
  if (!(content.includes(START_TEST_OUTPUT) && content.includes(END_TEST_OUTPUT))) return notGraded('the log has no test output markers', { exitCode });
  if (markers?.forged) return notGraded(markers.forged, { exitCode });
  const conflicts: StatusConflict[] = [];
  const ambiguities: string[] = [];
  const ignored: string[] = [];
  const parse = (text: string) =>
    plainStatusMap(
      parser(text, {
        harness: rules.harness,
        ...(rules.unforgeable
          ? {
              failureWins: true,
              onConflict: (c: StatusConflict) => conflicts.push(c),
              onAmbiguity: (r: string) => ambiguities.push(r),
              onIgnored: (r: string) => ignored.push(r),
            }
          : {}),
      }),
    );
  const between = markers?.between ?? content.split(START_TEST_OUTPUT)[1].split(END_TEST_OUTPUT)[0];
  let statusMap = parse(between);
  if (switches.wholeLogFallback && Object.keys(statusMap).length === 0) {
    conflicts.length = 0;
    ambiguities.length = 0;
    ignored.length = 0;
    // locfix's rule: not the text before the tests ran, where the patched code's install step and the patch
    // itself (`git diff`) can print result lines
    statusMap = parse(markers?.fromStart ?? content);
  }
  if (switches.suiteRanEvidence && Object.keys(statusMap).length === 0 && !SUITE_RAN.test(content))
    return notGraded('no test results and no sign the suite ran', { exitCode });
  const failing = Object.values(statusMap).some((s) => s === TestStatus.FAILED || s === TestStatus.ERROR);
  if (switches.exitCodeCheck && exitCode !== undefined && exitCode !== 0 && Object.keys(statusMap).length > 0 && !failing) {
    return notGraded(`the test command exited ${exitCode} but the log reports no failing test`, { exitCode, conflicts });
  }
  if (ambiguities.length > 0) return notGraded(`the log reads two ways: ${ambiguities.join('; ')}`, { exitCode, conflicts });
  return { statusMap, found: true, conflicts, ...(ignored.length ? { ignored } : {}), ...(exitCode === undefined ? {} : { exitCode }) };
}

export interface SuccessFailure {
  success: string[];
  failure: string[];
}

export interface TestsStatus {
  FAIL_TO_PASS: SuccessFailure;
  PASS_TO_PASS: SuccessFailure;
  FAIL_TO_FAIL: SuccessFailure;
  PASS_TO_FAIL: SuccessFailure;
}

export interface GoldTests {
  FAIL_TO_PASS: readonly string[];
  PASS_TO_PASS: readonly string[];
  /** the harness' EvalType: `fail_only` grades every test not reported FAILED as a success (runners that print
   * failures only); default `pass_and_fail` */
  eval_type?: string;
}

export function testsReport(statusMap: StatusMap, gold: GoldTests, rules: GradingRules = DEFAULT_GRADING_RULES): TestsStatus {
  const failOnly = gold.eval_type === 'fail_only';
  const sort = (tests: readonly string[], success: (test: string) => boolean): SuccessFailure => {
    const part: SuccessFailure = { success: [], failure: [] };
    for (const test of tests) {
      if (failOnly) (Object.hasOwn(statusMap, test) && statusMap[test] === TestStatus.FAILED ? part.failure : part.success).push(test);
      else if (success(test)) part.success.push(test);
      else if (testFailed(test, statusMap, rules)) part.failure.push(test);
    }
    return part;
  };
  const f2p = sort(gold.FAIL_TO_PASS, (test) => testPassed(test, statusMap, rules));
  const p2p = sort(gold.PASS_TO_PASS, (test) => testMaintained(test, statusMap, rules));
  return {
    FAIL_TO_PASS: f2p,
    PASS_TO_PASS: p2p,
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

function rate(part: SuccessFailure): number {
  const total = part.success.length + part.failure.length;
  return total === 0 ? 1 : part.success.length / total;
}

/** FULL: all F2P and all P2P pass; PARTIAL: some but not all F2P pass and all P2P pass; NO otherwise. */
export function resolutionStatus(report: TestsStatus): ResolvedStatus {
  const f2p = rate(report.FAIL_TO_PASS);
  const p2p = rate(report.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return ResolvedStatus.FULL;
  if (f2p < 1 && f2p > 0 && p2p === 1) return ResolvedStatus.PARTIAL;
  return ResolvedStatus.NO;
}

/** One instance's entry of report.json, in the harness' shape. */
export interface InstanceReportEntry {
  patch_is_None: boolean;
  patch_exists: boolean;
  patch_successfully_applied: boolean;
  resolved: boolean;
  tests_status?: TestsStatus;
  /** 5.0.2 (#586): an ungradable log shows an environment fault (advisory: `resolved` is false either way) */
  infra_failure?: boolean;
  infra_failure_reason?: string;
  /** locfix's additions: the tier of `infra_failure_reason` (ambiguous ones are not `infra_failure`), why the
   * log could not be graded, tests the log reported with two outcomes, the recorded exit code, the rules used */
  infra_failure_tier?: InfraTier;
  not_graded_reason?: string;
  status_conflicts?: StatusConflict[];
  ignored_output?: string[];
  /** tests the log calls passed and the runner's own structured report does not (unforgeable rule) */
  report_disagreements?: Array<{ test: string; report: ReportOutcome }>;
  test_exit_code?: number;
  grading?: { harness: GradingRules['harness']; unforgeable: boolean; rules: string[] };
  /** locfix's additions to the harness' fields: which GIT_APPLY_CMDS entry applied the model patch, and
   * the sandbox network the tests ran with ('none' unless asked otherwise) */
  patch_apply_command?: string;
  network?: string;
  /** lines of the evaluated patch that talk past the test runner (validation/runner-audit.ts) */
  runner_audit?: Array<{ path: string; line: number; rule: string; text: string }>;
  /** resolved with `runner_audit` hits: a verdict to read with them, kept apart from clean resolves */
  resolved_flagged?: boolean;
  /** the model patch's test machinery and what became of it (validation/test-machinery.ts) */
  test_machinery?: Array<{ path: string; action: 'restored' | 'removed' | 'kept'; rule: string }>;
  /** when test machinery was left out: the verdict of the patch as submitted, machinery applied (logs in as_submitted/) */
  as_submitted?: { resolved: boolean; not_graded_reason?: string; error?: string };
}

export type InstanceReport = Record<string, InstanceReportEntry>;

/**
 * Why the runner's report cannot vouch for a log that reports results (locfix's rule), or undefined: asked for and
 * never written (the tested process ended the runner early, `os._exit`, or removed the file), or written with no
 * test in it while the log reports some (every test deselected, PASSED lines printed instead).
 */
function reportMissing(statusMap: StatusMap, runnerReport: Map<string, ReportOutcome> | 'missing'): string | undefined {
  const results = Object.keys(statusMap).length;
  if (results === 0) return undefined;
  if (runnerReport === 'missing') return `the log reports ${results} test results but the runner's own report was not written or cannot be read`;
  if (runnerReport.size === 0) return `the log reports ${results} test results but the runner's own report lists no test`;
  return undefined;
}

/** The harness' get_eval_report: the report.json content for one instance from its test log. */
export function evalReport(
  instanceId: string,
  modelPatch: string | null | undefined,
  testLog: string,
  gold: GoldTests,
  parser: BoundLogParser,
  rules: GradingRules = DEFAULT_GRADING_RULES,
  /**
   * the runner's own structured report of the run (structured-report.ts), read from outside the log; 'missing'
   * when it was asked for and not written (or not readable), undefined when none was asked for
   */
  runnerReport?: Map<string, ReportOutcome> | 'missing',
): InstanceReport {
  const entry: InstanceReportEntry = { patch_is_None: false, patch_exists: false, patch_successfully_applied: false, resolved: false };
  if (gradingSwitches(rules).infrastructureLabels) entry.infra_failure = false;
  entry.grading = { harness: rules.harness, unforgeable: rules.unforgeable, rules: gradingRuleNames(rules) };
  const report: InstanceReport = { [instanceId]: entry };
  if (modelPatch === null || modelPatch === undefined) {
    entry.patch_is_None = true;
    return report;
  }
  entry.patch_exists = true;
  const reading = statusMapFromLog(testLog, parser, rules);
  if (reading.exitCode !== undefined) entry.test_exit_code = reading.exitCode;
  if (reading.conflicts.length > 0) entry.status_conflicts = reading.conflicts;
  if (reading.ignored) entry.ignored_output = reading.ignored;
  if (!reading.found) {
    entry.not_graded_reason = reading.notGraded;
    const infra = gradingSwitches(rules).infrastructureLabels ? classifyInfraFailure(testLog) : undefined;
    if (infra) {
      entry.infra_failure = infra.tier === 'environment';
      entry.infra_failure_reason = infra.reason;
      entry.infra_failure_tier = infra.tier;
    }
    return report;
  }
  const missing = rules.unforgeable && runnerReport !== undefined ? reportMissing(reading.statusMap, runnerReport) : undefined;
  if (missing) {
    entry.not_graded_reason = missing;
    return report;
  }
  const disagreements = rules.unforgeable && runnerReport instanceof Map ? reportDisagreements(passedInLog(reading.statusMap, gold, rules), runnerReport) : [];
  if (disagreements.length > 0) {
    entry.report_disagreements = disagreements;
    const said = { failed: 'failed in the report', skipped: 'skipped in the report', absent: 'missing from the report', passed: 'passed' };
    entry.not_graded_reason = `the log and the runner's own report disagree: ${disagreements.length} test(s) the log calls passed are ${[...new Set(disagreements.map((d) => said[d.report]))].join(' or ')} (${disagreements
      .slice(0, 3)
      .map((d) => d.test)
      .join(', ')}${disagreements.length > 3 ? ', …' : ''})`;
    return report;
  }
  entry.patch_successfully_applied = true;
  const tests = testsReport(reading.statusMap, gold, rules);
  entry.resolved = resolutionStatus(tests) === ResolvedStatus.FULL;
  entry.tests_status = tests;
  return report;
}
