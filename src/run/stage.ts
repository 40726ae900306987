/**
 * What a stage is. Every stage module (localizer/, repair/, validation/) exports one PipelineStage per stage,
 * and that same object runs inside `locfix run` (outputs of earlier stages handed over in memory) and in the
 * stage's own command (outputs read back from the run folder), so a stage's inputs, output shape and name
 * are defined once.
 *
 * The stage names are the folder names of the run format (runs/<id>/<stage>/<instance>.json) and are
 * listed here once, in pipeline order.
 */
import { KindedError } from './kinded-error.ts';
import type { SweInstance } from '../dataset/schema.ts';
import type { RunLayout } from './run-layout.ts';
import { acquireRunLock } from './run-lock.ts';
import { readArtifact, runStage, STAGE_ERROR_KIND, type RunStageOptions, type StageArtifact } from './stage-runner.ts';

export const STAGE = {
  files: 'localize-files',
  functions: 'localize-functions',
  lines: 'localize-lines',
  repair: 'repair',
  validate: 'validate',
  select: 'select',
  evaluate: 'evaluate',
} as const;
export type StageName = (typeof STAGE)[keyof typeof STAGE];
/** The stages of `locfix run`, in order. */
export const PIPELINE_STAGES: readonly StageName[] = Object.values(STAGE);

/** What a stage sees of one instance. */
export interface StageInput {
  instance: SweInstance;
  /** The output of an earlier stage of this instance; throws (kind `missing-input` / `input-failed`) when it has none. */
  output<T>(stage: StageName): Promise<T>;
  /** The same, but undefined when that stage has no usable output (inputs a stage can do without, e.g. validate). */
  optionalOutput<T>(stage: StageName): Promise<T | undefined>;
}

/** What a stage's run-level pass may use (`PipelineStage.prepare`). */
export interface StagePrepareHooks {
  layout: RunLayout;
  /** runs work for one instance under its spend caps, as the instance stage itself would be */
  within<T>(instance: SweInstance, work: () => Promise<T>): Promise<T>;
  shouldStop(): boolean;
}

export interface PipelineStage<T = unknown> {
  /** the artifact folder, runs/<id>/<name>/ */
  readonly name: string;
  run(input: StageInput): Promise<T>;
  /**
   * Optional run-level pass over every selected instance before any instance runs this stage (a cascade's
   * share rule ranks the whole run). It records nothing itself: what it computes goes to the stage's parts,
   * and each instance's artifact is still written by `run`.
   */
  prepare?(instances: readonly SweInstance[], hooks: StagePrepareHooks): Promise<void>;
  /** false for a stage of a model's level that calls none (an oracle, the model-free function level) */
  readonly usesModel?: false;
}

function inputError(message: string, kind: typeof STAGE_ERROR_KIND.missingInput | typeof STAGE_ERROR_KIND.inputFailed): Error {
  return new KindedError(kind, message);
}

/** Inputs handed over in memory by the pipeline: the outputs of the stages this instance has passed. */
export function memoryInput(instance: SweInstance, outputs: ReadonlyMap<string, unknown>): StageInput {
  return {
    instance,
    output: async <T>(stage: StageName) => {
      if (!outputs.has(stage)) throw inputError(`internal: stage "${stage}" has no output for ${instance.instance_id}`, STAGE_ERROR_KIND.missingInput);
      return outputs.get(stage) as T;
    },
    optionalOutput: async <T>(stage: StageName) => outputs.get(stage) as T | undefined,
  };
}

/**
 * Inputs read from a run folder, for a stage run on its own after the earlier ones. `sources` maps a stage to
 * the folder its output is read from (e.g. file rankings from `retrieve` instead of `localize-files`).
 */
export function runFolderInput(layout: RunLayout, instance: SweInstance, sources: Partial<Record<StageName, string>> = {}): StageInput {
  const read = async <T>(stage: StageName): Promise<StageArtifact<T> | undefined> => readArtifact<T>(layout, sources[stage] ?? stage, instance.instance_id);
  return {
    instance,
    output: async <T>(stage: StageName) => {
      const folder = sources[stage] ?? stage;
      const artifact = await read<T>(stage);
      if (!artifact)
        throw inputError(`no ${folder} artifact for ${instance.instance_id} in ${layout.root} (run that stage first)`, STAGE_ERROR_KIND.missingInput);
      if (artifact.status !== 'ok' || artifact.output === undefined) {
        throw inputError(`${folder} failed for ${instance.instance_id}: ${artifact.error?.message ?? 'no output'}`, STAGE_ERROR_KIND.inputFailed);
      }
      return artifact.output;
    },
    optionalOutput: async <T>(stage: StageName) => {
      const artifact = await read<T>(stage);
      return artifact?.status === 'ok' ? artifact.output : undefined;
    },
  };
}

export interface StageCommandOptions<T> extends Omit<RunStageOptions<T>, 'stage' | 'work' | 'instances'> {
  sources?: Partial<Record<StageName, string>>;
  /** how each instance's inputs are found (default: read from the run folder) */
  inputOf?: (instance: SweInstance) => StageInput;
}

/** Runs one stage over instances on its own (a single-stage command): resumable, inputs from the run folder. */
export async function runStageOver<T>(
  stage: PipelineStage<T>,
  instances: readonly SweInstance[],
  options: StageCommandOptions<T>,
): Promise<Array<StageArtifact<T>>> {
  const inputOf = options.inputOf ?? ((instance: SweInstance) => runFolderInput(options.layout, instance, options.sources));
  // one process per run folder: a second one refuses instead of interleaving its artifacts
  const lock = acquireRunLock(options.layout.root);
  try {
    await stage.prepare?.(instances, { layout: options.layout, within: (_instance, work) => work(), shouldStop: () => false });
    return await runStage<T>({ ...options, stage: stage.name, instances, work: (instance) => stage.run(inputOf(instance)) });
  } finally {
    lock.release();
  }
}
