/**
 * The validate stage (regression and reproduction tests of the distinct candidate patches in the instance's
 * testbed) and the evaluate stage (the selected patch graded as the SWE-bench harness grades it), as
 * `locfix run` runs them. Both run their sandboxes through the run's execution backend
 * (src/sandbox/types.ts), which picks the engine and bounds the containers a run keeps at once.
 */
import { KindedError } from '../src/run/kinded-error.ts';
import { ERROR_KINDS } from '../src/util/error-kinds.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { ChatModel } from '../src/llm/types.ts';
import { STAGE, type PipelineStage } from '../src/run/stage.ts';
import { combineValidation, distinctCandidates } from '../repair/select.ts';
import type { CandidateValidation, RepairInstanceRecord, Selection } from '../repair/types.ts';
import type { ExecutionBackend, NetworkMode } from '../src/sandbox/types.ts';
import { evaluateInstance } from './evaluate-instance.ts';
import type { InstanceOutcome } from './evaluate.ts';
import type { GradingRules } from './grading-rules.ts';
import { runRegressionTests, selectRegressionTests, type RegressionSelection } from './regression.ts';
import { generateReproductionScripts, runReproductionTest, selectReproductionScript, type ReproductionSelection } from './reproduction.ts';
import { withTestbed } from './testbed.ts';

export interface ValidateStageOutput {
  /** per normalized candidate patch */
  validation: Record<string, CandidateValidation>;
  candidates: number;
  regression?: Omit<RegressionSelection, 'passing'> & { passing: number };
  reproduction?: Omit<ReproductionSelection, 'script'> & { script?: string };
  /** validation steps that could not run, and why (selection then falls back to the next filter) */
  skipped: Array<{ step: 'regression' | 'reproduction'; reason: string }>;
  /** the model calls of this stage (regression-test exclusion, reproduction scripts) */
  usage: { promptTokens: number; completionTokens: number; cost: number; calls: number };
}

export interface EvaluateStageOutput extends InstanceOutcome {
  patchEmpty: boolean;
}

/** A chat model that adds the usage of every answer to `usage` (for stages that do not trace calls). */
function meteredModel(llm: ChatModel, usage: ValidateStageOutput['usage']): ChatModel {
  return {
    id: llm.id,
    chat: async (request) => {
      const response = await llm.chat(request);
      usage.promptTokens += response.usage.promptTokens;
      usage.completionTokens += response.usage.completionTokens;
      usage.cost += response.usage.cost;
      usage.calls += 1;
      return response;
    },
  };
}

export interface ValidateSettings {
  runId: string;
  regression: boolean;
  reproduction: boolean;
  reproductionSamples: number;
  timeoutMs: number;
  /** writes the reproduction scripts and picks regression tests to exclude; reproduction needs one */
  llm?: ChatModel;
}

export function validateStage(backend: ExecutionBackend, settings: ValidateSettings): PipelineStage<ValidateStageOutput> {
  const { timeoutMs } = settings;
  return {
    name: STAGE.validate,
    run: async (input) => {
      const record = await input.output<RepairInstanceRecord>(STAGE.repair);
      const candidates = distinctCandidates(record.samples);
      const out: ValidateStageOutput = {
        validation: {},
        candidates: candidates.length,
        skipped: [],
        usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 },
      };
      const wanted = { regression: settings.regression, reproduction: settings.reproduction };
      if (candidates.length === 0) {
        for (const step of ['regression', 'reproduction'] as const) if (wanted[step]) out.skipped.push({ step, reason: 'no candidate patch' });
        return out;
      }
      if (!wanted.regression && !wanted.reproduction) return out;
      const llm = settings.llm ? meteredModel(settings.llm, out.usage) : undefined;
      await backend.run(input.instance.instance_id, (engine) => {
        // a step that failed because the engine stopped answering is the engine's failure, not the step's:
        // rethrown, so a backend of several engines runs the whole validation again on another one
        const engineAnswers = () =>
          engine.runtime.ping().then(
            () => true,
            () => false,
          );
        const stepFailed = async (step: 'regression' | 'reproduction', err: unknown) => {
          if (!(await engineAnswers())) throw err;
          out.skipped.push({ step, reason: (err as Error).message });
        };
        // each attempt starts from nothing
        out.skipped = [];
        delete out.regression;
        delete out.reproduction;
        return withTestbed(engine.runtime, engine.images, input.instance, { runId: settings.runId, timeoutMs }, async (testbed) => {
          let regression: Map<string, { regressionFailures: number }> | undefined;
          let reproduction: Map<string, { reproductionPassed: boolean }> | undefined;
          if (wanted.regression) {
            try {
              const selection = await selectRegressionTests(testbed, { model: llm, timeoutMs });
              regression = await runRegressionTests(testbed, selection, candidates, { timeoutMs });
              out.regression = { ...selection, passing: selection.passing.length };
            } catch (err) {
              await stepFailed('regression', err);
            }
          }
          const unavailable = wanted.reproduction ? reproductionUnavailable(testbed.image.spec) : undefined;
          if (unavailable) out.skipped.push({ step: 'reproduction', reason: unavailable });
          else if (wanted.reproduction) {
            try {
              if (!llm) throw new Error('reproduction tests are written by the chat model, and none is configured');
              const scripts = await generateReproductionScripts(llm, input.instance.problem_statement, { samples: settings.reproductionSamples });
              const chosen = await selectReproductionScript(testbed, scripts, { timeoutMs });
              out.reproduction = chosen;
              if (!chosen.script) throw new Error('no generated script reproduces the issue on the unpatched repository');
              reproduction = await runReproductionTest(testbed, chosen.script, candidates, { timeoutMs });
            } catch (err) {
              await stepFailed('reproduction', err);
            }
          }
          out.validation = Object.fromEntries(combineValidation(regression, reproduction));
        });
      });
      return out;
    },
  };
}

