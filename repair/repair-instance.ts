/**
 * Repair of one instance: edit-location sets → repair contexts → sampled SEARCH/REPLACE answers (greedy
 * first, then temperature samples) → normalized diffs, checked with `git apply --check` → the record that
 * the select stage votes over. The stage around it is repair/stage.ts.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import type { ChatModel, ChatResponse, Usage } from '../src/llm/types.ts';
import { LlmError } from '../src/llm/errors.ts';
import { causeOf } from '../src/run/failure-cause.ts';
import { renderPrompt } from '../src/prompts.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { PythonAnalyzer } from './analyzer.ts';
import { languageById, languageForPath } from '../src/languages/index.ts';
import { buildRepairContext, DEFAULT_CONTEXT_WINDOW } from './context.ts';
import { gitApplyCheck, type PatchChecker } from './diff.ts';
import { processOutput } from './process.ts';
import { selectPatch } from './select.ts';
import type { EditLocationSet, RepairCall, RepairContext, RepairInstanceRecord, RepairSample } from './types.ts';

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
  /**
   * the run's seed: sampled calls (temperature > 0) carry seed SEED_STRIDE·seed (the model gives sample i
   * seed + i), so repeats of a run with other seeds draw other samples, and a rerun the same ones; the greedy
   * call carries none
   */
  seed?: number;
}

/** Seeds of two runs' sampled calls stay apart while a call asks for fewer samples than this. */
export const SEED_STRIDE = 1000;

const ZERO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cost: 0 };

function addUsage(a: Usage, b: Usage): Usage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, cost: a.cost + b.cost };
}

function shareOf(u: Usage, n: number): Usage {
  return n <= 1 ? { ...u } : { promptTokens: u.promptTokens / n, completionTokens: u.completionTokens / n, cost: u.cost / n };
}

export function repairPrompt(problemStatement: string, context: RepairContext, templateName = 'repair'): string {
  // the example edit is fenced and named in the language of the first shown file (Python when unknown)
  const first = context.files[0]?.path;
  const spec = (first !== undefined ? languageForPath(first) : undefined) ?? languageById('python');
  return renderPrompt(templateName, {
    problem_statement: problemStatement.trim(),
    code_context: context.text,
    fence: spec.fence,
    example_path: `path/to/file${spec.extensions[0] ?? ''}`,
  });
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
            ...(deps.seed !== undefined && call.temperature > 0 ? { seed: deps.seed * SEED_STRIDE } : {}),
          });
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );

    // every call failed for a reason outside the method (a server down, a replay miss): no sample was the
    // model's, so the stage fails with that cause instead of recording the method's empty patch
    const infrastructure = responses.filter((r): r is LlmError => r instanceof LlmError && causeOf({ kind: r.kind, details: r.details }).class !== 'method');
    if (responses.length > 0 && infrastructure.length === responses.length) throw infrastructure[0];
    const calls: RepairCall[] = [];
    const samples: RepairSample[] = [];
    let usage = ZERO_USAGE;
    planned.forEach((call, i) => {
      const response = responses[i];
      const files = contexts[call.setIndex].files;
      if (response instanceof Error) {
        calls.push({
          setIndex: call.setIndex,
          temperature: call.temperature,
          n: call.n,
          model: deps.model.id,
          usage: ZERO_USAGE,
          cached: false,
          latencyMs: 0,
          error: response.message,
        });
      } else {
        calls.push({
          setIndex: call.setIndex,
          temperature: call.temperature,
          n: call.n,
          model: response.model,
          usage: response.usage,
          cached: response.cached,
          latencyMs: response.latencyMs,
        });
        usage = addUsage(usage, response.usage);
      }
      for (let j = 0; j < call.n; j++) {
        const sampleIndex = call.firstSample + j;
        const base = { id: `s${call.setIndex}-${sampleIndex}`, setIndex: call.setIndex, sampleIndex, temperature: call.temperature };
        const choice = response instanceof Error ? undefined : response.choices[j];
        if (!choice) {
          const error = response instanceof Error ? response.message : `the model returned ${response.choices.length} of ${call.n} choices`;
          samples.push({
            ...base,
            raw: '',
            error,
            applied: [],
            applyFailures: [],
            syntax: [],
            diff: '',
            normalized: '',
            emptyReason: 'model-error',
            usage: { ...ZERO_USAGE },
          });
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
  const checks = await checker(
    contents,
    candidates.map((s) => s.diff),
  );
  candidates.forEach((s, i) => {
    s.diffCheck = checks[i];
    if (!checks[i].ok) s.emptyReason = 'invalid-diff';
  });
}
