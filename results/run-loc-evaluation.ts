/**
 * Localization metrics of any run folder: file-level Top-k (Hit@k), Acc@k and MRR of a stage, and
 * function-level Top-k/MRR. The denominator is every instance the folder selected that reached the stage.
 */
import { readJsonIfExists } from '../src/util/fsx.ts';
import { rankedPathsOf } from '../src/artifacts/localization.ts';
import { RunLayout, type StageSelection } from '../src/run/run-layout.ts';
import { STAGE } from '../src/run/stage.ts';
import { causeOf } from '../src/run/failure-cause.ts';
import { openRunFolder, type RunFolder } from './run-folder.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { modifiedExistingFiles } from '../src/patch.ts';
import { extractDefinitions } from '../src/parsing/definitions.ts';
import { goldElements } from './failure-analysis.ts';
import { functionOutcome, predictedElementsOf } from './function-metrics.ts';
import { computeLocMetrics, metricsSummary, type LocMetrics, type LocMetricsDetail } from './loc-metrics.ts';
import { computeRunnerMetrics, runnerRow, type RunnerMetrics, type RunnerRow } from './runner-metrics.ts';

/**
 * The metrics are over every selected instance with a gold file (issue 52's one denominator, the resolved rate's):
 * one never attempted, or stopped by a cause outside the method, has no ranking and is a miss until rerun — so a
 * server that fails the hard instances cannot raise Top-k. `reached` gives them over the instances that reached the
 * stage, labelled as such.
 */
export interface RunLocEvaluation extends LocMetricsDetail {
  /** the stage scored */
  stage: string;
  missingGold: string[];
  /** selected instances with no artifact in the stage (never attempted): misses in the metrics, listed here */
  notAttempted: string[];
  /** selected instances the stage failed on for a cause outside the method (failure-cause.ts): misses in the
   * metrics, with that cause ("infrastructure: model-unreachable") */
  notReached: Array<{ id: string; cause: string }>;
  /** the metrics over the instances that reached the stage only (its n says how many) */
  reached: LocMetrics;
  runner: RunnerMetrics;
}

/** The cause of an artifact's error when it is not the method's own (the instance was not reached); else undefined. */
function notTheMethods(artifact: unknown): string | undefined {
  const recorded = artifact as { status?: string; error?: { kind?: string; message?: string; details?: Record<string, unknown> } } | undefined;
  if (recorded?.status !== 'error') return undefined;
  const cause = causeOf(recorded.error);
  return cause.class === 'method' ? undefined : `${cause.class}: ${cause.cause}`;
}

/** The stage to score: the one asked for, which the run must have, else the run's file localization. */
/** The stages whose artifacts are localizations: eval-loc scores these and refuses the others. */
export const LOCALIZATION_STAGES: readonly string[] = ['retrieve', STAGE.files, STAGE.functions, STAGE.lines];

function refuseNonLocalization(stage: string): void {
  if (!LOCALIZATION_STAGES.includes(stage)) {
    throw new Error(`"${stage}" is not a localization stage; eval-loc scores ${LOCALIZATION_STAGES.join(', ')} (analyze scores the rest of a run)`);
  }
}

function stageToScore(folder: RunFolder, stage: string | undefined): string {
  if (stage) {
    refuseNonLocalization(stage);
    if (!folder.stages.includes(stage)) throw new Error(`${folder.dir} has no "${stage}" stage; it has ${folder.stages.join(', ') || 'no stage'}`);
    return stage;
  }
  if (!folder.fileStage)
    throw new Error(`${folder.dir} has no file localization (localize-files or retrieve); it has ${folder.stages.join(', ') || 'no stage'}`);
  return folder.fileStage;
}

/**
 * File-level metrics of any run folder. Instances that reached the stage (an artifact, ok or error) are scored,
 * an error of the method's own as a miss; instances never attempted, and those the infrastructure or the
 * configuration stopped, are left out of every denominator and listed.
 */
