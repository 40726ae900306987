/**
 * Regression tests (Agentless 1.5): the tests that pass on the unpatched repository, minus those the model
 * says a correct fix may legitimately change, are run for every distinct candidate patch; a candidate's
 * score is how many of them fail.
 *
 * Which tests: the existing test files the instance's test_patch modifies (the harness' directives for
 * them, without the test patch applied), or a configured command when the instance has no test patch.
 */
import type { ChatModel } from '../src/llm/types.ts';
import { renderPrompt } from '../src/prompts.ts';
import { testDirectives, testPatchFiles } from '../src/harness/eval-script.ts';
import { pythonTestCommand, testCommandsOf } from '../src/harness/specs.ts';
import { testMaintained, testPassed } from './grading.ts';
import { logParserFor, type StatusMap } from './log-parsers/index.ts';
import { languageEvaluation } from '../src/languages/index.ts';
import type { InstanceTestbed } from './testbed.ts';

/** Lines of the last fenced block of a model answer (no block: no lines). */
export function fencedLines(answer: string): string[] {
  const blocks = [...answer.matchAll(/```[^\n]*\n([\s\S]*?)```/g)];
  if (blocks.length === 0) return [];
  return blocks[blocks.length - 1][1]
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export interface RegressionSelection {
  /** the test command, directives included */
  command: string;
  /** tests that pass on the unpatched repository */
  passing: string[];
  /** passing tests the model excluded */
  excluded: string[];
  /** the regression tests: passing minus excluded */
  tests: string[];
}

export interface RegressionOptions {
  /** used when the instance has no test patch (or it names no existing test file) */
  testCommand?: string;
  /** drops tests a fix may legitimately change; without a model every passing test is kept */
  model?: ChatModel;
  timeoutMs?: number;
}

/** The test command for regression runs: the spec's test command on the existing test files of the test patch. */
export function regressionCommand(testbed: InstanceTestbed, configured?: string): string {
  const { spec } = testbed.image;
  // other languages: the spec's build and test commands as the harness' eval script runs them (no -e: a step
  // that fails offline, such as fetching a submodule, does not stop the tests)
  if (languageEvaluation(spec.language).evalScript !== 'python') return [...(spec.spec.build ?? []), ...testCommandsOf(spec.spec)].join('; ');
  const existing = new Set(testPatchFiles(testbed.instance.test_patch).modified);
  // Directives for the modified files only: new test files do not exist before the test patch.
  const modifiedOnly = testbed.instance.test_patch
    .split(/(?=^diff --git )/m)
    .filter((chunk) => {
      const m = /^diff --git a\/.* b\/(.*)$/m.exec(chunk);
      return m !== null && existing.has(m[1]);
    })
    .join('');
  const directives = testDirectives(modifiedOnly, spec.testDirectives);
  if (directives.length > 0) return `${pythonTestCommand(spec.spec)} ${directives.join(' ')}`;
  if (configured) return configured;
  throw new Error(`${testbed.instance.instance_id}: no regression tests: the test patch modifies no existing test file and no test command is configured`);
}

function parse(testbed: InstanceTestbed, output: string): StatusMap {
  return logParserFor(testbed.image.spec, testbed.instance.instance_id)(output);
}

export async function selectRegressionTests(testbed: InstanceTestbed, options: RegressionOptions = {}): Promise<RegressionSelection> {
  const command = regressionCommand(testbed, options.testCommand);
  const baseline = await testbed.runWithPatch('', [command], options.timeoutMs);
  if (baseline.timedOut) throw new Error(`${testbed.instance.instance_id}: the regression tests time out on the unpatched repository`);
  const statusMap = parse(testbed, baseline.output);
  const passing = Object.keys(statusMap).filter((t) => testPassed(t, statusMap));
  let excluded: string[] = [];
  if (options.model && passing.length > 0) {
    const prompt = renderPrompt('validation-regression-exclude', {
      problem_statement: testbed.instance.problem_statement,
      tests: passing.join('\n'),
    });
    const response = await options.model.chat({
      messages: [{ role: 'user', content: prompt }],
      temperature: 0,
      n: 1,
      purpose: 'validation.regression-exclude',
    });
    const named = new Set(fencedLines(response.choices[0]?.content ?? ''));
    excluded = passing.filter((t) => named.has(t));
  }
  const dropped = new Set(excluded);
  return { command, passing, excluded, tests: passing.filter((t) => !dropped.has(t)) };
}

export interface Candidate {
  /** normalized voting key: candidates with the same key are run once */
  key: string;
  patch: string;
}

export interface RegressionResult {
  regressionFailures: number;
  failing: string[];
  applied: boolean;
  timedOut: boolean;
  durationMs: number;
}

/**
 * Runs the selected regression tests once per distinct candidate key in one reused container. A patch that
 * does not apply, or a run that times out, counts every regression test as failing.
 */
export async function runRegressionTests(
  testbed: InstanceTestbed,
  selection: RegressionSelection,
  candidates: readonly Candidate[],
  options: { timeoutMs?: number } = {},
): Promise<Map<string, RegressionResult>> {
  const results = new Map<string, RegressionResult>();
  for (const candidate of candidates) {
    if (results.has(candidate.key)) continue;
    const started = Date.now();
    const run = await testbed.runWithPatch(candidate.patch, [selection.command], options.timeoutMs);
    let failing: string[];
    if (!run.applied || run.timedOut) {
      failing = [...selection.tests];
    } else {
      const statusMap = parse(testbed, run.output);
      failing = selection.tests.filter((t) => !testMaintained(t, statusMap));
    }
    results.set(candidate.key, {
      regressionFailures: failing.length,
      failing,
      applied: run.applied,
      timedOut: run.timedOut,
      durationMs: Date.now() - started,
    });
  }
  await testbed.reset().catch(() => undefined);
  return results;
}
