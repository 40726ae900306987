/**
 * The harness' run summary (reporting.make_run_report): every instance of the dataset counted once as completed
 * (resolved or unresolved), empty-patch, error (no readable report) or incomplete (no prediction), with 5.0's
 * advisory infrastructure labels of the unresolved and errored ones.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { LOG_INSTANCE, LOG_REPORT, LOG_TEST_OUTPUT } from '../src/harness/constants.ts';
import { evaluationDir, instanceLogDir, isEmptyPatch } from './evaluate.ts';
import type { GradingRules } from './grading-rules.ts';
import { resolveDatasetAlias } from '../src/dataset/load.ts';
import { splitTaskRepoSource } from '../src/dataset/task-repo.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import type { InstanceReport } from './grading.ts';
import { classifyInfraFailure } from './infra-failure.ts';
import type { Prediction } from './predictions.ts';

export interface RunSummary {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  completed_ids: string[];
  incomplete_ids: string[];
  empty_patch_ids: string[];
  submitted_ids: string[];
  resolved_ids: string[];
  unresolved_ids: string[];
  error_ids: string[];
  /** harness 5.0 (#586): unresolved or errored instances whose logs show an environment fault, or an ambiguous
   * one (a missing module, no tests collected, a timeout), with the reason; advisory, every denominator as before */
  infra_failure_instances: number;
  ambiguous_failure_instances: number;
  infra_failure_ids: string[];
  ambiguous_failure_ids: string[];
  failure_reasons: Record<string, string>;
  schema_version: 2;
}

/** What an evaluation graded against (harness 5.0's logs/run_evaluation/<run_id>/run.json), with the rules. */
export interface RunMetadata {
  dataset: string;
  split: string;
  task_repo: string | null;
  /** locfix's addition: the grading rules (harness release, unforgeable rule) */
  grading: GradingRules;
  created_at: string;
}

export const LOG_RUN_METADATA = 'run.json';

/**
 * Records what the run graded against in its evaluation folder, so a later regrade needs not be told the dataset
 * again: a Hub name's split (`name:split`, default test), or a task repository (`DIR` or `DIR#NAME`).
 */
export async function writeRunMetadata(runsDir: string, runId: string, datasetSource: string, grading: GradingRules): Promise<string> {
  const { dir, dataset } = splitTaskRepoSource(datasetSource);
  const taskRepo = (await fs.stat(dir).catch(() => undefined))?.isDirectory() ? path.resolve(dir) : null;
  const [name, ...rest] = resolveDatasetAlias(datasetSource).split(':');
  const metadata: RunMetadata = {
    dataset: taskRepo ? (dataset ?? path.basename(dir)) : name!,
    split: taskRepo ? 'test' : (rest.at(-1) ?? 'test'),
    task_repo: taskRepo,
    grading,
    created_at: new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00'),
  };
  const file = path.join(evaluationDir(runsDir, runId), LOG_RUN_METADATA);
  await writeJsonAtomic(file, metadata);
  return file;
}

/** The harness' classify_logs over an instance's test output and run log, for each of `ids`. */
async function classifyFailures(runsDir: string, runId: string, ids: readonly string[]) {
  const environment: string[] = [];
  const ambiguous: string[] = [];
  const reasons: Record<string, string> = {};
  for (const id of ids) {
    const dir = instanceLogDir(runsDir, runId, id);
    const texts = await Promise.all([LOG_TEST_OUTPUT, LOG_INSTANCE].map((name) => fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined)));
    const found = classifyInfraFailure(texts.filter((t): t is string => t !== undefined).join('\n'));
    if (!found) continue;
    reasons[id] = found.reason;
    (found.tier === 'environment' ? environment : ambiguous).push(id);
  }
  return { environment, ambiguous, reasons };
}

export async function makeRunSummary(runsDir: string, runId: string, dataset: readonly SweInstance[], predictions: readonly Prediction[]): Promise<RunSummary> {
  const byId = new Map(predictions.map((p) => [p.instance_id, p]));
  const completed: string[] = [];
  const resolved: string[] = [];
  const unresolved: string[] = [];
  const errors: string[] = [];
  const incomplete: string[] = [];
  const empty: string[] = [];
  for (const instance of dataset) {
    const id = instance.instance_id;
    const prediction = byId.get(id);
    if (!prediction) {
      incomplete.push(id);
      continue;
    }
    if (isEmptyPatch(prediction)) {
      empty.push(id);
      continue;
    }
    const reportFile = path.join(instanceLogDir(runsDir, runId, id), LOG_REPORT);
    let text: string | undefined;
    try {
      text = (await fs.readFile(reportFile, 'utf8')).trim();
    } catch {
      errors.push(id);
      continue;
    }
    completed.push(id);
    try {
      const report = JSON.parse(text) as InstanceReport;
      if (report[id].resolved) resolved.push(id);
      else unresolved.push(id);
    } catch {
      errors.push(id);
    }
  }
  const sorted = (ids: string[]) => [...ids].sort();
  const infra = await classifyFailures(runsDir, runId, [...unresolved, ...errors]);
  // the harness' keys in the harness' order
  return {
    total_instances: dataset.length,
    submitted_instances: predictions.length,
    completed_instances: completed.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    infra_failure_instances: infra.environment.length,
    ambiguous_failure_instances: infra.ambiguous.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    completed_ids: sorted(completed),
    incomplete_ids: sorted(incomplete),
    empty_patch_ids: sorted(empty),
    submitted_ids: sorted(predictions.map((p) => p.instance_id)),
    resolved_ids: sorted(resolved),
    unresolved_ids: sorted(unresolved),
    infra_failure_ids: sorted(infra.environment),
    ambiguous_failure_ids: sorted(infra.ambiguous),
    failure_reasons: Object.fromEntries(Object.entries(infra.reasons).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    error_ids: sorted(errors),
    schema_version: 2,
  };
}