export async function evaluateRun(runDir: string, stage?: string): Promise<RunLocEvaluation> {
  const folder = await openRunFolder(runDir);
  const scored = stageToScore(folder, stage);
  const selection = await readJsonIfExists<StageSelection>(folder.layout.selectionPath(scored));
  const wanted = selection ? new Set(selection.instances) : undefined;
  const instances = folder.instances.filter((i) => !wanted || wanted.has(i.id));
  const missingGold = instances.filter((i) => !i.goldFiles.length).map((i) => i.id);
  const outcomes = [];
  const rows: RunnerRow[] = [];
  const notAttempted: string[] = [];
  const notReached: Array<{ id: string; cause: string }> = [];
  for (const { id, goldFiles } of instances) {
    let artifact: unknown;
    try {
      artifact = await readJsonIfExists(folder.layout.artifactPath(scored, id));
    } catch (err) {
      throw new Error(`${folder.layout.artifactPath(scored, id)}: unreadable artifact (${(err as Error).message})`);
    }
    rows.push(runnerRow(id, goldFiles, artifact));
    const cause = artifact === undefined ? undefined : notTheMethods(artifact);
    if (artifact === undefined) notAttempted.push(id);
    else if (cause) notReached.push({ id, cause });
    if (!goldFiles.length) continue; // nothing to score against
    // not attempted or not reached: no ranking, a miss in the headline, out of `reached`
    const wasReached = artifact !== undefined && !cause;
    outcomes.push({ instanceId: id, gold: goldFiles, ranking: wasReached ? rankedPathsOf(artifact) : undefined, wasReached });
  }
  return {
    ...computeLocMetrics(outcomes),
    reached: metricsSummary(computeLocMetrics(outcomes.filter((o) => o.wasReached))),
    stage: scored,
    missingGold,
    notAttempted,
    notReached,
    runner: computeRunnerMetrics(rows, folder.topFiles),
  };
}

/**
 * Function-level Top-k/MRR of a run's stage (`functions` of BLAgent's function-level variant, or
 * `codeElements` of localize-functions). Gold elements need the base files, read through `snapshotOf`.
 */
export async function evaluateRunFunctions(
  runDir: string,
  stage: string,
  instances: readonly SweInstance[],
  snapshotOf: (instance: SweInstance) => Promise<RepoSnapshot>,
): Promise<Omit<RunLocEvaluation, 'stage' | 'runner'>> {
  refuseNonLocalization(stage);
  const layout = new RunLayout(runDir);
  // the run's own selection, as at file level: the dataset is where the gold patches come from, not the population
  const folder = await openRunFolder(runDir);
  const manifest = await readJsonIfExists<StageSelection>(layout.selectionPath(stage));
  const inRun = new Set(folder.instances.map((i) => i.id));
  const selected = new Set(manifest ? manifest.instances.filter((id) => inRun.has(id)) : inRun);
  const outcomes = [];
  const missingGold: string[] = [];
  const notAttempted: string[] = [];
  const notReached: Array<{ id: string; cause: string }> = [];
  let withFunctions = 0;
  for (const instance of instances) {
    if (!selected.has(instance.instance_id)) continue;
    const files = modifiedExistingFiles(instance.patch);
    const sources = files.length ? await (await snapshotOf(instance)).readFiles(files) : new Map<string, string>();
    const gold = goldElements(instance.patch, (p) => (sources.has(p) ? extractDefinitions(p, sources.get(p)!) : []));
    const artifact = await readJsonIfExists<{ status?: string; output?: unknown }>(layout.artifactPath(stage, instance.instance_id));
    // never attempted, or stopped outside the method: a miss, as at file level
    const cause = artifact === undefined ? undefined : notTheMethods(artifact);
    if (artifact === undefined) notAttempted.push(instance.instance_id);
    else if (cause) notReached.push({ id: instance.instance_id, cause });
    const wasReached = artifact !== undefined && !cause;
    const predicted = wasReached && artifact?.status === 'ok' ? predictedElementsOf(artifact.output) : undefined;
    if (predicted !== undefined) withFunctions++;
    const outcome = functionOutcome(instance.instance_id, predicted, gold);
    if (outcome) outcomes.push({ ...outcome, wasReached });
    else missingGold.push(instance.instance_id);
  }
  if (withFunctions === 0) {
    throw new Error(
      `${runDir}: stage "${stage}" holds no function-level predictions (no artifact names functions); score localize-functions, or a localizer that names functions (BLAgent's function-level variant, LocAgent)`,
    );
  }
  return {
    ...computeLocMetrics(outcomes),
    reached: metricsSummary(computeLocMetrics(outcomes.filter((o) => o.wasReached))),
    missingGold,
    notAttempted,
    notReached,
  };
}
