/**
 * The repair stage (edit locations → 40 sampled patches → per-instance record) and the select stage
 * (records + optional validation results → one patch per instance → SWE-bench predictions JSONL).
 *
 * Artifacts, per run directory (src/orchestrator/run-layout.ts):
 *   repair/<instance>.json   StageArtifact<RepairInstanceRecord> (resumable: an existing one is not redone)
 *   select/<instance>.json   StageArtifact<Selection>
 *   predictions.jsonl        {instance_id, model_name_or_path, model_patch} per instance
 */
import PQueue from 'p-queue';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { ChatModel, ChatResponse, Usage } from '../src/llm/types.ts';
import { RunLayout } from '../src/run/run-layout.ts';
import { readArtifact, runInstanceStage, type StageEvent } from '../src/run/stage-runner.ts';
import { renderPrompt } from '../src/prompts.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { writeJsonlAtomic } from '../src/util/fsx.ts';
import { PythonAnalyzer } from './analyzer.ts';
import { buildRepairContext, DEFAULT_CONTEXT_WINDOW } from './context.ts';
import { gitApplyCheck, type PatchChecker } from './diff.ts';
import { processOutput } from './process.ts';
import { selectPatch } from './select.ts';
import type { CandidateValidation, EditLocationSet, RepairCall, RepairContext, RepairInstanceRecord, RepairSample, Selection } from './types.ts';

export interface RepairConfig {
  /** samples per location set, the greedy one included */
  samplesPerSet: number;
  /** the first sample of each set at temperature 0 */
  greedy: boolean;
  temperature: number;
  maxTokens: number;
  /** lines of context around each location */
  contextWindow: number;
  /** template in prompts/ */
  prompt: string;
}

export const DEFAULT_REPAIR_CONFIG: RepairConfig = {
  samplesPerSet: 10,
  greedy: true,
  temperature: 0.8,
  maxTokens: 1024,
  contextWindow: DEFAULT_CONTEXT_WINDOW,
  prompt: 'repair',
};

export interface RepairInstanceInput {
  instance: Pick<SweInstance, 'instance_id' | 'problem_statement'>;
  /** one per line-level localization sample (4 by default) */
  locationSets: readonly EditLocationSet[];
  snapshot: RepoSnapshot;
}

export interface RepairDeps {
  model: ChatModel;
  config?: Partial<RepairConfig>;
  /** shared across instances to reuse the parser; created (and disposed) per call when absent */
  analyzer?: PythonAnalyzer;
  checker?: PatchChecker;
}

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cost: 0 };

function addUsage(a: Usage, b: Usage): Usage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, cost: a.cost + b.cost };
}

function shareOf(u: Usage, n: number): Usage {
  return n <= 1 ? { ...u } : { promptTokens: u.promptTokens / n, completionTokens: u.completionTokens / n, cost: u.cost / n };
}

export function repairPrompt(problemStatement: string, context: RepairContext, templateName = 'repair'): string {
  return renderPrompt(templateName, { problem_statement: problemStatement.trim(), code_context: context.text });
}

interface PlannedCall {
  setIndex: number;
  firstSample: number;
  n: number;
  temperature: number;
}

function planCalls(setIndex: number, config: RepairConfig): PlannedCall[] {
  const calls: PlannedCall[] = [];
  let k = 0;
  if (config.greedy && config.samplesPerSet > 0) {
    calls.push({ setIndex, firstSample: 0, n: 1, temperature: 0 });
    k = 1;
  }
  if (config.samplesPerSet - k > 0) calls.push({ setIndex, firstSample: k, n: config.samplesPerSet - k, temperature: config.temperature });
  return calls;
}

