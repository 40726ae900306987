/**
 * `locfix evaluate`: SWE-bench evaluation of predictions (or the gold patches) in Docker sandboxes.
 * Resumes by existing report.json files; writes runs/<id>/evaluation/summary.json.
 */
import type { Command } from 'commander';
import { recordEvaluationRun } from '../engine/evaluation-folder.ts';
import os from 'node:os';
import path from 'node:path';
import { loadDataset } from '../../src/dataset/load.ts';
import { RepoStore } from '../../src/repo/store.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { NETWORK_MODES, type NetworkMode } from '../../src/sandbox/types.ts';
import { DockerRuntime } from '../../docker/sandbox.ts';
import { CACHE_LEVELS, DEFAULT_BASE_IMAGE, ImageProvider, type ImageConfig } from '../../docker/images.ts';
import { DockerPoolBackend, parseEngineSpec } from '../../docker/pool-backend.ts';
import { runEvaluation } from '../../validation/run-evaluation.ts';
import { loadPredictions } from '../../validation/predictions.ts';

interface EvaluateOptions {
  dataset: string;
  predictions: string;
  runId: string;
  runsDir: string;
  mirrors?: string;
  timeout: string;
  maxWorkers: string;
  instances?: string[];
  envImage: string[];
  baseImage: string;
  officialImages: boolean;
  pull?: boolean;
  memory: string;
  cpus: string;
  network: string;
  instanceSetup: string[];
  arch: string;
  cacheLevel: string;
  backend: string;
  engine: string[];
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(text)}`);
  return value;
}

function oneOf<T extends string>(flag: string, text: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(text)) throw new Error(`${flag} must be one of ${allowed.join(', ')}, got ${JSON.stringify(text)}`);
  return text as T;
}

/** "owner/name[@version]=command" (repeatable; several for one key run in order) -> instanceSetup entries */
export function parseInstanceSetup(entries: readonly string[]): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq === entry.length - 1) throw new Error(`--instance-setup expects owner/name[@version]=command, got ${JSON.stringify(entry)}`);
    (result[entry.slice(0, eq)] ??= []).push(entry.slice(eq + 1));
  }
  return result;
}

function networkMode(text: string): NetworkMode {
  if (!(NETWORK_MODES as readonly string[]).includes(text))
    throw new Error(`--network must be one of ${NETWORK_MODES.join(', ')}, got ${JSON.stringify(text)}`);
  return text as NetworkMode;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** "owner/name@version=image" or "owner/name=image" -> envImages entries */
export function parseEnvImages(entries: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq === entry.length - 1) throw new Error(`--env-image expects owner/name[@version]=image, got ${JSON.stringify(entry)}`);
    result[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return result;
}

export function register(program: Command): void {
  program
    .command('evaluate')
    .description('evaluate predictions the way the SWE-bench harness does, in network-less Docker sandboxes')
    .requiredOption('--dataset <file>', 'SWE-bench instances (JSONL, JSON or parquet)')
    .requiredOption('--predictions <file|gold>', 'predictions (JSONL, JSON list or dict), or "gold" for the dataset patches')
    .requiredOption('--run-id <id>', 'run id: logs go to <runs-dir>/<id>/evaluation/')
    .option('--runs-dir <dir>', 'folder holding runs', 'runs')
    .option('--mirrors <dir>', 'folder with bare mirrors laid out as owner+name/repo')
    .option('--timeout <seconds>', 'timeout of one evaluation script', '1800')
    .option('--max-workers <n>', 'instances evaluated at once', '1')
    .option(
      '--instances <ids...>',
      'only these instance ids, comma-separated as for every other command (spaces also work)',
      (value: string, previous: string[] = []) => [
        ...previous,
        ...value
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean),
      ],
    )
    .option('--env-image <repo[@version]=image>', 'environment image to build instance images on (repeatable)', collect, [])
    .option('--base-image <image>', 'base image for spec-built environments', DEFAULT_BASE_IMAGE)
    .option('--no-official-images', 'do not use official swebench/sweb.eval.* images even when present')
    .option('--pull', 'try to pull absent official images (contacts a remote registry)')
    .option('--memory <GiB>', 'memory limit per container', '4')
    .option('--cpus <n>', 'CPU limit per container', '1')
    .option('--instance-setup <repo[@version]=command>', 'command run in /testbed on an --env-image instead of the spec install (repeatable)', collect, [])
    .option('--arch <arch>', 'architecture in official image names: x86_64 | arm64', 'x86_64')
    .option('--backend <name>', 'local (one engine: DOCKER_HOST or the local socket) | docker-pool (the --engine URLs)', 'local')
    .option(
      '--engine <url[=n]>',
      'an engine of the docker-pool backend, e.g. unix:///run/docker2.sock=2 (repeatable; n defaults to --max-workers)',
      collect,
      [],
    )
    .option('--cache-level <level>', 'images kept after evaluation, as the harness: none | base | env (default: instance images removed) | instance', 'env')
    .option(
      '--network <mode>',
      "sandbox network: none (default, offline), or the engine's bridge / host for parity with the harness (recorded in each report.json)",
      'none',
    )
    .action(async (opts: EvaluateOptions) => {
      const timeoutMs = positive('--timeout', opts.timeout) * 1000;
      const maxWorkers = Math.floor(positive('--max-workers', opts.maxWorkers));
      const loaded = await loadDataset(opts.dataset);
      for (const error of loaded.errors) console.error(`dataset: ${error.message}`);
      let dataset = loaded.instances;
      if (opts.instances?.length) {
        const wanted = new Set(opts.instances);
        const missing = opts.instances.filter((id) => !dataset.some((i) => i.instance_id === id));
        if (missing.length) throw new Error(`instances not in the dataset: ${missing.join(', ')}`);
        dataset = dataset.filter((i) => wanted.has(i.instance_id));
      }
      let predictions = await loadPredictions(opts.predictions, dataset);
      if (opts.instances?.length) predictions = predictions.filter((p) => dataset.some((i) => i.instance_id === p.instance_id));

      const memoryGiB = positive('--memory', opts.memory);
      const cpus = positive('--cpus', opts.cpus);
      const store = new RepoStore({
        cacheDir: path.join(process.env.LOCFIX_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'locfix')),
        mirrorsDir: opts.mirrors,
        allowClone: false,
      });
      const imageConfig: ImageConfig = {
        baseImage: opts.baseImage,
        envImages: parseEnvImages(opts.envImage),
        useOfficialImages: opts.officialImages,
        pullOfficialImages: Boolean(opts.pull),
        instanceSetup: parseInstanceSetup(opts.instanceSetup),
        arch: oneOf('--arch', opts.arch, ['x86_64', 'arm64'] as const),
        cacheLevel: oneOf('--cache-level', opts.cacheLevel, CACHE_LEVELS),
      };
      const backendName = oneOf('--backend', opts.backend, ['local', 'docker-pool'] as const);
      if (backendName === 'docker-pool' && !opts.engine.length) throw new Error('--backend docker-pool needs at least one --engine URL[=n]');
      if (backendName === 'local' && opts.engine.length) throw new Error('--engine is for --backend docker-pool');
      // one engine (the harness' way), or a pool of engines placed by free capacity
      const engine =
        backendName === 'local'
          ? (() => {
              const runtime = new DockerRuntime({
                concurrency: maxWorkers,
                defaultLimits: { memoryBytes: Math.round(memoryGiB * 1024 ** 3), nanoCpus: Math.round(cpus * 1e9) },
              });
              return { runtime, images: new ImageProvider(runtime, store, imageConfig) };
            })()
          : {
              backend: new DockerPoolBackend(store, { memoryGiB, cpus, images: imageConfig, engines: opts.engine.map((e) => parseEngineSpec(e, maxWorkers)) }),
            };
      // one process per run folder: a second evaluation of this run refuses instead of racing the first
      const lock = acquireRunLock(path.join(opts.runsDir, opts.runId));
      try {
        let done = 0;
        const total = predictions.filter((p) => p.model_patch).length;
        const { summary, summaryPath, outcomes } = await runEvaluation({
          runId: opts.runId,
          runsDir: opts.runsDir,
          dataset,
          predictions,
          ...engine,
          timeoutMs,
          maxWorkers,
          network: networkMode(opts.network),
          onSweep: (count) => console.log(`removed ${count} container(s) left behind by an interrupted evaluation of run ${opts.runId}`),
          onProgress: (o) => {
            done += 1;
            const state = o.completed ? (o.resolved ? 'resolved' : 'unresolved') : `error: ${o.error}`;
            console.log(`[${done}/${total}] ${o.instanceId}: ${state}${o.reused ? ' (existing report)' : ''} ${(o.durationMs / 1000).toFixed(1)}s`);
          },
        });
        // the run-folder contract, so analyze / compare / report read this evaluation like any run
        await recordEvaluationRun(path.join(opts.runsDir, opts.runId), {
          dataset,
          datasetName: opts.dataset,
          predictions,
          outcomes,
          source: opts.predictions,
          network: opts.network,
        });
        console.log(
          `Total instances: ${summary.total_instances}\nInstances submitted: ${summary.submitted_instances}\n` +
            `Instances completed: ${summary.completed_instances}\nInstances incomplete: ${summary.incomplete_ids.length}\n` +
            `Instances resolved: ${summary.resolved_instances}\nInstances unresolved: ${summary.unresolved_instances}\n` +
            `Instances with empty patches: ${summary.empty_patch_instances}\nInstances with errors: ${summary.error_instances}\n` +
            `Report written to ${summaryPath}`,
        );
      } finally {
        lock.release();
        await store.close();
      }
    });
}
