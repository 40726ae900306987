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
import { promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { readJsonIfExists, safeFileName, writeFileAtomic, writeJsonAtomic } from '../src/util/fsx.ts';
import type { InstanceImage, InstanceImages } from '../src/sandbox/types.ts';
import { isMissingImageError, type ExecutionBackend, type NetworkMode, type Sandbox, type SandboxRuntime } from '../src/sandbox/types.ts';
import {
  APPLY_PATCH_FAIL,
  APPLY_PATCH_PASS,
  DOCKER_PATCH,
  DOCKER_WORKDIR,
  LOG_INSTANCE,
  LOG_REPORT,
  LOG_TEST_OUTPUT,
  PATCH_ALREADY_APPLIED,
  PATCH_ALREADY_APPLIED_CHECK,
  PATCH_APPLY_COMMANDS,
  PATCH_RESET_COMMAND,
} from '../src/harness/constants.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { evalReport, statusMapFromLog, type InstanceReport } from './grading.ts';
import { DEFAULT_GRADING_RULES, type GradingRules } from './grading-rules.ts';
import { classifyInfraFailure, type InfraFailure } from './infra-failure.ts';
import { parseJunitXml, type ReportOutcome } from './structured-report.ts';
import { diagnoseTestRun, patchedFiles } from './run-diagnosis.ts';
import { blameCannotRun, goldBaseline } from './gold-baseline.ts';
import { JUNIT_REPORT_PARSERS, logParserFor } from './log-parsers/index.ts';
import type { Prediction } from './predictions.ts';

import { cannotRunKind, ERROR_KINDS, type ErrorKind } from '../src/util/error-kinds.ts';

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

class InstanceLog {
  private lines: string[] = [];
  constructor(private readonly file: string) {}
  info(message: string): void {
    this.lines.push(`${new Date().toISOString()} - INFO - ${message}`);
  }
  error(message: string): void {
    this.lines.push(`${new Date().toISOString()} - ERROR - ${message}`);
  }
  /** what was logged since the last flush */
  text(): string {
    return this.lines.join('\n');
  }
  async flush(): Promise<void> {
    await fs.appendFile(this.file, this.lines.join('\n') + '\n');
    this.lines = [];
  }
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

/** pytest's JUnit report of the run, kept beside the log. */
export const RUNNER_REPORT = 'runner_report.xml';

/** The runner's report in the sandbox, parsed (and kept at `keep`); undefined when it wrote none. */
async function readRunnerReport(sandbox: Sandbox, file: string, keep: string): Promise<Map<string, ReportOutcome> | undefined> {
  const read = await sandbox.exec(['cat', file], { timeoutMs: 60_000 }).catch(() => undefined);
  // no report: pytest never got to write it, or another runner ran
  if (read === undefined) return undefined;
  if (read.exitCode !== 0) return undefined;
  await writeFileAtomic(keep, read.output);
  return parseJunitXml(read.output);
}

export async function evaluateInstance(
  instance: SweInstance,
  prediction: Prediction,
  options: Pick<EvaluationOptions, 'runId' | 'runsDir' | 'timeoutMs' | 'network' | 'grading'> & { runtime: SandboxRuntime; images: InstanceImages },
): Promise<InstanceOutcome> {
  const started = Date.now();
  const runsDir = options.runsDir ?? 'runs';
  const instanceId = instance.instance_id;
  const logDir = instanceLogDir(runsDir, options.runId, instanceId);
  const reportPath = path.join(logDir, LOG_REPORT);
  const existing = await readJsonIfExists<InstanceReport>(reportPath).catch(() => undefined);
  if (existing?.[instanceId]) {
    return { instanceId, completed: true, resolved: existing[instanceId].resolved, reused: true, durationMs: Date.now() - started };
  }
  await fs.mkdir(logDir, { recursive: true });
  const log = new InstanceLog(path.join(logDir, LOG_INSTANCE));
  const timeoutMs = options.timeoutMs ?? 1_800_000;
  const timings = { imageMs: 0, containerMs: 0, evalMs: 0 };
  const network = options.network ?? 'none';
  const grading = options.grading ?? DEFAULT_GRADING_RULES;
  let image: InstanceImage | undefined;
  try {
    const imageStarted = Date.now();
    const spec = makeInstanceSpec(instance);
    let instanceImage = await options.images.instanceImage(spec, (line) => log.info(line));
    image = instanceImage;
    timings.imageMs = Date.now() - imageStarted;
    const parser = logParserFor(spec.spec, instance.instance_id);
    const containerStarted = Date.now();
    const inSandbox = <T>(fn: (sandbox: Sandbox) => Promise<T>): Promise<T> =>
      options.runtime.withSandbox(
        { image: instanceImage.image, runId: options.runId, namePrefix: `locfix-eval-${instanceId}`, workdir: DOCKER_WORKDIR, network },
        fn,
      );
    const onMissingImage = async (err: unknown): Promise<undefined> => {
      // removed by another process on this engine since the lookup: get it (rebuilt) once more
      if (!isMissingImageError(err)) throw err;
      log.info(`image ${instanceImage.image} was removed before the container started; looking it up again`);
      instanceImage = await options.images.instanceImage(spec, (line) => log.info(line));
      image = instanceImage;
      return undefined;
    };
    const evaluateIn = async (sandbox: Sandbox) => {
      log.info(`Container for ${instanceId} started: ${sandbox.id} (image ${instanceImage.image}, ${instanceImage.source}, network ${network})`);
      const patch = prediction.model_patch ?? '';
      await writeFileAtomic(path.join(logDir, 'patch.diff'), patch);
      await sandbox.copyFiles([{ path: DOCKER_PATCH, content: patch }]);
      const applied = await applyModelPatch(sandbox, log);
      if (!applied.applied) throw new EvaluationError(instanceId, `${APPLY_PATCH_FAIL}:\n${applied.output}`, ERROR_KINDS.patchApplyFailed);

      const before = await sandbox.exec('git -c core.fileMode=false diff', { workdir: DOCKER_WORKDIR });
      log.info(`Git diff before:\n${before.output.trim()}`);
      const official = instanceImage.source === 'official';
      const script = spec.evalScript({ prelude: instanceImage.prelude, runInstall: official, official });
      await writeFileAtomic(path.join(logDir, 'eval.sh'), script);
      await sandbox.copyFiles([{ path: '/eval.sh', content: script, mode: 0o755 }]);
      log.info(`Eval script for ${instanceId} written to ${path.join(logDir, 'eval.sh')}; copied to container`);

      const evalStarted = Date.now();
      // The container has no network: pip (the harness' install step re-run in official images) should fail
      // at once instead of retrying unreachable indexes; the image's own install stays in place.
      // pytest's own report of the run, at a path chosen now (no patch can know it), read after the script
      const junit =
        grading.unforgeable && JUNIT_REPORT_PARSERS.has(spec.spec.logParser) ? `/tmp/locfix-junit-${randomBytes(8).toString('hex')}.xml` : undefined;
      const env = { PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', ...(junit ? { PYTEST_ADDOPTS: `--junitxml=${junit}` } : {}) };
      const result = await sandbox.exec('/bin/bash /eval.sh', { timeoutMs, env });
      timings.evalMs = Date.now() - evalStarted;
      log.info(`Test runtime: ${(timings.evalMs / 1000).toFixed(2)} seconds`);
      let testOutput = result.output;
      if (result.timedOut) testOutput += `\n\nTimeout error: ${timeoutMs / 1000} seconds exceeded.`;
      await writeFileAtomic(path.join(logDir, LOG_TEST_OUTPUT), testOutput);
      if (result.timedOut) throw new EvaluationError(instanceId, `Test timed out after ${timeoutMs / 1000} seconds.`, ERROR_KINDS.timeout);
      // tests that could not run say nothing about the patch: an evaluation error, not "unresolved"
      const cannotRun = diagnoseTestRun(testOutput, statusMapFromLog(testOutput, parser, grading).statusMap, instance, {
        networkOff: network === 'none',
        patchedFiles: patchedFiles(prediction.model_patch ?? ''),
        patchStopsToo: true,
      });
      const after = await sandbox.exec('git -c core.fileMode=false diff', { workdir: DOCKER_WORKDIR });
      log.info(`Git diff after:\n${after.output.trim()}`);
      if (after.output.trim() !== before.output.trim()) log.info('Git diff changed after running eval script');

      const runnerReport = junit ? await readRunnerReport(sandbox, junit, path.join(logDir, RUNNER_REPORT)) : undefined;
      log.info(`Grading answer for ${instanceId}...${runnerReport ? ` (cross-checked with pytest's JUnit report: ${runnerReport.size} tests)` : ''}`);
      const graded = evalReport(instanceId, prediction.model_patch, testOutput, instance, parser, grading, runnerReport);
      if (applied.command) graded[instanceId].patch_apply_command = applied.command;
      graded[instanceId].network = network;
      return { graded, cannotRun, script, testOutput };
    };
    const ran = (await inSandbox(evaluateIn).catch(onMissingImage)) ?? (await inSandbox(evaluateIn));
    timings.containerMs = Date.now() - containerStarted;
    if (ran.cannotRun) {
      // The environment's fault, or the patch's? The gold patch's run in the same image decides; it gets a
      // sandbox of its own once the model's is released (taking one inside it could wait on itself).
      const cannotRun = ran.cannotRun;
      const { blame, baseline } = await blameCannotRun(cannotRun, { model: prediction.model_patch ?? '', gold: instance.patch }, () =>
        goldBaseline({
          instance,
          image: instanceImage.image,
          script: ran.script,
          parser,
          timeoutMs,
          networkOff: network === 'none',
          inSandbox: (fn) =>
            options.runtime.withSandbox(
              { image: instanceImage.image, runId: options.runId, namePrefix: `locfix-gold-${instanceId}`, workdir: DOCKER_WORKDIR, network },
              fn,
            ),
          apply: (sandbox) => applyModelPatch(sandbox, undefined),
          recordFile: path.join(logDir, 'gold_baseline.json'),
        }),
      );
      const why = baseline && !baseline.runs ? `; the gold patch's tests cannot run here either (${baseline.reason})` : '';
      if (blame === 'environment')
        throw new EvaluationError(instanceId, `cannot run the tests (${cannotRun.kind}): ${cannotRun.reason}${why}`, cannotRunKind(cannotRun.kind));
      log.info(
        `the tests could not run with this patch (${cannotRun.kind}: ${cannotRun.reason}), but they run with the gold patch in the same image: the patch's failure, graded as the harness grades it`,
      );
    }
    const report = ran.graded;
    const resolved = report[instanceId].resolved;
    log.info(`report: ${JSON.stringify(report)}\nResult for ${instanceId}: resolved: ${resolved}`);
    await writeJsonAtomic(reportPath, report);
    await fs.rm(path.join(logDir, LOG_EVALUATION_ERROR), { force: true });
    const patchApplyCommand = report[instanceId].patch_apply_command;
    // as the harness' run report labels them: the test output and the instance log of what did not resolve
    const infraFailure = resolved ? undefined : classifyInfraFailure(`${ran.testOutput}\n${log.text()}`);
    return {
      instanceId,
      completed: true,
      resolved,
      reused: false,
      durationMs: Date.now() - started,
      timings,
      ...(patchApplyCommand ? { patchApplyCommand } : {}),
      ...(infraFailure ? { infraFailure } : {}),
    };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error(
      err instanceof EvaluationError ? message : `Error in evaluating model for ${instanceId}: ${err instanceof Error ? (err.stack ?? message) : message}`,
    );
    const errorKind = err instanceof EvaluationError ? err.kind : undefined;
    const reason = message.split('\n')[0];
    const testOutput = await fs.readFile(path.join(logDir, LOG_TEST_OUTPUT), 'utf8').catch(() => '');
    const infraFailure = classifyInfraFailure(`${testOutput}\n${log.text()}`);
    await writeJsonAtomic(path.join(logDir, LOG_EVALUATION_ERROR), { kind: errorKind ?? 'error', reason, ...(infraFailure ? { infraFailure } : {}) }).catch(
      () => undefined,
    );
    return {
      instanceId,
      completed: false,
      resolved: false,
      reused: false,
      error: reason,
      ...(errorKind ? { errorKind } : {}),
      ...(infraFailure ? { infraFailure } : {}),
      durationMs: Date.now() - started,
      timings,
    };
  } finally {
    // the cache policy decides whether the instance image stays (default: it goes, as in the harness)
    if (image) await options.images.release?.(image).catch((err: unknown) => log.error(`removing ${image?.image} failed: ${String(err)}`));
    await log.flush().catch(() => undefined);
  }
}

/** The harness' make_run_report over the reports on disk. */
