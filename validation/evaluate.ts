/**
 * SWE-bench evaluation of predictions in Docker sandboxes, following the harness' run_instance:
 *
 *   runs/<id>/evaluation/<instance>/run_instance.log   what happened, with the patch-apply markers
 *                                   patch.diff          the model patch as applied
 *                                   eval.sh             the evaluation script
 *                                   test_output.txt     the script's output (stdout+stderr)
 *                                   report.json         the harness-format report (only when graded)
 *   runs/<id>/evaluation/summary.json                  the run report with the harness' fields
 *
 * An instance is done when its report.json exists, so a rerun resumes. A patch that applies with none of
 * the harness' commands, a timeout, or any other failure leaves no report.json: the instance is counted
 * in error_ids, as the harness counts it. Empty patches are not run (empty_patch_ids).
 */
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { safeFileName } from '../src/util/fsx.ts';
import type { ExecutionBackend, InstanceImages, NetworkMode, Sandbox, SandboxRuntime } from '../src/sandbox/types.ts';
import {
  APPLY_PATCH_FAIL,
  APPLY_PATCH_PASS,
  DOCKER_PATCH,
  DOCKER_WORKDIR,
  PATCH_ALREADY_APPLIED,
  PATCH_ALREADY_APPLIED_CHECK,
  PATCH_APPLY_COMMANDS,
  PATCH_RESET_COMMAND,
} from '../src/harness/constants.ts';
import type { GradingRules } from './grading-rules.ts';
import type { InfraFailure } from './infra-failure.ts';
import type { Prediction } from './predictions.ts';
import type { ErrorKind } from '../src/util/error-kinds.ts';

export class EvaluationError extends Error {
  constructor(
    readonly instanceId: string,
    message: string,
    /** machine-readable cause, e.g. "cannot-run:network" (src/util/error-kinds.ts) */
    readonly kind?: ErrorKind,
  ) {
    super(`${instanceId}: ${message}`);
    this.name = 'EvaluationError';
  }
}

/** In place of report.json: why an instance could not be evaluated ({kind, reason}; removed when a retry succeeds). */
export const LOG_EVALUATION_ERROR = 'evaluation_error.json';

export interface InstanceOutcome {
  instanceId: string;
  /** a report.json exists */
  completed: boolean;
  resolved: boolean;
  /** the report was already there (resumed) */
  reused: boolean;
  error?: string;
  durationMs: number;
  /** time spent on image lookup/build, container lifetime, and the eval script */
  timings?: { imageMs: number; containerMs: number; evalMs: number };
  /** the harness command that applied the model patch */
  patchApplyCommand?: string;
  /** why the instance could not be evaluated (with `error`), e.g. "cannot-run:network" */
  errorKind?: ErrorKind;
  /** harness 5.0's advisory label of an unresolved or errored instance whose logs show an infrastructure fault */
  infraFailure?: InfraFailure;
  /** resolved, and the patch holds lines that talk past the test runner (runner-audit.ts): kept apart from clean resolves */
  flagged?: boolean;
  /** the verdict with the patch's test machinery applied, when it differs from `resolved` (test-machinery.ts) */
  resolvedAsSubmitted?: boolean;
}