export interface EvaluateSettings {
  runId: string;
  runsDir: string;
  timeoutMs: number;
  /** `model_name_or_path` of the prediction */
  modelName: string;
  network?: NetworkMode;
  grading?: GradingRules;
}

export function evaluateStage(backend: ExecutionBackend, settings: EvaluateSettings): PipelineStage<EvaluateStageOutput> {
  return {
    name: STAGE.evaluate,
    run: async (input) => {
      const selection = await input.output<Selection>(STAGE.select);
      const instance: SweInstance = input.instance;
      if (instance.FAIL_TO_PASS.length === 0) {
        throw new KindedError(
          ERROR_KINDS.noTests,
          `${instance.instance_id} has no FAIL_TO_PASS tests in the dataset; evaluation needs the full SWE-bench rows (e.g. --dataset SWE-bench/SWE-bench_Lite)`,
        );
      }
      if (!selection.patch.trim()) {
        // the harness counts an empty patch without running anything
        return { instanceId: instance.instance_id, completed: false, resolved: false, reused: false, durationMs: 0, patchEmpty: true };
      }
      const prediction = { instance_id: instance.instance_id, model_name_or_path: settings.modelName, model_patch: selection.patch };
      const outcome = await backend.run(instance.instance_id, async (engine) => {
        const o = await evaluateInstance(instance, prediction, {
          runId: settings.runId,
          runsDir: settings.runsDir,
          runtime: engine.runtime,
          images: engine.images,
          timeoutMs: settings.timeoutMs,
          network: settings.network,
          grading: settings.grading,
        });
        // an unclassified failure may be the engine's own: thrown, so a backend of several engines can check
        // the engine and evaluate the instance on another one
        if (!o.completed && !o.errorKind) throw new KindedError(ERROR_KINDS.evaluationError, o.error ?? 'evaluation did not complete');
        return o;
      });
      // recorded as the stage's error (kind and reason), so the analysis counts it as an evaluation error
      // and --retry-errors evaluates it again
      if (!outcome.completed) {
        throw new KindedError(
          outcome.errorKind ?? ERROR_KINDS.evaluationError,
          outcome.error ?? 'evaluation did not complete',
          outcome.infraFailure ? { infraFailure: outcome.infraFailure } : undefined,
        );
      }
      return { ...outcome, patchEmpty: false };
    },
  };
}

/**
 * Why reproduction tests cannot run for an instance, or undefined when they can. They are Python scripts the model
 * writes and `python` runs, so they exist for Python repositories only; elsewhere the step is recorded as not
 * available (selection then uses what regression found), never a Python script run on Go code.
 */
export function reproductionUnavailable(spec: { language: string; repo: string }): string | undefined {
  if (spec.language === 'py') return undefined;
  return `reproduction tests are not available for this language (${spec.language}, ${spec.repo}): they are Python scripts`;
}
