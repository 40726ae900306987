/**
 * One instance's stage artifacts in a run folder, and what they say about the instance beyond its outcome: why it
 * has no patch, why its patch was never graded, what stopped it and whether that was the method's doing
 * (failure-cause.ts). The run analysis (run-analysis.ts) turns these into its evidence.
 */
import type { RunLayout } from '../src/run/run-layout.ts';
import { causeOf, describeCause } from '../src/run/failure-cause.ts';
import { readArtifact, STAGE_ERROR_KIND, type StageArtifact } from '../src/run/stage-runner.ts';
import { STAGE } from '../src/run/stage.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import type { RepairInstanceRecord, Selection } from '../repair/types.ts';
import type { FunctionStageOutput, LineStageOutput } from '../localizer/hierarchy/stage.ts';
import type { EvaluateStageOutput, ValidateStageOutput } from '../validation/stages.ts';
import { CONFIGURATION_KINDS, stageState, type RunFolder } from './run-folder.ts';

/** One instance's stage artifacts (absent: the stage never wrote one for it). */
export interface InstanceArtifacts {
  files?: StageArtifact<FileLocalization>;
  functions?: StageArtifact<FunctionStageOutput>;
  lines?: StageArtifact<LineStageOutput>;
  repair?: StageArtifact<RepairInstanceRecord>;
  validate?: StageArtifact<ValidateStageOutput>;
  select?: StageArtifact<Selection>;
  evaluate?: StageArtifact<EvaluateStageOutput>;
}

export async function loadInstanceArtifacts(layout: RunLayout, id: string, fileStage: string): Promise<InstanceArtifacts> {
  const [files, functions, lines, repair, validate, select, evaluate] = await Promise.all([
    readArtifact<FileLocalization>(layout, fileStage, id),
    readArtifact<FunctionStageOutput>(layout, STAGE.functions, id),
    readArtifact<LineStageOutput>(layout, STAGE.lines, id),
    readArtifact<RepairInstanceRecord>(layout, STAGE.repair, id),
    readArtifact<ValidateStageOutput>(layout, STAGE.validate, id),
    readArtifact<Selection>(layout, STAGE.select, id),
    readArtifact<EvaluateStageOutput>(layout, STAGE.evaluate, id),
  ]);
  return { files, functions, lines, repair, validate, select, evaluate };
}

export const ok = <T>(a: StageArtifact<T> | undefined): T | undefined => (a?.status === 'ok' ? a.output : undefined);

/** The stages on the way to a patch, with this instance's artifacts, in pipeline order. */
export function patchPath(a: InstanceArtifacts): ReadonlyArray<readonly [string, StageArtifact<unknown> | undefined]> {
  return [
    [STAGE.files, a.files],
    [STAGE.functions, a.functions],
    [STAGE.lines, a.lines],
    [STAGE.repair, a.repair],
    [STAGE.select, a.select],
  ];
}

/** The reason an instance has no patch, from the first stage that stopped it. */
export function emptyReasonOf(a: InstanceArtifacts): string | undefined {
  // a selection was made (an evaluation of predictions has only that stage): its empty patch is the outcome
  if (a.select?.status === 'ok') return a.select.output?.emptyReason ?? ok(a.repair)?.selection.emptyReason ?? 'the selected patch is empty';
  for (const [stage, artifact] of patchPath(a)) {
    if (!artifact) return `not run: ${stage}`;
    if (artifact.status === 'error') return `${stage} failed: ${artifact.error?.message.split('\n')[0] ?? 'error'}`;
  }
  return ok(a.select)?.emptyReason ?? ok(a.repair)?.selection.emptyReason;
}

/**
 * Why an instance without a patch has none when that is not its own outcome: the first stage on the way to a
 * patch that never ran for it (left out of the run, or not reached yet), or that failed because the run was
 * misconfigured. Undefined when every stage ran and the patch is empty for a reason of the instance's own.
 */
/**
 * Why no patch was made, when that is not the method's doing: a stage not reached yet, or one stopped by the
 * infrastructure (a model server that did not answer, a replay miss, …) or the configuration (failure-cause.ts).
 * A method failure (its model's answer unusable) returns undefined: the instance is judged.
 */
