/**
 * The stages of `locfix run`, assembled from a RunConfig and the shared Services:
 *
 *   localize-files → localize-functions → localize-lines → repair → validate → select → evaluate
 *
 * Each stage is the object its own module exports (localizer/, repair/, validation/), the same one its
 * single-stage command runs; this file only chooses and configures them, and owns the Docker resources the
 * validate and evaluate stages share. The analysis runs afterwards over all instances
 * (results/run-analysis.ts), because it only reads artifacts.
 */
import path from 'node:path';
import PQueue from 'p-queue';
import type { RunConfig } from '../../src/config.ts';
import type { Services } from '../services.ts';
import { PIPELINE_STAGES, type PipelineStage } from '../../src/run/stage.ts';
import type { RunPlan } from '../../src/run/manifest.ts';
import type { ResolvedRun } from './resolved-run.ts';
import { assembleFileLocalization, type FileLocalizationAssembly } from './file-localization.ts';
import { fileLocalizationStage } from '../../localizer/stage.ts';
import { functionLocalizationStage, lineLocalizationStage } from '../../localizer/hierarchy/stage.ts';
import { oracleFunctionStage, oracleLineStage } from '../../localizer/oracle/stages.ts';
import { functionRankingStage } from '../../localizer/function-ranking/stage.ts';
import { isModelFunctionLevel } from '../../localizer/hierarchy/options.ts';
import { repairStage, selectStage } from '../../repair/stage.ts';
import { runBackend } from './backends.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';
import { evaluateStage, validateStage } from '../../validation/stages.ts';
import { gradingRulesOf } from '../../validation/grading-rules.ts';

export interface StageAssembly {
  stages: PipelineStage[];
  /** runs the Docker work of validation and evaluation (and sweeps what a killed invocation left) */
  docker: ExecutionBackend;
  /** file localization: its localizer, capabilities and workspaces (app/engine/file-localization.ts) */
  files: FileLocalizationAssembly;
}

/** Function and line level: the model's, or from the gold patch down to the run's oracle level. */
function hierarchyStages(config: RunConfig, services: Services, run: ResolvedRun): PipelineStage[] {
  const { functionLevel, lineLevel } = run;
  const { topFiles, handoff, oracleFrom } = config;
  const oracleFunctions = oracleFrom === 'function' || oracleFrom === 'line';
  const functions = oracleFunctions
    ? oracleFunctionStage(services)
    : isModelFunctionLevel(functionLevel)
      ? functionLocalizationStage(services, { ...functionLevel, topFiles, handoff })
      : functionRankingStage(services, { ...functionLevel, topFiles, handoff });
  return [functions, oracleFrom === 'line' ? oracleLineStage(services) : lineLocalizationStage(services, { ...lineLevel, topFiles, handoff })];
}

export function assembleStages(config: RunConfig, services: Services, layout: { root: string }, run: ResolvedRun): StageAssembly {
  const docker = runBackend(config, services.store);
  // Index building is CPU- and memory-heavy: a separate, small limit keeps it from starving the rest.
  const indexQueue = new PQueue({ concurrency: config.concurrency.index });
  const runsDir = path.dirname(layout.root);
  const runId = path.basename(layout.root);
  const files = assembleFileLocalization(run.oracle ?? run.localizer, services, {
    runDir: layout.root,
    seed: config.seed,
    // the run's own backend: the explorer's workspaces are swept with the run's other sandboxes
    sandbox: () => docker,
    limitIndexing: <T>(build: () => Promise<T>) => indexQueue.add(build) as Promise<T>,
  });

  const stages: PipelineStage[] = [
    fileLocalizationStage(files.localizer, services, files.stageOptions),
    ...hierarchyStages(config, services, run),
    repairStage({
      model: () => services.requireLlm('repair'),
      snapshot: (i) => services.snapshot(i.repo, i.base_commit),
      config: config.repair,
      seed: config.seed,
    }),
  ];
  if (config.validation.regression || config.validation.reproduction) {
    stages.push(
      validateStage(docker, {
        runId,
        regression: config.validation.regression,
        reproduction: config.validation.reproduction,
        reproductionSamples: config.validation.reproductionSamples,
        timeoutMs: config.validation.timeoutSeconds * 1000,
        llm: services.llm,
      }),
    );
  }
  stages.push(selectStage());
  if (config.evaluation.enabled) {
    stages.push(
      evaluateStage(docker, {
        runId,
        runsDir,
        timeoutMs: config.evaluation.timeoutSeconds * 1000,
        modelName: services.llm?.id ?? 'locfix',
        network: config.evaluation.network,
        grading: gradingRulesOf(config.evaluation),
      }),
    );
  }

  let selected = stages;
  if (config.stopAfter) {
    const at = selected.findIndex((s) => s.name === config.stopAfter);
    // a stage the run leaves out (validation turned off) cannot be where it stops
    if (at < 0) throw new Error(`stopAfter: "${config.stopAfter}" is not among this run's stages: ${selected.map((s) => s.name).join(', ')}`);
    selected = selected.slice(0, at + 1);
  }
  return { stages: selected, docker, files };
}

/**
 * The run's plan as the manifest records it: the stages assembled, and every pipeline stage left out with the
 * reason, so the analysis says "not evaluated: no Docker" instead of counting the instance as unresolved.
 * `why` gives reasons the caller knows better (the demo: no Docker daemon).
 */
export function runPlan(config: RunConfig, stages: readonly PipelineStage[], why: Record<string, string> = {}): RunPlan {
  const names = new Set(stages.map((s) => s.name));
  const leftOut: Record<string, string> = {};
  const stopAt = config.stopAfter ? PIPELINE_STAGES.indexOf(config.stopAfter) : -1;
  PIPELINE_STAGES.forEach((stage, index) => {
    if (names.has(stage)) return;
    if (why[stage]) leftOut[stage] = why[stage];
    else if (stopAt >= 0 && index > stopAt) leftOut[stage] = `the run stopped after ${config.stopAfter} (--stop-after)`;
    else if (stage === 'validate') leftOut[stage] = 'validation turned off in the configuration (validation.regression and .reproduction)';
    else if (stage === 'evaluate') leftOut[stage] = 'evaluation turned off in the configuration (evaluation.enabled)';
    else leftOut[stage] = 'not part of this run';
  });
  return { stages: stages.map((s) => s.name), leftOut };
}
