/**
 * A runner's own structured report, cross-checked against the log the grading reads. pytest writes a JUnit XML
 * report when `PYTEST_ADDOPTS` asks for one; the evaluation asks for it at a path chosen when the container runs,
 * which no patch can know when it is written, and reads it after the eval script, not from the log. A test the
 * log calls passed while the report says it failed, errored or was skipped, or does not list it among the tests
 * of its module that it does list (a test deselected by a conftest hook that prints its PASSED line), means the
 * log does not describe the run: the instance is not graded, with the tests named. A test of a module the report
 * lists nothing of is not checked (pytest's JUnit names are its node ids with the path dotted, and a module's
 * naming may differ), and no report (another runner, pytest killed) checks nothing.
 */
import { XMLParser } from 'fast-xml-parser';

export type ReportOutcome = 'passed' | 'failed' | 'skipped' | 'absent';

/** Outcomes by normalised test id (see `normalTestId`), from a JUnit XML report; undefined when it is not one. */
export function parseJunitXml(xml: string): Map<string, ReportOutcome> | undefined {
  let doc: unknown;
  try {
    doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml);
  } catch {
    return undefined;
  }
  const root = doc as { testsuites?: { testsuite?: unknown[] }; testsuite?: unknown[] };
  const suites = (root.testsuites?.testsuite ?? root.testsuite) as Array<{ testcase?: Array<Record<string, unknown>> }> | undefined;
  if (!Array.isArray(suites)) return undefined;
  const outcomes = new Map<string, ReportOutcome>();
  for (const suite of suites) {
    for (const testcase of suite.testcase ?? []) {
      const name = typeof testcase.name === 'string' ? testcase.name : undefined;
      if (!name) continue;
      const classname = typeof testcase.classname === 'string' && testcase.classname ? `${testcase.classname}.` : '';
      const outcome: ReportOutcome = 'failure' in testcase || 'error' in testcase ? 'failed' : 'skipped' in testcase ? 'skipped' : 'passed';
      const id = normalTestId(`${classname}${name}`);
      // a test reported twice (a teardown error after a pass) keeps its failure
      if (outcomes.get(id) !== 'failed') outcomes.set(id, outcome);
    }
  }
  return outcomes;
}

/**
 * One spelling for a pytest node id and its JUnit name: `tests/test_a.py::TestX::test_y[p/1]` and
 * `tests.test_a.TestX.test_y[p/1]` are both `tests.test_a.TestX.test_y[p/1]` (the parameters kept as written).
 */
export function normalTestId(id: string): string {
  const bracket = id.indexOf('[');
  const head = bracket < 0 ? id : id.slice(0, bracket);
  const params = bracket < 0 ? '' : id.slice(bracket);
  return (
    head
      .replace(/\.py::/g, '.')
      .replace(/::/g, '.')
      .replace(/\//g, '.') + params
  );
}

/** A normalised id without its parameters: `tests.test_a.test_y` of `tests.test_a.test_y[p/1]`. */
function functionOf(id: string): string {
  return id.includes('[') ? id.slice(0, id.indexOf('[')) : id;
}

/** The module part of a normalised id (`tests.test_a` of `tests.test_a.TestX.test_y[…]`), from a pytest node id. */
function moduleOf(test: string): string | undefined {
  const at = test.indexOf('.py::');
  return at < 0 ? undefined : normalTestId(test.slice(0, at + 3)).replace(/\.py$/, '');
}

/**
 * The graded tests the log calls passed and the report does not: each with what the report says. An exact id the
 * report calls failed or skipped disagrees. A test is absent only when the report lists tests of its module but
 * no parametrization of its function: the parsers' ids of parametrized tests are not always the runner's (the
 * harness' pytest parser cuts an id at its first space, pytest_options shortens path parameters), so a
 * parametrized id the report does not spell the same way is not read as missing.
 */
export function reportDisagreements(passedInLog: readonly string[], report: Map<string, ReportOutcome>): Array<{ test: string; report: ReportOutcome }> {
  const functions = new Set<string>();
  const prefixes = new Set<string>();
  for (const id of report.keys()) {
    const parts = functionOf(id).split('.');
    functions.add(parts.join('.'));
    // every dotted prefix of a reported test's name: the modules (and classes) the report lists tests of
    for (let n = 1; n < parts.length; n++) prefixes.add(parts.slice(0, n).join('.'));
  }
  const found: Array<{ test: string; report: ReportOutcome }> = [];
  for (const test of passedInLog) {
    const id = normalTestId(test);
    const outcome = report.get(id);
    if (outcome && outcome !== 'passed') found.push({ test, report: outcome });
    const module = moduleOf(test);
    if (!outcome && module && prefixes.has(module) && !functions.has(functionOf(id))) found.push({ test, report: 'absent' });
  }
  return found;
}