export function notReachedReason(folder: RunFolder, a: InstanceArtifacts): { reason: string; cause?: string } | undefined {
  // the instance reached selection (in an evaluation of predictions, the only stage there is): an empty patch there
  // is judged, never "not reached" for want of the stages before it (issue 52)
  if (a.select?.status === 'ok') return undefined;
  for (const [stage, artifact] of patchPath(a)) {
    const state = stageState(folder, stage, artifact);
    // left out by the run's plan (--stop-after, no Docker) is what the user asked for, not work still owed
    if (state.state === 'not-reached') return { reason: `${stage}: ${state.reason}`, ...(folder.leftOut[stage] ? { cause: LEFT_OUT } : {}) };
    if (state.state !== 'failed') continue;
    if (state.kind && CONFIGURATION_KINDS.has(state.kind))
      return { reason: `${stage}: configuration error: ${state.message.split('\n')[0]}`, cause: 'configuration: configuration' };
    const cause = causeOf(artifact?.error);
    if (cause.class === 'method') return undefined;
    return { reason: `${stage}: ${describeCause(cause)}: ${state.message.split('\n')[0]}`, cause: `${cause.class}: ${cause.cause}` };
  }
  return undefined;
}

/** The cause of work the run's plan left out (--stop-after, no Docker, evaluation turned off): not owed. */
export const LEFT_OUT = 'left out by the run';

/** Whether the patch was not graded because the run's plan left evaluation out (not work still owed). */
export function evaluationLeftOut(folder: RunFolder, a: InstanceArtifacts): boolean {
  return a.evaluate === undefined && folder.leftOut[STAGE.evaluate] !== undefined;
}

/** Why a patch was never graded: evaluation left out of the run, not reached yet, or misconfigured. */
export function notEvaluatedReason(folder: RunFolder, a: InstanceArtifacts): string | undefined {
  const state = stageState(folder, STAGE.evaluate, a.evaluate);
  if (state.state === 'not-reached') return state.reason;
  if (state.state !== 'failed') return undefined;
  if (state.kind && CONFIGURATION_KINDS.has(state.kind)) return `configuration error: ${state.message.split('\n')[0]}`;
  // the environment's failure (harness tier environment): the patch was never graded, whatever it is
  const cause = causeOf(a.evaluate?.error, STAGE.evaluate);
  return cause.class === 'method' ? undefined : `${describeCause(cause)}: ${state.message.split('\n')[0]}`;
}

/** An evaluation error's cause and harness tier, for the analysis: "tests-timed-out (tier ambiguous)". */
export function evaluationCauseOf(a: InstanceArtifacts): string | undefined {
  if (a.evaluate?.status !== 'error') return undefined;
  const cause = causeOf(a.evaluate.error, STAGE.evaluate);
  return cause.tier ? `${cause.cause} (tier ${cause.tier})` : cause.cause;
}

/** The first stage a spend cap stopped, with what the instance had spent then (budget-exhausted errors). */
/** The evaluation's infrastructure label (harness 5.0's tiers): on its outcome, or on its recorded error. */
export function infraFailureOf(artifact: InstanceArtifacts['evaluate']): { reason: string; tier: string } | undefined {
  const found = artifact?.status === 'ok' ? (artifact.output as { infraFailure?: unknown } | undefined)?.infraFailure : artifact?.error?.details?.infraFailure;
  const label = found as { reason?: unknown; tier?: unknown } | undefined;
  return typeof label?.reason === 'string' && typeof label.tier === 'string' ? { reason: label.reason, tier: label.tier } : undefined;
}

export function budgetExhaustedAt(a: InstanceArtifacts): string | undefined {
  for (const [stage, artifact] of Object.entries(stageArtifacts(a))) {
    if (artifact?.status === 'error' && artifact.error?.kind === STAGE_ERROR_KIND.budgetExhausted) return `${stage}: ${artifact.error.message.split('\n')[0]}`;
  }
  return undefined;
}

export function stageArtifacts(a: InstanceArtifacts): Record<string, StageArtifact<unknown> | undefined> {
  return {
    [STAGE.files]: a.files,
    [STAGE.functions]: a.functions,
    [STAGE.lines]: a.lines,
    [STAGE.repair]: a.repair,
    [STAGE.validate]: a.validate,
    [STAGE.select]: a.select,
    [STAGE.evaluate]: a.evaluate,
  };
}
