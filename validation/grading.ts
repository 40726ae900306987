/**
 * Grading as the SWE-bench harness grades (grading.py): a test log becomes a status map, FAIL_TO_PASS and
 * PASS_TO_PASS tests are sorted into success/failure, and an instance is resolved (FULL) only when every
 * F2P test passes and every P2P test is maintained. A test missing from the log counts as failed.
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
import type { LogParser, StatusMap } from './log-parsers/index.ts';

export function testPassed(test: string, map: StatusMap): boolean {
  return test in map && (map[test] === TestStatus.PASSED || map[test] === TestStatus.XFAIL);
}

/** P2P tests may also be skipped after the patch and still count as maintained. */
export function testMaintained(test: string, map: StatusMap): boolean {
  return testPassed(test, map) || (test in map && map[test] === TestStatus.SKIPPED);
}

export function testFailed(test: string, map: StatusMap): boolean {
  return !(test in map) || map[test] === TestStatus.FAILED || map[test] === TestStatus.ERROR || map[test] === TestStatus.SKIPPED;
}

/**
 * The status map of an evaluation log, and whether the log is usable: a log with a failure marker
 * (patch not applied, reset failed, tests errored or timed out) or without both test-output markers is
 * not. Only the text between the markers is parsed; when that yields nothing, the whole log is.
 */
export function statusMapFromLog(content: string, parser: LogParser): { statusMap: StatusMap; found: boolean } {
  if ([APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT].some((code) => content.includes(code))) {
    return { statusMap: {}, found: false };
  }
  if (!(content.includes(START_TEST_OUTPUT) && content.includes(END_TEST_OUTPUT))) return { statusMap: {}, found: false };
  const between = content.split(START_TEST_OUTPUT)[1].split(END_TEST_OUTPUT)[0];
  let statusMap = parser(between);
  if (Object.keys(statusMap).length === 0) statusMap = parser(content);
  return { statusMap, found: true };
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
}

export function testsReport(statusMap: StatusMap, gold: GoldTests): TestsStatus {
  const f2p: SuccessFailure = { success: [], failure: [] };
  for (const test of gold.FAIL_TO_PASS) {
    if (testPassed(test, statusMap)) f2p.success.push(test);
    else if (testFailed(test, statusMap)) f2p.failure.push(test);
  }
  const p2p: SuccessFailure = { success: [], failure: [] };
  for (const test of gold.PASS_TO_PASS) {
    if (testMaintained(test, statusMap)) p2p.success.push(test);
    else if (testFailed(test, statusMap)) p2p.failure.push(test);
  }
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
  /** locfix's additions to the harness' fields: which GIT_APPLY_CMDS entry applied the model patch, and
   * the sandbox network the tests ran with ('none' unless asked otherwise) */
  patch_apply_command?: string;
  network?: string;
}

export type InstanceReport = Record<string, InstanceReportEntry>;

/** The harness' get_eval_report: the report.json content for one instance from its test log. */
export function evalReport(instanceId: string, modelPatch: string | null | undefined, testLog: string, gold: GoldTests, parser: LogParser): InstanceReport {
  const entry: InstanceReportEntry = { patch_is_None: false, patch_exists: false, patch_successfully_applied: false, resolved: false };
  const report: InstanceReport = { [instanceId]: entry };
  if (modelPatch === null || modelPatch === undefined) {
    entry.patch_is_None = true;
    return report;
  }
  entry.patch_exists = true;
  const { statusMap, found } = statusMapFromLog(testLog, parser);
  if (!found) return report;
  entry.patch_successfully_applied = true;
  const tests = testsReport(statusMap, gold);
  entry.resolved = resolutionStatus(tests) === ResolvedStatus.FULL;
  entry.tests_status = tests;
  return report;
}