export interface EvaluationOptions {
  runId: string;
  /** folder holding runs (default "runs") */
  runsDir?: string;
  dataset: readonly SweInstance[];
  predictions: readonly Prediction[];
  /** one engine: its runtime and images (`maxWorkers` at once) … */
  runtime?: SandboxRuntime;
  images?: InstanceImages;
  /** … or an execution backend of one or more engines (docker-pool), which bounds the work itself */
  backend?: ExecutionBackend;
  /** eval script timeout (default 1800 s, as the harness) */
  timeoutMs?: number;
  /** instances evaluated at once (default 1) */
  maxWorkers?: number;
  /** the sandbox network: 'none' (default, offline) or the engine's ('bridge', 'host') for parity with the
   * harness, which runs with a network; recorded in each report.json */
  network?: NetworkMode;
  /** whose grading rules (default: harness 5.0.2 with locfix's unforgeable rule); recorded in each report.json */
  grading?: GradingRules;
  /** evaluate empty predictions too, applying nothing: the tests on the base commit (the gate's empty-patch run);
   * by default an empty prediction is "empty patch" and never run, as in the harness */
  runEmptyPatches?: boolean;
  /** progress lines */
  onProgress?: (outcome: InstanceOutcome) => void;
  /** containers of an interrupted earlier invocation of this run were removed */
  onSweep?: (count: number) => void;
  /** called with how many containers and volumes of locfix processes that are gone were removed at start */
  onSweepOrphans?: (count: number) => void;
}

export function evaluationDir(runsDir: string, runId: string): string {
  return path.join(runsDir, runId, 'evaluation');
}

export function instanceLogDir(runsDir: string, runId: string, instanceId: string): string {
  return path.join(evaluationDir(runsDir, runId), safeFileName(instanceId));
}

export function isEmptyPatch(p: Prediction | undefined): boolean {
  return p?.model_patch === undefined || p.model_patch === null || p.model_patch === '';
}

/**
 * Applies `patch` (already copied to DOCKER_PATCH) as the harness does: its commands in order, first success
 * wins, the tree restored to pristine before each later attempt (so no .rej/.orig leftovers or half-applied
 * hunks reach the next command or the tests), and, when all fail, a reverse check that counts a patch the
 * chain left fully applied. `command` names what applied it.
 */
export async function applyModelPatch(
  sandbox: Sandbox,
  log: { info(message: string): void } | undefined,
  timeoutMs = 300_000,
): Promise<{ applied: boolean; output: string; command?: string }> {
  let output = '';
  for (const [attempt, command] of PATCH_APPLY_COMMANDS.entries()) {
    if (attempt > 0) await sandbox.exec(PATCH_RESET_COMMAND, { workdir: DOCKER_WORKDIR, timeoutMs });
    const result = await sandbox.exec(`${command} ${DOCKER_PATCH}`, { workdir: DOCKER_WORKDIR, timeoutMs });
    output = result.output;
    if (result.exitCode === 0) {
      log?.info(`${APPLY_PATCH_PASS}:\n${output}`);
      return { applied: true, output, command };
    }
    log?.info(`Failed to apply patch to container: ${command}`);
  }
  const reverse = await sandbox.exec(`${PATCH_ALREADY_APPLIED_CHECK} ${DOCKER_PATCH}`, { workdir: DOCKER_WORKDIR, timeoutMs });
  if (reverse.exitCode === 0) {
    log?.info(`${APPLY_PATCH_PASS}: verified already applied`);
    return { applied: true, output, command: PATCH_ALREADY_APPLIED };
  }
  log?.info(`${APPLY_PATCH_FAIL}:\n${output}`);
  return { applied: false, output };
}

/**
 * The text of `paths` at `commit` in the sandbox's checkout (undefined: the commit has no such file), read before
 * any evaluated code runs there: what mixed manifests' test sections are restored to (test-machinery.ts).
 */
export async function readBaseFiles(sandbox: Sandbox, commit: string, paths: readonly string[]): Promise<Map<string, string | undefined>> {
  const bases = new Map<string, string | undefined>();
  for (const file of paths) {
    const read = await sandbox.exec(['git', 'show', `${commit}:${file}`], { workdir: DOCKER_WORKDIR, timeoutMs: 60_000 });
    bases.set(file, read.exitCode === 0 ? read.output : undefined);
  }
  return bases;
}

/** The folder, inside an instance's log folder, of its evaluation as submitted (test machinery applied). */
export const AS_SUBMITTED_DIR = 'as_submitted';

/** pytest's JUnit report of the run, kept beside the log. */
export const RUNNER_REPORT = 'runner_report.xml';
