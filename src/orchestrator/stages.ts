/**
 * The stages of `locfix run`, assembled from a RunConfig and the shared Services:
 *
 *   localize-files → localize-functions → localize-lines → repair → validate → select → evaluate
 *
 * Each stage is a thin adapter from the per-instance outputs of the earlier stages to the module that does
 * the work (localizer/, repair/, validation/); the pipeline engine persists every result. The analysis runs
 * afterwards over all instances (results/run-analysis.ts), because it only reads artifacts.
 */
import path from 'node:path';
import PQueue from 'p-queue';
import type { RunConfig } from '../config.ts';
import type { SweInstance } from '../dataset/schema.ts';
import type { Services } from '../services.ts';
import type { FileParser } from '../index/file-parser.ts';
import type { ChatModel } from '../llm/types.ts';
import { createLocalizer } from '../../localizer/registry.ts';
import type { FileLocalization } from '../artifacts/localization.ts';
import { localizeRelatedElements, type RelatedElementsOutput } from '../../localizer/hierarchy/related-elements.ts';
import { localizeEditLocations, type EditLocationsOutput } from '../../localizer/hierarchy/edit-locations.ts';
import { repairInstance } from '../../repair/stage.ts';
import { combineValidation, distinctCandidates, selectPatch } from '../../repair/select.ts';
import type { CandidateValidation, RepairInstanceRecord, Selection } from '../../repair/types.ts';
import { ImageProvider } from '../../docker/images.ts';
import { SandboxRuntime } from '../../docker/sandbox.ts';
import { evaluateInstance, type InstanceOutcome } from '../../validation/evaluate.ts';
import { withTestbed } from '../../validation/testbed.ts';
import { runRegressionTests, selectRegressionTests, type RegressionSelection } from '../../validation/regression.ts';
import { generateReproductionScripts, runReproductionTest, selectReproductionScript, type ReproductionSelection } from '../../validation/reproduction.ts';
import { getOutput, type PipelineStage } from './pipeline.ts';

