/**
 * One instance evaluated as the harness' run_instance does it (layout and files: ./evaluate.ts), in steps:
 * look the instance image up, run the evaluation script on the patch in a fresh sandbox and grade its log
 * (`runEvalScript`), decide whose fault tests that could not run are (`settleCannotRun`: the gold patch's run
 * in the same image decides), and record either the report or why there is none (`failedOutcome`).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { DOCKER_PATCH, DOCKER_WORKDIR, APPLY_PATCH_FAIL, LOG_INSTANCE, LOG_REPORT, LOG_TEST_OUTPUT } from '../src/harness/constants.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import type { InstanceSpec } from '../src/harness/instance-spec.ts';
import { isMissingImageError, type InstanceImage, type InstanceImages, type NetworkMode, type Sandbox, type SandboxRuntime } from '../src/sandbox/types.ts';
import { cannotRunKind, ERROR_KINDS } from '../src/util/error-kinds.ts';
import { KindedError } from '../src/run/kinded-error.ts';
import { readJsonIfExists, writeFileAtomic, writeJsonAtomic } from '../src/util/fsx.ts';
import {
  applyModelPatch,
  EvaluationError,
  type EvaluationOptions,
  instanceLogDir,
  type InstanceOutcome,
  AS_SUBMITTED_DIR,
  LOG_EVALUATION_ERROR,
  readBaseFiles,
  RUNNER_REPORT,
} from './evaluate.ts';
import { blameCannotRun, goldBaseline } from './gold-baseline.ts';
import { evalReport, statusMapFromLog, type InstanceReport, type InstanceReportEntry } from './grading.ts';
import { auditPatch } from './runner-audit.ts';
import { DEFAULT_GRADING_RULES, type GradingRules, machineryPolicy } from './grading-rules.ts';
import { type MachineryEdit, mixedManifests, separateTestMachinery } from './test-machinery.ts';
import { classifyInfraFailure } from './infra-failure.ts';
import { type BoundLogParser, JUNIT_REPORT_PARSERS, logParserFor } from './log-parsers/index.ts';
import type { Prediction } from './predictions.ts';
import { type CannotRun, diagnoseTestRun, patchedFiles } from './run-diagnosis.ts';
import { parseJunitXml, type ReportOutcome } from './structured-report.ts';

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

/** The runner's report in the sandbox, parsed (and kept at `keep`); undefined when it wrote none. */
async function readRunnerReport(sandbox: Sandbox, file: string, keep: string): Promise<Map<string, ReportOutcome> | 'missing'> {
  const read = await sandbox.exec(['cat', file], { timeoutMs: 60_000 }).catch(() => undefined);
  // asked for and not there: pytest never got to write it (ended early by the tested code, or killed)
  if (read === undefined || read.exitCode !== 0) return 'missing';
  await writeFileAtomic(keep, read.output);
  return parseJunitXml(read.output) ?? 'missing';
}

export type EvaluateInstanceOptions = Pick<EvaluationOptions, 'runId' | 'runsDir' | 'timeoutMs' | 'network' | 'grading' | 'runEmptyPatches'> & {
  runtime: SandboxRuntime;
  images: InstanceImages;
};

/** What every step of one instance's evaluation shares. */
interface InstanceEvaluation {
  instance: SweInstance;
  prediction: Prediction;
  options: EvaluateInstanceOptions;
  spec: InstanceSpec;
  parser: BoundLogParser;
  logDir: string;
  log: InstanceLog;
  timeoutMs: number;
  network: NetworkMode;
  grading: GradingRules;
  timings: { imageMs: number; containerMs: number; evalMs: number };
  /** the instance image in use (looked up again if another process removed it) */
  image: InstanceImage;
}

/** What the evaluation script's run in the sandbox gave. */
interface ScriptRun {
  graded: InstanceReport;
  cannotRun: CannotRun | undefined;
  script: string;
  testOutput: string;
}

