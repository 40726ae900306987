/**
 * The SWE-bench harness 5.0.2's own grading, infrastructure and parser tests, as facts for locfix: each case's
 * input is one of those tests' (tests/test_grading_*.py, test_infra_failure.py, test_log_parsers_*.py), and its
 * `expected` is what the real harness code computed for it (scripts/harness-expected.py). locfix graded with the
 * 5.0.2-exact rules must give the same; its own unforgeable rule must agree wherever nothing was forged.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recordTestExitCode } from '../../src/harness/eval-script.ts';
import { evalReport, resolutionStatus, testFailed, testMaintained, testPassed, testsReport } from '../../validation/grading.ts';
import { type GradingRules, parseTestExitCode } from '../../validation/grading-rules.ts';
import { classifyInfraFailure } from '../../validation/infra-failure.ts';
import { logParserNamed, type StatusMap } from '../../validation/log-parsers/index.ts';

interface Case {
  kind: string;
  name: string;
  log?: string;
  log_parser?: string;
  eval_type?: string;
  FAIL_TO_PASS?: string[];
  PASS_TO_PASS?: string[];
  model_patch?: string;
  status_map?: StatusMap;
  case?: string;
  text?: string;
  script?: string[];
  expected: unknown;
}

const { cases } = JSON.parse(readFileSync(new URL('../fixtures/harness-5.0.2/cases.json', import.meta.url), 'utf8')) as { cases: Case[] };
const EXACT: GradingRules = { harness: '5.0.2', unforgeable: false };
const LOCFIX: GradingRules = { harness: '5.0.2', unforgeable: true };

function parserOf(c: Case) {
  const parser = logParserNamed(c.log_parser!);
  if (!parser) throw new Error(`no locfix parser for ${c.log_parser}`);
  return parser;
}

/** The harness' report fields of an entry: locfix's additions (grading, reasons, exit code) left out. */
function harnessFields(entry: Record<string, unknown>): Record<string, unknown> {
  const keep = ['patch_is_None', 'patch_exists', 'patch_successfully_applied', 'resolved', 'infra_failure', 'infra_failure_reason', 'tests_status'];
  return Object.fromEntries(Object.entries(entry).filter(([key]) => keep.includes(key)));
}

function byKind(kind: string): Case[] {
  return cases.filter((c) => c.kind === kind);
}

describe('harness 5.0.2 cases', () => {
  it('covers every kind of the harness tests it ports', () => {
    expect(new Set(cases.map((c) => c.kind))).toEqual(
      new Set(['eval_report', 'tests_report', 'predicates', 'parser', 'exit_code', 'infra', 'record_exit_code']),
    );
    expect(cases.every((c) => c.expected !== undefined)).toBe(true);
  });

  it.each(byKind('eval_report').map((c) => [c.name, c] as const))('report: %s', (_name, c) => {
    const gold = { FAIL_TO_PASS: c.FAIL_TO_PASS!, PASS_TO_PASS: c.PASS_TO_PASS!, eval_type: c.eval_type };
    // locfix's rule does not read results printed before the start marker (validation/grading.ts): that one case
    // is the harness' alone, and locfix's rule leaves its log not graded
    const beforeStart = c.name === 'results outside the markers fall back to the whole log';
    for (const rules of beforeStart ? [EXACT] : [EXACT, LOCFIX]) {
      const entry = evalReport('x__x-1', c.model_patch, c.log!, gold, parserOf(c), rules)['x__x-1'];
      expect(harnessFields(entry as unknown as Record<string, unknown>)).toEqual(c.expected);
    }
    if (beforeStart) expect(evalReport('x__x-1', c.model_patch, c.log!, gold, parserOf(c), LOCFIX)['x__x-1']!.resolved).toBe(false);
  });

  it.each(byKind('tests_report').map((c) => [c.name, c] as const))('tests report: %s', (_name, c) => {
    const report = testsReport(c.status_map!, { FAIL_TO_PASS: c.FAIL_TO_PASS!, PASS_TO_PASS: c.PASS_TO_PASS!, eval_type: c.eval_type }, EXACT);
    const expected = c.expected as { report: Record<string, unknown>; resolution: string };
    expect(report).toEqual(expected.report);
    expect(resolutionStatus(report)).toBe(expected.resolution);
  });

  it.each(byKind('predicates').map((c) => [c.name, c] as const))('test status: %s', (_name, c) => {
    const map = c.status_map!;
    expect({ passed: testPassed(c.case!, map, EXACT), failed: testFailed(c.case!, map, EXACT), maintained: testMaintained(c.case!, map, EXACT) }).toEqual(
      c.expected,
    );
  });

  it.each(byKind('parser').map((c) => [c.name, c] as const))('parser: %s', (_name, c) => {
    expect(parserOf(c)(c.log!, { harness: '5.0.2' })).toEqual(c.expected);
    // failure-wins changes nothing where a test is reported once
    expect({ ...parserOf(c)(c.log!, { harness: '5.0.2', failureWins: true }) }).toEqual(c.expected);
  });

  it.each(byKind('exit_code').map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(parseTestExitCode(c.text!) ?? null).toBe(c.expected);
  });

  it.each(byKind('infra').map((c) => [c.name, c] as const))('infrastructure: %s', (_name, c) => {
    const found = classifyInfraFailure(c.text!);
    expect(found ? [found.reason, found.tier] : null).toEqual(c.expected);
  });

  it.each(byKind('record_exit_code').map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(recordTestExitCode(c.script!)).toEqual(c.expected);
  });
});
