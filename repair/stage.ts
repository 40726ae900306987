/**
 * The repair stage (edit locations → sampled patches → per-instance record) and the select stage (records +
 * validation results when present → one patch per instance), as `locfix run` and `locfix repair|select`
 * run them.
 *
 * Artifacts, per run directory (src/run/run-layout.ts):
 *   repair/<instance>.json   StageArtifact<RepairInstanceRecord> (resumable: an existing one is not redone)
 *   select/<instance>.json   StageArtifact<Selection>
 *   predictions.jsonl        {instance_id, model_name_or_path, model_patch} per instance
 */
import type { RetryErrors } from '../src/run/stage-runner.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { ChatModel } from '../src/llm/types.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { RunLayout } from '../src/run/run-layout.ts';
import { STAGE, memoryInput, runStageOver, type PipelineStage } from '../src/run/stage.ts';
import { readArtifact, type StageEvent } from '../src/run/stage-runner.ts';
import { writeJsonlAtomic } from '../src/util/fsx.ts';
import { PythonAnalyzer } from './analyzer.ts';
import { repairInstance, type RepairDeps, type RepairInstanceInput } from './repair-instance.ts';
import { selectPatch } from './select.ts';
import type { CandidateValidation, EditLocationSet, RepairInstanceRecord, Selection } from './types.ts';

/** The validate stage's output as far as selection reads it: validation results per normalized patch. */
export interface ValidationResults {
  validation: Record<string, CandidateValidation>;
}

export interface RepairStageDeps extends Omit<RepairDeps, 'model'> {
  /** the chat model, asked for when an instance is repaired (a run without one fails per instance, clearly) */
  model: ChatModel | (() => ChatModel);
  snapshot(instance: SweInstance): Promise<RepoSnapshot>;
}

export function repairStage(deps: RepairStageDeps): PipelineStage<RepairInstanceRecord> {
  return {
    name: STAGE.repair,
    run: async (input) => {
      const lines = await input.output<{ locationSets: EditLocationSet[] }>(STAGE.lines);
      const model = typeof deps.model === 'function' ? deps.model() : deps.model;
      const snapshot = await deps.snapshot(input.instance);
      return repairInstance({ instance: input.instance, locationSets: lines.locationSets, snapshot }, { ...deps, model });
    },
  };
}

export interface SelectStageDeps {
  /** validation results per instance; default: the validate stage's output when it ran */
  validation?: (instanceId: string) => ReadonlyMap<string, CandidateValidation> | undefined;
}

export function selectStage(deps: SelectStageDeps = {}): PipelineStage<Selection> {
  return {
    name: STAGE.select,
    run: async (input) => {
      const record = await input.output<RepairInstanceRecord>(STAGE.repair);
      const validation = deps.validation
        ? deps.validation(input.instance.instance_id)
        : await input.optionalOutput<ValidationResults>(STAGE.validate).then((v) => (v ? new Map(Object.entries(v.validation)) : undefined));
      return selectPatch(record.samples, validation);
    },
  };
}

export interface RepairStageResult {
  done: string[];
  /** an artifact from an earlier attempt was kept (resume) */
  skipped: string[];
  failed: Array<{ instanceId: string; error: string }>;
}

/**
 * The repair stage over inputs given in memory (edit-location sets and snapshots, e.g. from a benchmark),
 * persisted like every stage at `<runDir>/repair/<instance>.json`: instances with an artifact are skipped
 * (resume); a failing instance records its error and the others go on.
 */
export async function runRepairStage(
  runDir: string,
  inputs: Iterable<RepairInstanceInput & { instance: SweInstance }>,
  deps: RepairDeps & { concurrency?: number; retryErrors?: RetryErrors; onEvent?: (event: StageEvent) => void },
): Promise<RepairStageResult> {
  const byId = new Map([...inputs].map((input) => [input.instance.instance_id, input]));
  const analyzer = deps.analyzer ?? (await PythonAnalyzer.create());
  const result: RepairStageResult = { done: [], skipped: [], failed: [] };
  const events: StageEvent[] = [];
  try {
    const stage = repairStage({ ...deps, analyzer, snapshot: async (instance) => byId.get(instance.instance_id)!.snapshot });
    const artifacts = await runStageOver(
      stage,
      [...byId.values()].map((i) => i.instance),
      {
        layout: new RunLayout(runDir),
        concurrency: deps.concurrency ?? 4,
        retryErrors: deps.retryErrors,
        onEvent: (e) => {
          events.push(e);
          deps.onEvent?.(e);
        },
        inputOf: (instance) => memoryInput(instance, new Map([[STAGE.lines, { locationSets: byId.get(instance.instance_id)!.locationSets }]])),
      },
    );
    const reused = new Set(events.filter((e) => e.type === 'skipped').map((e) => e.instanceId));
    for (const artifact of artifacts) {
      if (reused.has(artifact.instanceId)) result.skipped.push(artifact.instanceId);
      else if (artifact.status === 'ok') result.done.push(artifact.instanceId);
      else result.failed.push({ instanceId: artifact.instanceId, error: artifact.error?.message ?? 'unknown error' });
    }
  } finally {
    if (!deps.analyzer) analyzer.dispose();
  }
  return result;
}

export interface PredictionRow {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/** SWE-bench predictions JSONL: one `{instance_id, model_name_or_path, model_patch}` per line. */
export async function writePredictions(file: string, rows: readonly PredictionRow[]): Promise<void> {
  await writeJsonlAtomic(file, rows);
}

export interface SelectStageOptions extends SelectStageDeps {
  instances: readonly SweInstance[];
  /** `model_name_or_path`; defaults to the model id in each repair record */
  modelName?: string;
  /** defaults to <runDir>/predictions.jsonl */
  predictionsFile?: string;
}

/**
 * The select stage over a run folder (always recomputed: it is cheap and the validation input may have
 * changed), then the predictions. An instance without a usable repair artifact gets an empty patch and is
 * listed in `missing`, so the predictions file always covers the whole set.
 */
export async function runSelectStage(runDir: string, options: SelectStageOptions): Promise<{ rows: PredictionRow[]; missing: string[] }> {
  const layout = new RunLayout(runDir);
  const artifacts = await runStageOver(selectStage(options), options.instances, { layout, force: true });
  const rows: PredictionRow[] = [];
  const missing: string[] = [];
  for (const [i, artifact] of artifacts.entries()) {
    const id = options.instances[i].instance_id;
    const repaired = await readArtifact<RepairInstanceRecord>(layout, STAGE.repair, id);
    const record = repaired?.status === 'ok' ? repaired.output : undefined;
    if (!record) missing.push(id);
    rows.push({ instance_id: id, model_name_or_path: options.modelName ?? record?.model ?? 'locfix', model_patch: artifact.output?.patch ?? '' });
  }
  await writePredictions(options.predictionsFile ?? layout.file('predictions.jsonl'), rows);
  return { rows, missing };
}