export async function evaluateInstance(instance: SweInstance, prediction: Prediction, options: EvaluateInstanceOptions): Promise<InstanceOutcome> {
  const started = Date.now();
  const instanceId = instance.instance_id;
  const logDir = instanceLogDir(options.runsDir ?? 'runs', options.runId, instanceId);
  const reportPath = path.join(logDir, LOG_REPORT);
  const existing = await readJsonIfExists<InstanceReport>(reportPath).catch(() => undefined);
  if (existing?.[instanceId]) {
    return { instanceId, completed: true, resolved: existing[instanceId].resolved, reused: true, durationMs: Date.now() - started };
  }
  await fs.mkdir(logDir, { recursive: true });
  const log = new InstanceLog(path.join(logDir, LOG_INSTANCE));
  const timings = { imageMs: 0, containerMs: 0, evalMs: 0 };
  let image: InstanceImage | undefined;
  let run: InstanceEvaluation | undefined;
  try {
    const imageStarted = Date.now();
    const spec = makeInstanceSpec(instance);
    image = await options.images.instanceImage(spec, (line) => log.info(line));
    timings.imageMs = Date.now() - imageStarted;
    run = {
      ...{ instance, prediction, options, spec, logDir, log, timings, image },
      parser: logParserFor(spec.spec, instanceId),
      timeoutMs: options.timeoutMs ?? 1_800_000,
      network: options.network ?? 'none',
      grading: options.grading ?? DEFAULT_GRADING_RULES,
    };
    const evaluation = run;
    const containerStarted = Date.now();
    const evaluate = () => inSandbox(evaluation, 'eval', (sandbox) => runEvalScript(evaluation, sandbox));
    const ran = (await evaluate().catch((err) => lookUpAgain(evaluation, err))) ?? (await evaluate().catch(missingTwice));
    timings.containerMs = Date.now() - containerStarted;
    if (ran.cannotRun) await settleCannotRun(evaluation, ran, ran.cannotRun);
    if (restoredMachinery(ran.graded[instanceId]!)) ran.graded[instanceId]!.as_submitted = await verdictAsSubmitted(evaluation);
    return await recordReport(evaluation, ran, reportPath, started);
  } catch (err) {
    return await failedOutcome(instanceId, err, log, logDir, timings, started);
  } finally {
    // the cache policy decides whether the instance image stays (default: it goes, as in the harness); the image
    // in use is the one looked up again if the first was removed meanwhile
    const used = run?.image ?? image;
    if (used) await options.images.release?.(used).catch((err: unknown) => log.error(`removing ${used.image} failed: ${String(err)}`));
    await log.flush().catch(() => undefined);
  }
}

function inSandbox<T>(run: InstanceEvaluation, purpose: 'eval' | 'gold', fn: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const { options, network } = run;
  const namePrefix = `locfix-${purpose}-${run.instance.instance_id}`;
  return options.runtime.withSandbox({ image: run.image.image, runId: options.runId, namePrefix, workdir: DOCKER_WORKDIR, network }, fn);
}

/** The image was removed by another process on this engine since the lookup: get it (rebuilt) once more. */
async function lookUpAgain(run: InstanceEvaluation, err: unknown): Promise<undefined> {
  if (!isMissingImageError(err)) throw err;
  run.log.info(`image ${run.image.image} was removed before the container started; looking it up again`);
  run.image = await run.options.images.instanceImage(run.spec, (line) => run.log.info(line));
  return undefined;
}

/** The image went missing again after it was looked up anew: the machine's failure, never the patch's. */
function missingTwice(err: unknown): never {
  if (!isMissingImageError(err)) throw err;
  throw new KindedError(ERROR_KINDS.imageMissing, `the instance image is missing again right after it was looked up: ${(err as Error).message}`);
}