export const STAGE_NAMES = ['localize-files', 'localize-functions', 'localize-lines', 'repair', 'validate', 'select', 'evaluate'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export type FunctionStageOutput = RelatedElementsOutput;
export interface LineStageOutput extends EditLocationsOutput {
  files: string[];
}

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

export interface EvaluateStageOutput extends InstanceOutcome {
  patchEmpty: boolean;
}

/** Docker resources shared by the validate and evaluate stages; created on first use. */
export class DockerResources {
  private runtimeInstance?: SandboxRuntime;
  private imagesInstance?: ImageProvider;
  readonly queue: PQueue;

  constructor(
    private readonly services: Services,
    private readonly config: RunConfig['docker'],
    concurrency: number,
  ) {
    this.queue = new PQueue({ concurrency });
  }

  get runtime(): SandboxRuntime {
    this.runtimeInstance ??= new SandboxRuntime({
      concurrency: this.queue.concurrency,
      defaultLimits: { memoryBytes: Math.round(this.config.memoryGiB * 1024 ** 3), nanoCpus: Math.round(this.config.cpus * 1e9) },
    });
    return this.runtimeInstance;
  }

  get images(): ImageProvider {
    this.imagesInstance ??= new ImageProvider(this.runtime, this.services.store, {
      ...(this.config.baseImage ? { baseImage: this.config.baseImage } : {}),
      envImages: this.config.envImages,
      instanceSetup: this.config.instanceSetup,
      useOfficialImages: this.config.useOfficialImages,
    });
    return this.imagesInstance;
  }
}

function requireLlm(services: Services, stage: string): ChatModel {
  const llm = services.llm;
  if (!llm) throw new Error(`stage ${stage} needs a chat model: set "llm" in the config or pass --llm`);
  return llm;
}

export interface StageAssembly {
  stages: PipelineStage[];
  docker: DockerResources;
}

export function assembleStages(config: RunConfig, services: Services, layout: { root: string }): StageAssembly {
  const docker = new DockerResources(services, config.docker, config.concurrency.docker);
  const indexQueue = new PQueue({ concurrency: config.concurrency.index });
  const runsDir = path.dirname(layout.root);
  const runId = path.basename(layout.root);
  const topFiles = config.topFiles;
  const localizerPromise = createLocalizer(config.localizer.name, { seed: config.seed, ...config.localizer.options });

  const snapshotOf = (instance: SweInstance) => services.snapshot(instance.repo, instance.base_commit);

  const stages: PipelineStage[] = [
    {
      name: 'localize-files',
      run: async ({ instance }) => {
        const localizer = await localizerPromise;
        const snapshot = await snapshotOf(instance);
        // Index building is CPU- and memory-heavy: a separate, small limit keeps it from starving the rest.
        const index = (parser?: FileParser) => indexQueue.add(() => services.index(snapshot, parser)) as Promise<Awaited<ReturnType<Services['index']>>>;
        return localizer.localize({ instance, snapshot, index, llm: services.llm });
      },
    },
    {
      name: 'localize-functions',
      run: async (input) => {
        const files = getOutput<FileLocalization>(input, 'localize-files');
        const llm = requireLlm(services, 'localize-functions');
        const snapshot = await snapshotOf(input.instance);
        return localizeRelatedElements(
          { instance: input.instance, snapshot, files: files.files.slice(0, topFiles).map((f) => f.path) },
          { llm },
          { topFiles, ...config.functionLevel },
        );
      },
    },
    {
      name: 'localize-lines',
      run: async (input) => {
        const files = getOutput<FileLocalization>(input, 'localize-files');
        const related = getOutput<FunctionStageOutput>(input, 'localize-functions');
        const llm = requireLlm(services, 'localize-lines');
        const snapshot = await snapshotOf(input.instance);
        const top = files.files.slice(0, topFiles).map((f) => f.path);
        const out = await localizeEditLocations({ instance: input.instance, snapshot, files: top, related: related.locations }, { llm }, { topFiles, ...config.lineLevel });
        return { ...out, files: top } satisfies LineStageOutput;
      },
    },
    {
      name: 'repair',
      run: async (input) => {
        const lines = getOutput<LineStageOutput>(input, 'localize-lines');
        const llm = requireLlm(services, 'repair');
        const snapshot = await snapshotOf(input.instance);
        return repairInstance({ instance: input.instance, locationSets: lines.locationSets, snapshot }, { model: llm, config: config.repair });
      },
    },
    {
      name: 'validate',
      run: async (input): Promise<ValidateStageOutput> => {
        const record = getOutput<RepairInstanceRecord>(input, 'repair');
        const candidates = distinctCandidates(record.samples);
        const out: ValidateStageOutput = { validation: {}, candidates: candidates.length, skipped: [], usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 } };
        const wanted = { regression: config.validation.regression, reproduction: config.validation.reproduction };
        if (candidates.length === 0 || (!wanted.regression && !wanted.reproduction)) {
          if (candidates.length === 0) {
            for (const step of ['regression', 'reproduction'] as const) if (wanted[step]) out.skipped.push({ step, reason: 'no candidate patch' });
          }
          return out;
        }
        const timeoutMs = config.validation.timeoutSeconds * 1000;
        const llm = services.llm ? meteredModel(services.llm, out.usage) : undefined;
        await docker.queue.add(() =>
          withTestbed(docker.runtime, docker.images, input.instance, { runId, timeoutMs }, async (testbed) => {
            let regression: Map<string, { regressionFailures: number }> | undefined;
            let reproduction: Map<string, { reproductionPassed: boolean }> | undefined;
            if (wanted.regression) {
              try {
                const selection = await selectRegressionTests(testbed, { model: llm, timeoutMs });
                regression = await runRegressionTests(testbed, selection, candidates, { timeoutMs });
                out.regression = { ...selection, passing: selection.passing.length };
              } catch (err) {
                out.skipped.push({ step: 'regression', reason: (err as Error).message });
              }
            }
            if (wanted.reproduction) {
              try {
                if (!llm) throw new Error('reproduction tests are written by the chat model, and none is configured');
                const scripts = await generateReproductionScripts(llm, input.instance.problem_statement, { samples: config.validation.reproductionSamples });
                const chosen = await selectReproductionScript(testbed, scripts, { timeoutMs });
                out.reproduction = chosen;
                if (!chosen.script) throw new Error('no generated script reproduces the issue on the unpatched repository');
                reproduction = await runReproductionTest(testbed, chosen.script, candidates, { timeoutMs });
              } catch (err) {
                out.skipped.push({ step: 'reproduction', reason: (err as Error).message });
              }
            }
            out.validation = Object.fromEntries(combineValidation(regression, reproduction));
          }),
        );
        return out;
      },
    },
    {
      name: 'select',
      run: async (input): Promise<Selection> => {
        const record = getOutput<RepairInstanceRecord>(input, 'repair');
        const validated = input.outputs.get('validate') as ValidateStageOutput | undefined;
        return selectPatch(record.samples, validated ? new Map(Object.entries(validated.validation)) : undefined);
      },
    },
    {
      name: 'evaluate',
      run: async (input): Promise<EvaluateStageOutput> => {
        const selection = getOutput<Selection>(input, 'select');
        if (input.instance.FAIL_TO_PASS.length === 0) {
          throw Object.assign(new Error(`${input.instance.instance_id} has no FAIL_TO_PASS tests in the dataset; evaluation needs the full SWE-bench rows (e.g. --dataset SWE-bench/SWE-bench_Lite)`), { kind: 'no-tests' });
        }
        const prediction = { instance_id: input.instance.instance_id, model_name_or_path: services.llm?.id ?? 'locfix', model_patch: selection.patch };
        if (!selection.patch.trim()) {
          // the harness counts an empty patch without running anything
          return { instanceId: input.instance.instance_id, completed: false, resolved: false, reused: false, durationMs: 0, patchEmpty: true };
        }
        const outcome = (await docker.queue.add(() =>
          evaluateInstance(input.instance, prediction, { runId, runsDir, runtime: docker.runtime, images: docker.images, timeoutMs: config.evaluation.timeoutSeconds * 1000 }),
        )) as InstanceOutcome;
        return { ...outcome, patchEmpty: false };
      },
    },
  ];

  let selected = stages;
  if (!config.validation.regression && !config.validation.reproduction) selected = selected.filter((s) => s.name !== 'validate');
  if (!config.evaluation.enabled) selected = selected.filter((s) => s.name !== 'evaluate');
  if (config.stopAfter) {
    const at = selected.findIndex((s) => s.name === config.stopAfter);
    if (at < 0) throw new Error(`stopAfter: unknown stage "${config.stopAfter}"; stages: ${selected.map((s) => s.name).join(', ')}`);
    selected = selected.slice(0, at + 1);
  }
  return { stages: selected, docker };
}
