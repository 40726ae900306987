/**
 * Candidate validation for patch selection (Agentless 1.5): regression and reproduction results for every
 * distinct normalized candidate of one instance, in one reused sandbox, keyed the way
 * repair/select.ts's `selectPatch(samples, validation)` reads them.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import type { ChatModel } from '../src/llm/types.ts';
import type { InstanceImages } from '../src/sandbox/types.ts';
import type { SandboxRuntime } from '../src/sandbox/types.ts';
import { runRegressionTests, selectRegressionTests, type Candidate, type RegressionResult, type RegressionSelection } from './regression.ts';
import {
  generateReproductionScripts,
  runReproductionTest,
  selectReproductionScript,
  type ReproductionResult,
  type ReproductionSelection,
} from './reproduction.ts';
import { withTestbed } from './testbed.ts';

export interface CandidateValidationOptions {
  runtime: SandboxRuntime;
  images: InstanceImages;
  runId: string;
  instance: SweInstance;
  candidates: readonly Candidate[];
  /** run regression tests (default true) */
  regression?: boolean;
  /** run reproduction tests (default true when a model is given) */
  reproduction?: boolean;
  /** excludes regression tests and writes reproduction scripts */
  model?: ChatModel;
  /** reproduction scripts to sample, greedy included (default 40) */
  reproductionSamples?: number;
  /** regression command when the instance has no test patch */
  testCommand?: string;
  /** per test run / script (default 600 s) */
  timeoutMs?: number;
}

export interface CandidateValidationReport {
  /** keyed by candidate key: what selectPatch takes */
  validation: Map<string, { regressionFailures?: number; reproductionPassed?: boolean }>;
  regression?: { selection: RegressionSelection; results: Map<string, RegressionResult> };
  reproduction?: { selection: ReproductionSelection; results?: Map<string, ReproductionResult> };
  /** why a part was skipped (e.g. no regression tests, no reproducing script) */
  notes: string[];
}

export async function validateCandidates(options: CandidateValidationOptions): Promise<CandidateValidationReport> {
  const { runtime, images, instance, candidates } = options;
  const notes: string[] = [];
  const validation = new Map<string, { regressionFailures?: number; reproductionPassed?: boolean }>();
  for (const c of candidates) validation.set(c.key, {});
  const report: CandidateValidationReport = { validation, notes };
  const wantRegression = options.regression ?? true;
  const wantReproduction = options.reproduction ?? options.model !== undefined;
  if (wantReproduction && !options.model) throw new Error('reproduction tests need a model to write the scripts');

  // Scripts are written before the sandbox starts, so no container idles while the model answers.
  const scripts = wantReproduction
    ? await generateReproductionScripts(options.model!, instance.problem_statement, { samples: options.reproductionSamples })
    : [];

  await withTestbed(runtime, images, instance, { runId: options.runId, timeoutMs: options.timeoutMs }, async (testbed) => {
    if (wantRegression) {
      try {
        const selection = await selectRegressionTests(testbed, { model: options.model, testCommand: options.testCommand, timeoutMs: options.timeoutMs });
        const results = await runRegressionTests(testbed, selection, candidates, { timeoutMs: options.timeoutMs });
        for (const [key, r] of results) validation.get(key)!.regressionFailures = r.regressionFailures;
        report.regression = { selection, results };
      } catch (err) {
        notes.push(`regression tests skipped: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    if (wantReproduction) {
      const selection = await selectReproductionScript(testbed, scripts, { timeoutMs: options.timeoutMs });
      report.reproduction = { selection };
      if (selection.script === undefined) {
        notes.push('reproduction tests skipped: no sampled script prints "Issue reproduced" on the unpatched repository');
      } else {
        const results = await runReproductionTest(testbed, selection.script, candidates, { timeoutMs: options.timeoutMs });
        for (const [key, r] of results) validation.get(key)!.reproductionPassed = r.reproductionPassed;
        report.reproduction.results = results;
      }
    }
  });
  return report;
}