/** Samples, applies and records the repair candidates of one instance. Does not write anything. */
export async function repairInstance(input: RepairInstanceInput, deps: RepairDeps): Promise<RepairInstanceRecord> {
  const config = { ...DEFAULT_REPAIR_CONFIG, ...deps.config };
  const ownAnalyzer = deps.analyzer ? undefined : await PythonAnalyzer.create();
  const analyzer = deps.analyzer ?? ownAnalyzer!;
  try {
    const paths = [...new Set(input.locationSets.flatMap((s) => s.files.map((f) => f.path)))];
    const contents = paths.length > 0 ? await input.snapshot.readFiles(paths) : new Map<string, string>();
    const contexts = input.locationSets.map((set) => buildRepairContext(set, contents, config.contextWindow));
    const prompts = contexts.map((c) => (c.files.length > 0 ? repairPrompt(input.instance.problem_statement, c, config.prompt) : ''));

    const planned = contexts.flatMap((c, setIndex) => (c.files.length > 0 ? planCalls(setIndex, config) : []));
    const responses = await Promise.all(
      planned.map(async (call): Promise<ChatResponse | Error> => {
        try {
          return await deps.model.chat({
            messages: [{ role: 'user', content: prompts[call.setIndex] }],
            temperature: call.temperature,
            n: call.n,
            maxTokens: config.maxTokens,
            purpose: 'repair',
          });
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );

    const calls: RepairCall[] = [];
    const samples: RepairSample[] = [];
    let usage = ZERO_USAGE;
    planned.forEach((call, i) => {
      const response = responses[i];
      const files = contexts[call.setIndex].files;
      if (response instanceof Error) {
        calls.push({ setIndex: call.setIndex, temperature: call.temperature, n: call.n, model: deps.model.id, usage: ZERO_USAGE, cached: false, latencyMs: 0, error: response.message });
      } else {
        calls.push({ setIndex: call.setIndex, temperature: call.temperature, n: call.n, model: response.model, usage: response.usage, cached: response.cached, latencyMs: response.latencyMs });
        usage = addUsage(usage, response.usage);
      }
      for (let j = 0; j < call.n; j++) {
        const sampleIndex = call.firstSample + j;
        const base = { id: `s${call.setIndex}-${sampleIndex}`, setIndex: call.setIndex, sampleIndex, temperature: call.temperature };
        const choice = response instanceof Error ? undefined : response.choices[j];
        if (!choice) {
          const error = response instanceof Error ? response.message : `the model returned ${response.choices.length} of ${call.n} choices`;
          samples.push({ ...base, raw: '', error, applied: [], applyFailures: [], syntax: [], diff: '', normalized: '', emptyReason: 'model-error', usage: { ...ZERO_USAGE } });
          continue;
        }
        const processed = processOutput(choice.content, files, analyzer);
        samples.push({
          ...base,
          raw: choice.content,
          ...(choice.finishReason ? { finishReason: choice.finishReason } : {}),
          ...processed,
          usage: shareOf((response as ChatResponse).usage, call.n),
        });
      }
    });

    await checkDiffs(samples, contents, deps.checker ?? gitApplyCheck);
    return {
      instanceId: input.instance.instance_id,
      model: deps.model.id,
      prompts,
      contexts: contexts.map((c) => c.files.map(({ path: p, intervals }) => ({ path: p, intervals }))),
      calls,
      samples,
      selection: selectPatch(samples),
      usage,
    };
  } finally {
    ownAnalyzer?.dispose();
  }
}

/** One batched `git apply --check` per instance; a rejected diff takes its sample out of the vote. */
async function checkDiffs(samples: RepairSample[], contents: ReadonlyMap<string, string>, checker: PatchChecker): Promise<void> {
  const candidates = samples.filter((s) => s.emptyReason === undefined);
  if (candidates.length === 0) return;
  const checks = await checker(contents, candidates.map((s) => s.diff));
  candidates.forEach((s, i) => {
    s.diffCheck = checks[i];
    if (!checks[i].ok) s.emptyReason = 'invalid-diff';
  });
}

export interface RepairStageResult {
  done: string[];
  /** an artifact from an earlier attempt was kept (resume) */
  skipped: string[];
  failed: Array<{ instanceId: string; error: string }>;
}

/**
 * Runs `repairInstance` for each input and persists a StageArtifact per instance at
 * `<runDir>/repair/<instance>.json` (the orchestrator's layout, so both read each other's runs). Instances
 * with an artifact are skipped (resume); a failing instance records its error and the others go on.
 */
export async function runRepairStage(
  runDir: string,
  inputs: Iterable<RepairInstanceInput & { instance: SweInstance }>,
  deps: RepairDeps & { concurrency?: number; retryErrors?: boolean; onEvent?: (event: StageEvent) => void },
): Promise<RepairStageResult> {
  const layout = new RunLayout(runDir);
  const result: RepairStageResult = { done: [], skipped: [], failed: [] };
  const analyzer = deps.analyzer ?? (await PythonAnalyzer.create());
  const queue = new PQueue({ concurrency: Math.max(1, deps.concurrency ?? 4) });
  try {
    await Promise.all(
      [...inputs].map((input) =>
        queue.add(async () => {
          const { artifact, reused } = await runInstanceStage(layout, 'repair', input.instance, () => repairInstance(input, { ...deps, analyzer }), {
            ...(deps.retryErrors !== undefined ? { retryErrors: deps.retryErrors } : {}),
            ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
          });
          const id = input.instance.instance_id;
          if (reused) result.skipped.push(id);
          else if (artifact.status === 'ok') result.done.push(id);
          else result.failed.push({ instanceId: id, error: artifact.error?.message ?? 'unknown error' });
        }),
      ),
    );
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

export interface SelectStageOptions {
  instances: readonly SweInstance[];
  /** `model_name_or_path`; defaults to the model id in each repair record */
  modelName?: string;
  /** validation results per instance, keyed by normalized patch */
  validation?: (instanceId: string) => ReadonlyMap<string, CandidateValidation> | undefined;
  /** defaults to <runDir>/predictions.jsonl */
  predictionsFile?: string;
}

/**
 * Selects a patch for every instance from its repair artifact (always recomputed: it is cheap and the
 * validation input may have changed), persists `<runDir>/select/<instance>.json`, and writes the
 * predictions. An instance without a usable repair artifact gets an empty patch and is listed in `missing`,
 * so the predictions file always covers the whole set.
 */
export async function runSelectStage(runDir: string, options: SelectStageOptions): Promise<{ rows: PredictionRow[]; missing: string[] }> {
  const layout = new RunLayout(runDir);
  const rows: PredictionRow[] = [];
  const missing: string[] = [];
  for (const instance of options.instances) {
    const id = instance.instance_id;
    const repaired = await readArtifact<RepairInstanceRecord>(layout, 'repair', id);
    const record = repaired?.status === 'ok' ? repaired.output : undefined;
    if (!record) {
      missing.push(id);
      rows.push({ instance_id: id, model_name_or_path: options.modelName ?? 'locfix', model_patch: '' });
      continue;
    }
    const { artifact } = await runInstanceStage(layout, 'select', instance, async (): Promise<Selection> => selectPatch(record.samples, options.validation?.(id)), { force: true });
    rows.push({ instance_id: id, model_name_or_path: options.modelName ?? record.model, model_patch: artifact.output?.patch ?? '' });
  }
  await writePredictions(options.predictionsFile ?? layout.file('predictions.jsonl'), rows);
  return { rows, missing };
}
