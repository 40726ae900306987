/**
 * Whose fault is a test run that could not run? An evaluation error is the environment's: the same tests cannot
 * run whatever the patch. A model patch that removes a name the new tests import, or breaks the ORM so that the
 * test database cannot be set up, stops the run too, but there the harness grades "unresolved", and so must the
 * failure analysis (patch generation, not evaluation).
 *
 * The evidence is a baseline in the same environment: the gold patch, run once per instance and image with the
 * same eval script. When its tests run, the environment can run them, and the model patch's run that could not
 * is the patch's failure. When they do not either, it is an evaluation error. A missing network is always the
 * environment's (the gold patch would fail on it too), and a prediction that is the gold patch needs no baseline.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import { DOCKER_PATCH } from '../src/harness/constants.ts';
import type { Sandbox } from '../src/sandbox/types.ts';
import { readJsonIfExists, writeJsonAtomic } from '../src/util/fsx.ts';
import { statusMapFromLog } from './grading.ts';
import type { LogParser } from './log-parsers/index.ts';
import { diagnoseTestRun, patchedFiles, type CannotRun } from './run-diagnosis.ts';

export interface GoldBaseline {
  /** the gold patch's tests ran in this image */
  runs: boolean;
  /** why they did not, when they did not */
  reason?: string;
}

/**
 * Baselines of this process, by instance and image: the gold run is paid once, whatever the number of predictions.
 * With `recordFile`, the baseline is also kept on disk (the instance's evaluation folder), so a resumed or retried
 * evaluation of the run reads it instead of running the gold patch again, while the image is the same.
 */
const baselines = new Map<string, Promise<GoldBaseline>>();

/** Forgets this process's baselines: the next evaluation reads them from their records (what a new process does). */
export function forgetGoldBaselines(): void {
  baselines.clear();
}

export interface BaselineRun {
  instance: SweInstance;
  image: string;
  script: string;
  parser: LogParser;
  timeoutMs: number;
  networkOff: boolean;
  /** a fresh sandbox of the image, as the evaluation's own */
  inSandbox<T>(fn: (sandbox: Sandbox) => Promise<T>): Promise<T>;
  /** applies the patch copied to DOCKER_PATCH with the harness chain */
  apply(sandbox: Sandbox): Promise<{ applied: boolean; output: string }>;
  /** where the baseline is kept across invocations (read when it names the same image) */
  recordFile?: string;
}

/** The gold patch's run in the image, once per instance and image in this process. */
export function goldBaseline(run: BaselineRun): Promise<GoldBaseline> {
  const key = `${run.instance.instance_id}@${run.image}`;
  let baseline = baselines.get(key);
  if (!baseline) {
    baseline = recordedOrRun(run);
    baselines.set(key, baseline);
    // a baseline that could not be had (the engine failed) is not kept: the next prediction tries again
    baseline.catch(() => baselines.delete(key));
  }
  return baseline;
}

async function recordedOrRun(run: BaselineRun): Promise<GoldBaseline> {
  if (run.recordFile) {
    const recorded = await readJsonIfExists<GoldBaseline & { image?: string }>(run.recordFile).catch(() => undefined);
    if (recorded?.image === run.image && typeof recorded.runs === 'boolean')
      return { runs: recorded.runs, ...(recorded.reason ? { reason: recorded.reason } : {}) };
  }
  const baseline = await runGold(run);
  if (run.recordFile)
    await writeJsonAtomic(run.recordFile, { ...baseline, image: run.image, instanceId: run.instance.instance_id, at: new Date().toISOString() });
  return baseline;
}

async function runGold(run: BaselineRun): Promise<GoldBaseline> {
  return run.inSandbox(async (sandbox) => {
    await sandbox.copyFiles([{ path: DOCKER_PATCH, content: run.instance.patch }]);
    const applied = await run.apply(sandbox);
    if (!applied.applied) return { runs: false, reason: `the gold patch does not apply: ${applied.output.split('\n')[0]}` };
    await sandbox.copyFiles([{ path: '/eval.sh', content: run.script, mode: 0o755 }]);
    const result = await sandbox.exec('/bin/bash /eval.sh', { timeoutMs: run.timeoutMs, env: { PIP_NO_INDEX: '1', PIP_DISABLE_PIP_VERSION_CHECK: '1' } });
    if (result.timedOut) return { runs: false, reason: `the gold patch's tests timed out after ${run.timeoutMs / 1000} s` };
    const cannotRun = diagnoseTestRun(result.output, statusMapFromLog(result.output, run.parser).statusMap, run.instance, {
      networkOff: run.networkOff,
      patchedFiles: patchedFiles(run.instance.patch),
      // the gold patch is right by definition: a stop in the code it changed is the environment's too
      patchStopsToo: true,
    });
    return cannotRun ? { runs: false, reason: `${cannotRun.kind}: ${cannotRun.reason}` } : { runs: true };
  });
}

/**
 * Whether a run that could not run is the environment's fault (an evaluation error) or the patch's (graded as
 * the harness grades it), decided by the gold baseline where the kind of failure does not decide it.
 */
export async function blameCannotRun(
  cannotRun: CannotRun,
  patches: { model: string; gold: string },
  baseline: () => Promise<GoldBaseline>,
): Promise<{ blame: 'environment' | 'patch'; baseline?: GoldBaseline }> {
  if (cannotRun.kind === 'network') return { blame: 'environment' };
  if (!patches.gold.trim() || patches.model.trim() === patches.gold.trim()) return { blame: 'environment' };
  const gold = await baseline();
  return { blame: gold.runs ? 'patch' : 'environment', baseline: gold };
}
