/**
 * Runs one stage over many instances: concurrency-limited, resumable, and failure-isolated.
 *
 * Each instance's result is persisted as a StageArtifact before the next is reported, so a crash or
 * `kill -9` loses only in-flight work. A failing instance records its error and the others go on: users
 * running 300 instances want the 299 results, plus a clear record of the one that broke.
 */
import { ERROR_KINDS, isDeclaredKind } from '../util/error-kinds.ts';
import { currentKind, recordedAsDiskFull } from '../util/legacy.ts';
import { retriedByDefault } from './failure-cause.ts';
import { promises as fs } from 'node:fs';
import PQueue from 'p-queue';
import type { SweInstance } from '../dataset/schema.ts';
import { readJsonIfExists, writeJsonAtomic } from '../util/fsx.ts';
import type { RunLayout } from './run-layout.ts';
import { diskFullMessage, isDiskFull } from '../util/disk-full.ts';
import { assertRunLockHeld, RunLockLostError } from './run-lock.ts';

export interface StageError {
  message: string;
  /** machine-readable kind when the error carries one (e.g. "missing-commit", "timeout") */
  kind?: string;
  /** structured facts the error carries (e.g. a spend cap's limits and what was spent) */
  details?: Record<string, unknown>;
  stack?: string;
}

/**
 * Thrown by work that stopped for a reason outside the instance (Ctrl-C, the run's spend cap): nothing is
 * recorded, so the instance stays "not done" and a resume picks it up.
 */
export class StageNotRecorded extends Error {
  constructor(
    message: string,
    readonly reason: 'interrupted' | 'run-budget' | 'disk-full' | 'lock-lost',
  ) {
    super(message);
    this.name = 'StageNotRecorded';
  }
}

/**
 * The error kinds (StageError.kind) that other modules act on, declared once. Other kinds (a localizer's
 * `max-steps`, evaluation's `cannot-run:*`) are reported as they are.
 */
/** The kinds the stage runner and the run's configuration record (src/util/error-kinds.ts declares every kind). */
export const STAGE_ERROR_KIND = {
  budgetExhausted: ERROR_KINDS.budgetExhausted,
  noModel: ERROR_KINDS.noModel,
  configuration: ERROR_KINDS.configuration,
  badConfig: ERROR_KINDS.badConfig,
  badOptions: ERROR_KINDS.badOptions,
  missingRepo: ERROR_KINDS.missingRepo,
  missingInput: ERROR_KINDS.missingInput,
  inputFailed: ERROR_KINDS.inputFailed,
} as const;
export type StageErrorKind = (typeof STAGE_ERROR_KIND)[keyof typeof STAGE_ERROR_KIND];

/**
 * Error kinds that are the run's configuration's fault, not the instance's (no model configured, a mirror that
 * is not where --mirrors says, an unknown localizer): never an outcome of the instance, and never reused — a
 * rerun after the fix runs the instance again, --retry-errors or not.
 */
export const CONFIGURATION_KINDS: ReadonlySet<string> = new Set<StageErrorKind>([
  STAGE_ERROR_KIND.configuration,
  STAGE_ERROR_KIND.noModel,
  STAGE_ERROR_KIND.badConfig,
  STAGE_ERROR_KIND.badOptions,
  STAGE_ERROR_KIND.missingRepo,
]);

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
  | { type: 'finished'; stage: string; instanceId: string; artifact: StageArtifact<unknown> }
  /** an artifact that could not be read back was moved aside to `movedTo` and is recomputed */
  | { type: 'corrupt'; stage: string; instanceId: string; path: string; movedTo: string; reason: string };

export interface RunStageOptions<T> {
  layout: RunLayout;
  stage: string;
  instances: readonly SweInstance[];
  work: (instance: SweInstance) => Promise<T>;
  concurrency?: number;
  /** rerun instances whose previous attempt recorded an error (RetryErrors; default: keep the recorded error) */
  retryErrors?: RetryErrors;
  /** recompute even when an ok artifact exists */
  force?: boolean;
  onEvent?: (event: StageEvent) => void;
  /** called once per instance when its artifact is written or reused (e.g. releaseAfterLastInstance) */
  onInstanceDone?: (instance: SweInstance) => void;
}

/**
 * The kind a stage records for `err`: one locfix declared (a KindedError's, an LlmError's), else the errno code of a
 * failed system call on this host. Never a `kind` or `code` a library or server put there: an HTTP client copies
 * the response body's `error.code` onto its error, and a model server could name any cause it liked (issue 52).
 */
function recordedKind(err: Error): string | undefined {
  const kind = (err as { kind?: unknown }).kind;
  if (isDeclaredKind(kind)) return kind;
  const { code, syscall, errno } = err as NodeJS.ErrnoException;
  return typeof code === 'string' && typeof syscall === 'string' && typeof errno === 'number' ? code : undefined;
}

export function toStageError(err: unknown): StageError {
  if (err instanceof Error) {
    const kind = recordedKind(err);
    const details = (err as { details?: unknown }).details;
    return {
      message: err.message,
      ...(typeof kind === 'string' ? { kind } : {}),
      ...(details && typeof details === 'object' && !Array.isArray(details) ? { details: details as Record<string, unknown> } : {}),
      stack: err.stack,
    };
  }
  return { message: String(err) };
}

