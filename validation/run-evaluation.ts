/**
 * `runEvaluation`: every prediction of a run evaluated (evaluate.ts does one instance), on one engine or
 * through an execution backend of several, then the run summary the harness writes.
 */
import path from 'node:path';
import PQueue from 'p-queue';
import type { ExecutionBackend, ExecutionEngine, InstanceImages, SandboxRuntime } from '../src/sandbox/types.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { evaluateInstance } from './evaluate-instance.ts';
import { evaluationDir, isEmptyPatch, type EvaluationOptions, type InstanceOutcome } from './evaluate.ts';
import { makeRunSummary, type RunSummary } from './run-summary.ts';

/** One engine as an execution backend: at most `concurrency` instances at once. */
function oneEngine(runtime: SandboxRuntime, images: InstanceImages, concurrency: number): ExecutionBackend {
  const queue = new PQueue({ concurrency });
  return {
    name: 'one engine',
    run: <T>(_label: string, work: (engine: ExecutionEngine) => Promise<T>) => queue.add(() => work({ id: 'local', runtime, images })) as Promise<T>,
    sweep: (runId) => runtime.sweepContainers(runId),
    sweepOrphans: () => runtime.sweepOrphans(),
    close: async () => {
      await images.releaseAll?.();
    },
  };
}

/**
 * Evaluates every prediction with a non-empty patch whose instance is in `dataset` and has no report yet,
 * then writes and returns the run summary. Predictions for instances outside the dataset are an error.
 */

/** An evaluation that failed for no reason it could name: maybe the engine's, so a backend of several tries another. */
class UnclassifiedOutcome extends Error {
  constructor(readonly outcome: InstanceOutcome) {
    super(outcome.error ?? 'evaluation did not complete');
    this.name = 'UnclassifiedOutcome';
  }
}

export async function runEvaluation(options: EvaluationOptions): Promise<{ summary: RunSummary; outcomes: InstanceOutcome[]; summaryPath: string }> {
  const runsDir = options.runsDir ?? 'runs';
  const datasetIds = new Set(options.dataset.map((i) => i.instance_id));
  const unknown = options.predictions.filter((p) => !datasetIds.has(p.instance_id)).map((p) => p.instance_id);
  if (unknown.length) throw new Error(`predictions for instances not in the dataset: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', …' : ''}`);
  if (!options.backend && !(options.runtime && options.images)) throw new Error('runEvaluation: give a backend, or a runtime and its images');
  await options.runtime?.ping();
  const backend = options.backend ?? oneEngine(options.runtime!, options.images!, Math.max(1, options.maxWorkers ?? 1));
  await backend.check?.();
  // an earlier invocation of this run killed with -9 leaves its containers running; they carry the run id
  const swept = await backend.sweep(options.runId);
  if (swept) options.onSweep?.(swept);
  const orphans = await backend.sweepOrphans();
  if (orphans) options.onSweepOrphans?.(orphans);
  const byId = new Map(options.predictions.map((p) => [p.instance_id, p]));
  const toRun = options.dataset.filter((i) => byId.has(i.instance_id) && (options.runEmptyPatches || !isEmptyPatch(byId.get(i.instance_id))));
  const outcomes = await Promise.all(
    toRun.map(async (instance) => {
      const outcome = await backend
        .run(instance.instance_id, async (engine) => {
          const o = await evaluateInstance(instance, byId.get(instance.instance_id)!, { ...options, runtime: engine.runtime, images: engine.images });
          // an unclassified failure may be the engine's own: thrown, so a backend of several engines can check
          // the engine and evaluate the instance on another one
          if (!o.completed && !o.errorKind) throw new UnclassifiedOutcome(o);
          return o;
        })
        .catch(
          (err: Error): InstanceOutcome =>
            (err instanceof UnclassifiedOutcome ? err.outcome : undefined) ?? {
              instanceId: instance.instance_id,
              completed: false,
              resolved: false,
              reused: false,
              durationMs: 0,
              error: err.message,
            },
        );
      options.onProgress?.(outcome);
      return outcome;
    }),
  );
  await backend.close?.();
  const summary = await makeRunSummary(runsDir, options.runId, options.dataset, options.predictions);
  const summaryPath = path.join(evaluationDir(runsDir, options.runId), 'summary.json');
  await writeJsonAtomic(summaryPath, summary);
  return { summary, outcomes: outcomes as InstanceOutcome[], summaryPath };
}
