/**
 * The whole-pipeline demo on the mini-benchmark, defined once for the two places that run it: `locfix demo`
 * replays it from the bundled recording (minibench/recording/), and `scripts/record-demo.ts` records it
 * against the scripted model server. Both must ask the model exactly the same requests, so both build their
 * run from this config.
 */
import path from 'node:path';
import type { RunConfigInput } from '../config.ts';
import type { RecordingFile } from '../llm/replay.ts';
import { MINIBENCH_SOURCE_DIR } from './fixtures.ts';

/** The bundled recording: `recording.json` (the recorded model, the instances, the plan) and `llm/` (answers). */
export const DEMO_RECORDING_DIR = path.join(MINIBENCH_SOURCE_DIR, 'recording');

export interface DemoRecordingFile extends RecordingFile {
  instances: string[];
  /** the category the scripted model steered each instance toward when the model was asked */
  steering: Record<string, string>;
  /** the category each instance ended in in the recorded run (Docker on): what a replay must reproduce */
  categories: Record<string, string>;
  recordedAt: string;
}

/**
 * A cascade (model-free retrieval; the least confident 40 % escalated to Agentless), one repair sample set,
 * and, with Docker, regression and reproduction validation and SWE-bench-style evaluation.
 */
export function demoRunConfig(o: {
  runId: string;
  runsDir: string;
  datasetPath: string;
  mirrorsDir: string;
  cacheDir: string;
  llm: string;
  instances: readonly string[];
  docker: boolean;
  chromaUrl?: string;
}): RunConfigInput {
  return {
    runId: o.runId,
    runsDir: o.runsDir,
    dataset: o.datasetPath,
    instances: [...o.instances],
    mirrorsDir: o.mirrorsDir,
    cacheDir: o.cacheDir,
    embedder: 'lexical',
    ...(o.chromaUrl ? { chromaUrl: o.chromaUrl } : {}),
    llm: o.llm,
    seed: 1,
    localizer: {
      name: 'cascade',
      options: {
        tiers: [
          { localizer: 'retrieval', escalate: { signal: 'top-margin', share: 0.4 } },
          { localizer: 'agentless', merge: 'replace' },
        ],
      },
    },
    repair: { samplesPerSet: 1, greedy: true, temperature: 0.8, maxTokens: 1024, contextWindow: 10 },
    validation: { regression: o.docker, reproduction: o.docker, reproductionSamples: 1, timeoutSeconds: 300 },
    evaluation: { enabled: o.docker, timeoutSeconds: 600 },
    concurrency: { instances: 2, sandboxes: 2, index: 1 },
    ...(o.docker ? {} : { stopAfter: 'select' }),
  };
}

/** The ladder demo's recording (`locfix demo --ladder`): recorded by `scripts/record-demo.ts --ladder`. */
export const LADDER_RECORDING_DIR = path.join(MINIBENCH_SOURCE_DIR, 'ladder-recording');

export interface LadderRecordingFile extends RecordingFile {
  instances: string[];
  /** the one level of localization the scripted model was weak at, per instance */
  weakness: Record<string, string>;
  /** the cause the recorded ladder attributed to each instance: what a replay must reproduce */
  causes: Record<string, string>;
  recordedAt: string;
}

/**
 * The counterfactual ladder's demo (`locfix ladder` on the mini-benchmark): the Agentless localizer, one greedy
 * repair sample, no validation (a patch is selected as sampled), SWE-bench-style evaluation; every rung of the
 * ladder runs this configuration with the oracle down to its level.
 */
export function ladderDemoConfig(o: Omit<Parameters<typeof demoRunConfig>[0], 'docker'>): RunConfigInput {
  return {
    ...demoRunConfig({ ...o, docker: true }),
    localizer: { name: 'agentless', options: {} },
    validation: { regression: false, reproduction: false, reproductionSamples: 1, timeoutSeconds: 300 },
  };
}