/** The runner audit of the evaluated patch (runner-audit.ts) in the report: its hits, and a resolve they flag. */
function recordAudit(entry: InstanceReportEntry, patch: string, log: InstanceLog): void {
  const hits = auditPatch(patch);
  if (hits.length === 0) return;
  entry.runner_audit = hits;
  if (entry.resolved) entry.resolved_flagged = true;
  log.info(`Runner audit: ${hits.length} line(s) of the patch talk past the test runner: ${hits.map((h) => `${h.path}:${h.line} (${h.rule})`).join(', ')}`);
}

/** Whether the evaluation left test machinery of the patch out (restore): then its verdict as submitted is wanted too. */
function restoredMachinery(entry: InstanceReportEntry): boolean {
  return (entry.test_machinery ?? []).some((edit) => edit.action !== 'kept');
}

/**
 * The verdict of the patch as submitted, its test machinery applied (`keep`), in a sandbox of its own with its logs
 * under `as_submitted/`: reported beside the verdict, so a user sees what the machinery changes would have won.
 */
async function verdictAsSubmitted(run: InstanceEvaluation): Promise<NonNullable<InstanceReportEntry['as_submitted']>> {
  const logDir = path.join(run.logDir, AS_SUBMITTED_DIR);
  await fs.mkdir(logDir, { recursive: true });
  const asSubmitted: InstanceEvaluation = { ...run, logDir, grading: { ...run.grading, testMachinery: 'keep' }, timings: { ...run.timings } };
  run.log.info(`Evaluating the patch as submitted, its test machinery applied (logs in ${logDir})`);
  try {
    const ran = await inSandbox(asSubmitted, 'eval', (sandbox) => runEvalScript(asSubmitted, sandbox));
    const entry = ran.graded[run.instance.instance_id]!;
    await writeJsonAtomic(path.join(logDir, LOG_REPORT), ran.graded);
    return { resolved: entry.resolved, ...(entry.not_graded_reason ? { not_graded_reason: entry.not_graded_reason } : {}) };
  } catch (err) {
    return { resolved: false, error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}

/** A patch that changes test machinery under --test-machinery refuse: not run, not graded, with what it changes. */
function refusedForMachinery(run: InstanceEvaluation, edits: MachineryEdit[]): ScriptRun {
  const id = run.instance.instance_id;
  const graded = evalReport(id, run.prediction.model_patch, '', run.instance, run.parser, run.grading);
  graded[id]!.not_graded_reason = `the patch changes test machinery (${edits.map((e) => e.path).join(', ')}); refused (--test-machinery refuse)`;
  graded[id]!.test_machinery = edits;
  return { graded, cannotRun: undefined, script: '', testOutput: '' };
}

/** Applies the patch, runs the evaluation script, and grades its log (cross-checked with pytest's own report). */
async function runEvalScript(run: InstanceEvaluation, sandbox: Sandbox): Promise<ScriptRun> {
  const { instance, log, logDir, network, grading, timeoutMs } = run;
  const instanceId = instance.instance_id;
  log.info(`Container for ${instanceId} started: ${sandbox.id} (image ${run.image.image}, ${run.image.source}, network ${network})`);
  const original = run.prediction.model_patch ?? '';
  await writeFileAtomic(path.join(logDir, 'patch.diff'), original);
  // the patch's test machinery stays at the base commit (or the instance is refused): test-machinery.ts
  const policy = machineryPolicy(grading);
  // mixed manifests' base text, for their test sections; the harness' own grading applies the patch as written
  const bases = grading.unforgeable ? await readBaseFiles(sandbox, instance.base_commit, mixedManifests(original)) : new Map<string, string | undefined>();
  const { patch, edits } = separateTestMachinery(original, policy === 'refuse' ? 'keep' : policy, bases);
  if (edits.length) log.info(`Test machinery in the patch (${policy}): ${edits.map((e) => `${e.path} ${e.action}`).join(', ')}`);
  if (policy === 'refuse' && edits.length) return refusedForMachinery(run, edits);
  if (patch !== original) await writeFileAtomic(path.join(logDir, 'patch.evaluated.diff'), patch);
  await sandbox.copyFiles([{ path: DOCKER_PATCH, content: patch }]);
  // a patch of nothing but test machinery, or the gate's empty patch, leaves nothing to apply: the tests run on the base commit
  const nothingToApply = patch.trim() === '' && (edits.length > 0 || run.options.runEmptyPatches === true);
  const applied = nothingToApply ? { applied: true, output: '', command: undefined } : await applyModelPatch(sandbox, log);
  if (!applied.applied) throw new EvaluationError(instanceId, `${APPLY_PATCH_FAIL}:\n${applied.output}`, ERROR_KINDS.patchApplyFailed);

  const before = await sandbox.exec('git -c core.fileMode=false diff', { workdir: DOCKER_WORKDIR });
  log.info(`Git diff before:\n${before.output.trim()}`);
  const official = run.image.source === 'official';
  const script = run.spec.evalScript({ prelude: run.image.prelude, runInstall: official, official });
  await writeFileAtomic(path.join(logDir, 'eval.sh'), script);
  await sandbox.copyFiles([{ path: '/eval.sh', content: script, mode: 0o755 }]);
  log.info(`Eval script for ${instanceId} written to ${path.join(logDir, 'eval.sh')}; copied to container`);

  const evalStarted = Date.now();
  // pytest's own report of the run, at a path chosen now (no patch can know it), read after the script
  const junit =
    grading.unforgeable && JUNIT_REPORT_PARSERS.has(run.spec.spec.logParser) ? `/tmp/locfix-junit-${randomBytes(8).toString('hex')}.xml` : undefined;
  // The container has no network: pip (the harness' install step re-run in official images) should fail
  // at once instead of retrying unreachable indexes; the image's own install stays in place.
  const env = { PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1', ...(junit ? { PYTEST_ADDOPTS: `--junitxml=${junit}` } : {}) };
  const result = await sandbox.exec('/bin/bash /eval.sh', { timeoutMs, env });
  run.timings.evalMs = Date.now() - evalStarted;
  log.info(`Test runtime: ${(run.timings.evalMs / 1000).toFixed(2)} seconds`);
  let testOutput = result.output;
  if (result.timedOut) testOutput += `\n\nTimeout error: ${timeoutMs / 1000} seconds exceeded.`;
  await writeFileAtomic(path.join(logDir, LOG_TEST_OUTPUT), testOutput);
  if (result.timedOut) throw new EvaluationError(instanceId, `Test timed out after ${timeoutMs / 1000} seconds.`, ERROR_KINDS.timeout);
  // tests that could not run say nothing about the patch: an evaluation error, not "unresolved"
  const cannotRun = diagnoseTestRun(testOutput, statusMapFromLog(testOutput, run.parser, grading).statusMap, instance, {
    networkOff: network === 'none',
    patchedFiles: patchedFiles(patch),
    patchStopsToo: true,
  });
  const after = await sandbox.exec('git -c core.fileMode=false diff', { workdir: DOCKER_WORKDIR });
  log.info(`Git diff after:\n${after.output.trim()}`);
  if (after.output.trim() !== before.output.trim()) log.info('Git diff changed after running eval script');

  const runnerReport = junit ? await readRunnerReport(sandbox, junit, path.join(logDir, RUNNER_REPORT)) : undefined;
  const crossCheck =
    runnerReport === 'missing'
      ? " (pytest's JUnit report was asked for and not written)"
      : runnerReport
        ? ` (cross-checked with pytest's JUnit report: ${runnerReport.size} tests)`
        : '';
  log.info(`Grading answer for ${instanceId}...${crossCheck}`);
  const graded = evalReport(instanceId, run.prediction.model_patch, testOutput, instance, run.parser, grading, runnerReport);
  if (applied.command) graded[instanceId].patch_apply_command = applied.command;
  if (edits.length) graded[instanceId].test_machinery = edits;
  recordAudit(graded[instanceId]!, patch, log);
  graded[instanceId].network = network;
  return { graded, cannotRun, script, testOutput };
}

/**
 * The tests could not run: the environment's fault, or the patch's? The gold patch's run in the same image
 * decides; it gets a sandbox of its own once the model's is released (taking one inside it could wait on
 * itself). The environment's fault is an evaluation error; the patch's is graded as the harness grades it.
 */
async function settleCannotRun(run: InstanceEvaluation, ran: ScriptRun, cannotRun: CannotRun): Promise<void> {
  const { instance, log, logDir } = run;
  const { blame, baseline } = await blameCannotRun(cannotRun, { model: run.prediction.model_patch ?? '', gold: instance.patch }, () =>
    goldBaseline({
      instance,
      image: run.image.image,
      script: ran.script,
      parser: run.parser,
      timeoutMs: run.timeoutMs,
      networkOff: run.network === 'none',
      inSandbox: (fn) => inSandbox(run, 'gold', fn),
      apply: (sandbox) => applyModelPatch(sandbox, undefined),
      recordFile: path.join(logDir, 'gold_baseline.json'),
    }),
  );
  const why = baseline && !baseline.runs ? `; the gold patch's tests cannot run here either (${baseline.reason})` : '';
  if (blame === 'environment') {
    throw new EvaluationError(instance.instance_id, `cannot run the tests (${cannotRun.kind}): ${cannotRun.reason}${why}`, cannotRunKind(cannotRun.kind));
  }
  log.info(
    `the tests could not run with this patch (${cannotRun.kind}: ${cannotRun.reason}), but they run with the gold patch in the same image: the patch's failure, graded as the harness grades it`,
  );
}

/** report.json written (a former evaluation error removed), and the outcome it gives. */
async function recordReport(run: InstanceEvaluation, ran: ScriptRun, reportPath: string, started: number): Promise<InstanceOutcome> {
  const instanceId = run.instance.instance_id;
  const report = ran.graded;
  const resolved = report[instanceId].resolved;
  run.log.info(`report: ${JSON.stringify(report)}\nResult for ${instanceId}: resolved: ${resolved}`);
  await writeJsonAtomic(reportPath, report);
  await fs.rm(path.join(run.logDir, LOG_EVALUATION_ERROR), { force: true });
  const patchApplyCommand = report[instanceId].patch_apply_command;
  // as the harness' run report labels them: the test output and the instance log of what did not resolve
  const infraFailure = resolved ? undefined : classifyInfraFailure(`${ran.testOutput}\n${run.log.text()}`);
  return {
    instanceId,
    completed: true,
    resolved,
    reused: false,
    durationMs: Date.now() - started,
    timings: run.timings,
    ...(patchApplyCommand ? { patchApplyCommand } : {}),
    ...(infraFailure ? { infraFailure } : {}),
    ...(report[instanceId].resolved_flagged ? { flagged: true } : {}),
    ...(report[instanceId].as_submitted && report[instanceId].as_submitted.resolved !== resolved
      ? { resolvedAsSubmitted: report[instanceId].as_submitted.resolved }
      : {}),
  };
}

/** No report: why (evaluation_error.json, {kind, reason}), with the harness' infrastructure label if the logs show one. */
async function failedOutcome(
  instanceId: string,
  err: unknown,
  log: InstanceLog,
  logDir: string,
  timings: InstanceEvaluation['timings'],
  started: number,
): Promise<InstanceOutcome> {
  const message = err instanceof Error ? err.message : String(err);
  log.error(
    err instanceof EvaluationError ? message : `Error in evaluating model for ${instanceId}: ${err instanceof Error ? (err.stack ?? message) : message}`,
  );
  // an EvaluationError's kind, or a KindedError's (an image that cannot be had): never a kind a library set
  const errorKind = err instanceof EvaluationError || err instanceof KindedError ? err.kind : undefined;
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
}
