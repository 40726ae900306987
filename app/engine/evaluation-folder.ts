/**
 * `locfix evaluate` writes the run-folder contract too (results/run-folder.ts), so that `analyze`, `compare` and
 * `report` read an evaluation of predictions like any run: each prediction as the `select` stage's artifact (the
 * patch), each outcome as the `evaluate` stage's (resolved, or the evaluation error with its kind), and a manifest
 * whose arm is the predictions file, its models, the network and the grading rules. The harness-format files (`evaluation/`, the summary) stay
 * as they are.
 */
import path from 'node:path';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { recordStageRun } from '../../src/run/manifest.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { STAGE } from '../../src/run/stage.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import type { Selection } from '../../repair/types.ts';
import type { InstanceOutcome } from '../../validation/evaluate.ts';
import { type GradingRules, machineryPolicy } from '../../validation/grading-rules.ts';
import type { Prediction } from '../../validation/predictions.ts';
import type { EvaluateStageOutput } from '../../validation/stages.ts';

function artifact<T>(stage: string, instanceId: string, body: Pick<StageArtifact<T>, 'status' | 'output' | 'error'>, durationMs = 0): StageArtifact<T> {
  const now = new Date().toISOString();
  return { stage, instanceId, startedAt: now, finishedAt: now, durationMs, attempt: 1, ...body };
}

/** The grading rules with every default written out, so two folders graded alike have equal settings. */
function gradingSettings(rules: GradingRules): Record<string, unknown> {
  return { harness: rules.harness, unforgeable: rules.unforgeable, testMachinery: machineryPolicy(rules) };
}

export async function recordEvaluationRun(
  runDir: string,
  run: {
    dataset: readonly SweInstance[];
    datasetName: string;
    predictions: readonly Prediction[];
    outcomes: readonly InstanceOutcome[];
    source: string;
    network: string;
    /** the rules that graded it: runs graded under other rules are other arms */
    grading: GradingRules;
    /** where the evaluation found repositories: `analyze` reads base files there too */
    repositories?: { mirrorsDir?: string; cacheDir?: string };
  },
): Promise<void> {
  const layout = new RunLayout(runDir);
  const outcomeOf = new Map(run.outcomes.map((o) => [o.instanceId, o]));
  const predicted = new Set(run.predictions.map((p) => p.instance_id));
  for (const p of run.predictions) {
    const patch = p.model_patch ?? '';
    const selection: Selection = { patch, filter: 'none', voteTable: [] };
    await writeJsonAtomic(
      layout.artifactPath(STAGE.select, p.instance_id),
      artifact<Selection>(STAGE.select, p.instance_id, { status: 'ok', output: selection }),
    );
    const o = outcomeOf.get(p.instance_id);
    const evaluated: StageArtifact<EvaluateStageOutput> | undefined = !patch.trim()
      ? artifact(STAGE.evaluate, p.instance_id, {
          status: 'ok',
          output: { instanceId: p.instance_id, completed: false, resolved: false, reused: false, durationMs: 0, patchEmpty: true },
        })
      : !o
        ? undefined // not evaluated in this invocation (interrupted): not reached, not a failure
        : o.completed
          ? artifact(STAGE.evaluate, p.instance_id, { status: 'ok', output: { ...o, patchEmpty: false } }, o.durationMs)
          : artifact(
              STAGE.evaluate,
              p.instance_id,
              { status: 'error', error: { message: o.error ?? 'evaluation did not complete', kind: o.errorKind ?? 'evaluation-error' } },
              o.durationMs,
            );
    if (evaluated) await writeJsonAtomic(layout.artifactPath(STAGE.evaluate, p.instance_id), evaluated);
  }
  const models = [...new Set(run.predictions.map((p) => p.model_name_or_path).filter(Boolean))].sort();
  await recordStageRun(layout, {
    kind: 'stage',
    stage: STAGE.evaluate,
    localizer: 'predictions',
    models: { llm: models.join(', ') || undefined },
    dataset: run.datasetName,
    instances: run.dataset.filter((i) => predicted.has(i.instance_id)),
    settings: { predictions: path.basename(run.source), models, network: run.network, grading: gradingSettings(run.grading) },
    ...(run.repositories
      ? {
          config: Object.fromEntries(
            Object.entries(run.repositories)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => [k, path.resolve(v!)]),
          ),
        }
      : {}),
  });
}