function artifactShapeError(value: unknown, stage: string, instanceId: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const a = value as Partial<StageArtifact<unknown>>;
  if (a.status !== 'ok' && a.status !== 'error') return `status is ${JSON.stringify(a.status)}, not "ok" or "error"`;
  if (a.instanceId !== undefined && a.instanceId !== instanceId) return `it is the artifact of ${JSON.stringify(a.instanceId)}`;
  if (a.stage !== undefined && a.stage !== stage) return `it is an artifact of stage ${JSON.stringify(a.stage)}`;
  return undefined;
}

/**
 * The artifact of one stage and instance, or undefined when there is none. One that cannot be read back
 * (truncated by a crash or a full disk, edited by hand, another instance's) counts as missing so that it
 * is recomputed: it is moved aside to `<file>.corrupt` (kept for a post-mortem, never read again) and
 * `onCorrupt` says so. One bad file must not stop a 300-instance run.
 */
export async function readArtifact<T>(
  layout: RunLayout,
  stage: string,
  instanceId: string,
  onCorrupt?: (event: Extract<StageEvent, { type: 'corrupt' }>) => void,
): Promise<StageArtifact<T> | undefined> {
  const file = layout.artifactPath(stage, instanceId);
  let value: unknown;
  let reason: string | undefined;
  try {
    value = await readJsonIfExists<unknown>(file);
    if (value === undefined) return undefined;
    reason = artifactShapeError(value, stage, instanceId);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    reason = `not valid JSON (${err.message})`;
  }
  if (reason === undefined) {
    const artifact = value as StageArtifact<T>;
    // an older artifact's kind in today's spelling (util/legacy.ts)
    if (artifact.error?.kind !== undefined) artifact.error.kind = currentKind(artifact.error.kind);
    return artifact;
  }
  const movedTo = `${file}.corrupt`;
  await fs.rename(file, movedTo).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err; // another reader moved it first
  });
  onCorrupt?.({ type: 'corrupt', stage, instanceId, path: file, movedTo, reason });
  return undefined;
}

export interface InstanceStageResult<T> {
  artifact: StageArtifact<T>;
  /** true when an artifact from an earlier attempt was kept instead of running `work` */
  reused: boolean;
}

/**
 * Which recorded errors a resumed stage runs again. `true` (`--retry-errors`): every failure that is not plainly
 * the method's own (failure-cause.ts `retriedByDefault`: infrastructure, configuration, an evaluation of ambiguous
 * tier, a missing input); `'all'` (`--retry-errors all`): every error, the method's own failures too.
 */
export type RetryErrors = boolean | 'all';

/** Whether an earlier artifact is run again: never an ok one; an error by `retryErrors`, or when it was never the instance's. */
function rerunsError(previous: StageArtifact<unknown>, stage: string, retryErrors: RetryErrors | undefined): boolean {
  if (previous.status === 'ok') return false;
  // never the instance's own failure: a configuration since fixed, a disk full then (recorded by older versions)
  if (CONFIGURATION_KINDS.has(previous.error?.kind ?? '') || recordedAsDiskFull(previous.error?.message)) return true;
  if (retryErrors === 'all') return true;
  return retryErrors === true && retriedByDefault(previous.error, stage);
}

/**
 * One stage for one instance: keeps a usable earlier artifact (ok, or an error unless `retryErrors`), else
 * runs `work` and persists its result or its error atomically before returning (a StageNotRecorded error
 * is rethrown and nothing is written).
 */
export async function runInstanceStage<T>(
  layout: RunLayout,
  stage: string,
  instance: SweInstance,
  work: (instance: SweInstance) => Promise<T>,
  options: { retryErrors?: RetryErrors; force?: boolean; onEvent?: (event: StageEvent) => void } = {},
): Promise<InstanceStageResult<T>> {
  const { onEvent } = options;
  const previous = await readArtifact<T>(layout, stage, instance.instance_id, onEvent);
  if (previous && !options.force && !rerunsError(previous, stage, options.retryErrors)) {
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
    if (err instanceof StageNotRecorded) throw err;
    if (isDiskFull(err)) throw new StageNotRecorded(diskFullMessage(err), 'disk-full');
    const finished = Date.now();
    artifact = { ...base, status: 'error', finishedAt: new Date(finished).toISOString(), durationMs: finished - started, error: toStageError(err) };
  }
  try {
    // fencing: a process that lost the run's lock writes nothing more there (run-lock.ts)
    assertRunLockHeld(layout.root);
  } catch (err) {
    if (err instanceof RunLockLostError) throw new StageNotRecorded(err.message, 'lock-lost');
    throw err;
  }
  try {
    await writeJsonAtomic(layout.artifactPath(stage, instance.instance_id), artifact);
  } catch (err) {
    if (isDiskFull(err)) throw new StageNotRecorded(diskFullMessage(err), 'disk-full');
    throw err;
  }
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
        } catch (err) {
          // a reason outside the instance (a full disk) stops the stage: what has not started stays not done
          if (err instanceof StageNotRecorded) queue.clear();
          throw err;
        } finally {
          options.onInstanceDone?.(instance);
        }
      }),
    ),
  );
  return results;
}
