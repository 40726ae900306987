/**
 * Runs one stage over many instances: concurrency-limited, resumable, and failure-isolated.
 *
 * Each instance's result is persisted as a StageArtifact before the next is reported, so a crash or
 * `kill -9` loses only in-flight work. A failing instance records its error and the others go on: users
 * running 300 instances want the 299 results, plus a clear record of the one that broke.
 */
import PQueue from 'p-queue';
import type { SweInstance } from '../dataset/schema.ts';
import { readJsonIfExists, writeJsonAtomic } from '../util/fsx.ts';
import type { RunLayout } from './run-layout.ts';

export interface StageError {
  message: string;
  /** machine-readable kind when the error carries one (e.g. "missing-commit", "timeout") */
  kind?: string;
  stack?: string;
}

export interface StageArtifact<T> {
  stage: string;
  instanceId: string;
  status: 'ok' | 'error';
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** how many times this stage has been attempted for this instance (resumes after errors count up) */
  attempt: number;
  output?: T;
  error?: StageError;
}

export type StageEvent =
  | { type: 'skipped'; stage: string; instanceId: string; status: 'ok' | 'error' }
  | { type: 'started'; stage: string; instanceId: string }
  | { type: 'finished'; stage: string; instanceId: string; artifact: StageArtifact<unknown> };

export interface RunStageOptions<T> {
  layout: RunLayout;
  stage: string;
  instances: readonly SweInstance[];
  work: (instance: SweInstance) => Promise<T>;
  concurrency?: number;
  /** rerun instances whose previous attempt recorded an error (default: keep the recorded error) */
  retryErrors?: boolean;
  /** recompute even when an ok artifact exists */
  force?: boolean;
  onEvent?: (event: StageEvent) => void;
  /** called once per instance when its artifact is written or reused (e.g. releaseAfterLastInstance) */
  onInstanceDone?: (instance: SweInstance) => void;
}

export function toStageError(err: unknown): StageError {
  if (err instanceof Error) {
    const kind = (err as { code?: unknown; kind?: unknown }).kind ?? (err as { code?: unknown }).code;
    return { message: err.message, ...(typeof kind === 'string' ? { kind } : {}), stack: err.stack };
  }
  return { message: String(err) };
}

export async function readArtifact<T>(layout: RunLayout, stage: string, instanceId: string): Promise<StageArtifact<T> | undefined> {
  return readJsonIfExists<StageArtifact<T>>(layout.artifactPath(stage, instanceId));
}

export interface InstanceStageResult<T> {
  artifact: StageArtifact<T>;
  /** true when an artifact from an earlier attempt was kept instead of running `work` */
  reused: boolean;
}

/**
 * One stage for one instance: keeps a usable earlier artifact (ok, or an error unless `retryErrors`), else
 * runs `work` and persists its result or its error atomically before returning.
 */
export async function runInstanceStage<T>(
  layout: RunLayout,
  stage: string,
  instance: SweInstance,
  work: (instance: SweInstance) => Promise<T>,
  options: { retryErrors?: boolean; force?: boolean; onEvent?: (event: StageEvent) => void } = {},
): Promise<InstanceStageResult<T>> {
  const { onEvent } = options;
  const previous = await readArtifact<T>(layout, stage, instance.instance_id);
  if (previous && !options.force && (previous.status === 'ok' || !options.retryErrors)) {
    onEvent?.({ type: 'skipped', stage, instanceId: instance.instance_id, status: previous.status });
    return { artifact: previous, reused: true };
  }
  onEvent?.({ type: 'started', stage, instanceId: instance.instance_id });
  const started = Date.now();
  const base = { stage, instanceId: instance.instance_id, startedAt: new Date(started).toISOString(), attempt: (previous?.attempt ?? 0) + 1 };
  let artifact: StageArtifact<T>;
  try {
    const output = await work(instance);
    const finished = Date.now();
    artifact = { ...base, status: 'ok', finishedAt: new Date(finished).toISOString(), durationMs: finished - started, output };
  } catch (err) {
    const finished = Date.now();
    artifact = { ...base, status: 'error', finishedAt: new Date(finished).toISOString(), durationMs: finished - started, error: toStageError(err) };
  }
  await writeJsonAtomic(layout.artifactPath(stage, instance.instance_id), artifact);
  onEvent?.({ type: 'finished', stage, instanceId: instance.instance_id, artifact });
  return { artifact, reused: false };
}

/** Runs `work` for every instance that has no usable artifact yet; returns all artifacts, in input order. */
export async function runStage<T>(options: RunStageOptions<T>): Promise<Array<StageArtifact<T>>> {
  const { layout, stage, instances, work } = options;
  const queue = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 1) });
  const results = new Array<StageArtifact<T>>(instances.length);
  await Promise.all(
    instances.map((instance, index) =>
      queue.add(async () => {
        try {
          results[index] = (await runInstanceStage(layout, stage, instance, work, options)).artifact;
        } finally {
          options.onInstanceDone?.(instance);
        }
      }),
    ),
  );
  return results;
}
