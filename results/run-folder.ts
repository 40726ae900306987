/**
 * The one reader of run folders. Every command that reads per-instance results (`analyze`, `compare`,
 * `report`, `eval-loc`, `calibrate`, `merge`) opens a folder through `openRunFolder`, so each accepts any kind:
 *
 * - **pipeline**: made by `locfix run` (manifest.json with the run's configuration, instances.jsonl);
 * - **stage**: made by a stage command (`localize`, `retrieve`, `localize-functions`, …): `<stage>.selection.json`;
 * - **imported**: made by `locfix import-run` from a published run;
 * - **merged**: made by `locfix merge` from shards or runs of disjoint instances.
 *
 * What it gives: the run's **arm** (run-arm.ts: what produced it, and a key that two runs share exactly when they differ by
 * seed alone), its instances with their gold files (and dataset rows where the folder or its dataset file has
 * them), the stages it has, and the stages it left out on purpose with the reason. `stageState` then says of
 * one instance and stage whether it is done, failed (with its kind) or was never reached, and why: work that
 * did not happen is never read as a failure.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadDataset } from '../src/dataset/load.ts';
import { instanceIdProblem, SweInstanceSchema, type SweInstance } from '../src/dataset/schema.ts';
import { assertConfined } from '../src/run/confinement.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { DEFAULT_TOP_FILES } from '../src/artifacts/localization.ts';
import { INSTANCES_FILE, readManifest, type RunManifest } from '../src/run/manifest.ts';
export { INSTANCES_FILE };
import { RunLayout, type StageSelection } from '../src/run/run-layout.ts';
import { CONFIGURATION_KINDS, type StageArtifact } from '../src/run/stage-runner.ts';
import { PIPELINE_STAGES, STAGE } from '../src/run/stage.ts';
import { readJsonIfExists } from '../src/util/fsx.ts';

import { armOf, RETRIEVE_STAGE, type RunArm, type RunFolderKind } from './run-arm.ts';
export { RETRIEVE_STAGE, type RunArm, type RunFolderKind };

export interface RunInstance {
  id: string;
  repo: string;
  goldFiles: string[];
  /** the dataset row (issue, gold patch), when the folder or its dataset file has it */
  row?: SweInstance;
}

export type StageState = { state: 'done' } | { state: 'failed'; kind?: string; message: string } | { state: 'not-reached'; reason: string };

export interface RunFolder {
  dir: string;
  id: string;
  layout: RunLayout;
  kind: RunFolderKind;
  manifest?: RunManifest;
  arm: RunArm;
  instances: RunInstance[];
  /** stage folders this run has (artifacts or a selection), in pipeline order */
  stages: string[];
  /** where file localization is read: localize-files, or retrieve for `locfix retrieve` runs */
  fileStage?: string;
  /** stages left out of the run on purpose, with the reason (--stop-after, no Docker, a stage-only folder) */
  leftOut: Record<string, string>;
  /** files handed to repair */
  topFiles: number;
  handoff?: string;
}

/** `owner__name-123` → `owner/name` (SWE-bench's instance id format), for folders without dataset rows. */
export function repoFromInstanceId(id: string): string {
  const m = /^(.+?)__(.+)-\d+$/.exec(id);
  return m ? `${m[1]}/${m[2]}` : 'unknown';
}

/** The rows of instances.jsonl; a line that is not a dataset row (a hand edit, a truncated file) is named. */
async function readRows(file: string): Promise<SweInstance[]> {
  const text = await readFile(file, 'utf8');
  const rows: SweInstance[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new Error(`${file}:${index + 1}: not JSON (${(err as Error).message})`);
    }
    const parsed = SweInstanceSchema.safeParse(value);
    if (!parsed.success)
      throw new Error(`${file}:${index + 1}: not a dataset row (${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')})`);
    rows.push(parsed.data);
  }
  return rows;
}

/** The selection files of a folder, by stage name, in pipeline order (retrieve stands where localize-files does). */
async function readSelections(layout: RunLayout): Promise<Map<string, StageSelection>> {
  const order = [STAGE.files, RETRIEVE_STAGE, ...PIPELINE_STAGES.slice(1)];
  const out = new Map<string, StageSelection>();
  for (const stage of order) {
    const selection = await readJsonIfExists<StageSelection>(layout.selectionPath(stage)).catch((err: Error) => {
      throw new Error(`${layout.selectionPath(stage)}: unreadable (${err.message})`);
    });
    if (!selection) continue;
    if (!Array.isArray(selection.instances)) throw new Error(`${layout.selectionPath(stage)}: "instances" must be a list`);
    // an id names files and folders: one from a file is checked before it can name a path outside the folder
    for (const id of selection.instances) {
      const problem = instanceIdProblem(id);
      if (problem) throw new Error(`${layout.selectionPath(stage)}: instance id ${JSON.stringify(id).slice(0, 120)} is not a valid id (${problem})`);
    }
    out.set(stage, selection);
  }
  return out;
}

async function stageFolders(layout: RunLayout, selections: Map<string, StageSelection>): Promise<string[]> {
  const present = new Set(selections.keys());
  for (const entry of await readdir(layout.root, { withFileTypes: true })) if (entry.isDirectory()) present.add(entry.name);
  return [STAGE.files, RETRIEVE_STAGE, ...PIPELINE_STAGES.slice(1)].filter((s) => present.has(s));
}

/** The stages a pipeline run left out on purpose, and why. */
function pipelineLeftOut(manifest: RunManifest): Record<string, string> {
  if (manifest.plan) return { ...manifest.plan.leftOut };
  const config = manifest.config as { stopAfter?: string; evaluation?: { enabled?: boolean }; validation?: { regression?: boolean; reproduction?: boolean } };
  const leftOut: Record<string, string> = {};
  if (config.validation && !config.validation.regression && !config.validation.reproduction)
    leftOut[STAGE.validate] = 'validation turned off in the configuration';
  if (config.evaluation?.enabled === false) leftOut[STAGE.evaluate] = 'evaluation turned off in the configuration';
  const stop = config.stopAfter ? PIPELINE_STAGES.indexOf(config.stopAfter as (typeof PIPELINE_STAGES)[number]) : -1;
  if (stop >= 0) for (const s of PIPELINE_STAGES.slice(stop + 1)) leftOut[s] ??= `the run stopped after ${config.stopAfter} (--stop-after)`;
  return leftOut;
}

/** Dataset rows for a folder without instances.jsonl: from its selection's dataset, when that is a readable file. */
async function rowsFromDataset(dir: string, dataset: string | undefined): Promise<Map<string, SweInstance>> {
  if (!dataset) return new Map();
  const file = [path.resolve(dataset), path.resolve(dir, dataset)].find((f) => existsSync(f));
  if (!file) return new Map();
  try {
    return new Map((await loadDataset(file)).instances.map((i) => [i.instance_id, i]));
  } catch {
    return new Map(); // gold files still come from the selection; the analysis says what it could not judge
  }
}

function goldOf(row: SweInstance | undefined, selections: Map<string, StageSelection>, id: string): string[] {
  for (const s of selections.values()) if (s.gold?.[id]?.length) return s.gold[id];
  try {
    return row?.patch ? goldPaths(row.patch) : [];
  } catch {
    return [];
  }
}

export async function openRunFolder(dir: string): Promise<RunFolder> {
  const root = path.resolve(dir);
  if (!existsSync(root)) throw new Error(`${dir}: no such run folder`);
  // a folder someone hands you is data: no link in it may lead a reader outside (src/run/confinement.ts)
  await assertConfined(root);
  const layout = new RunLayout(root);
  const manifest = await readManifest(layout);
  const selections = await readSelections(layout);
  const hasRows = existsSync(layout.file(INSTANCES_FILE));
  const firstSettings = [...selections.values()][0]?.settings as { imported?: unknown } | undefined;
  const kind: RunFolderKind = manifest?.mergedFrom
    ? 'merged'
    : manifest && manifest.kind !== 'stage' && manifest.kind !== 'imported' && hasRows
      ? 'pipeline'
      : firstSettings?.imported || manifest?.kind === 'imported'
        ? 'imported'
        : 'stage';
  if (!hasRows && selections.size === 0) {
    throw new Error(
      `${dir} is not a locfix run folder: it has neither ${INSTANCES_FILE} (locfix run, merge) nor a <stage>.selection.json (stage commands, import-run)`,
    );
  }
  const stages = await stageFolders(layout, selections);
  let rows: Map<string, SweInstance>;
  let ids: string[];
  if (hasRows) {
    const list = await readRows(layout.file(INSTANCES_FILE));
    rows = new Map(list.map((i) => [i.instance_id, i]));
    ids = list.map((i) => i.instance_id);
  } else {
    ids = [...new Set([...selections.values()].flatMap((s) => s.instances))];
    rows = await rowsFromDataset(root, [...selections.values()][0]?.dataset);
  }
  const instances = ids.map((id) => {
    const row = rows.get(id);
    return { id, repo: row?.repo ?? repoFromInstanceId(id), goldFiles: goldOf(row, selections, id), ...(row ? { row } : {}) };
  });
  // a merged folder is of the kind its parts were: shards of a `locfix run`, or of stage commands
  const pipelineLike = kind === 'pipeline' || (kind === 'merged' && manifest?.kind !== 'stage' && manifest?.kind !== 'imported');
  const leftOut: Record<string, string> = pipelineLike && manifest ? pipelineLeftOut(manifest) : stageFolderLeftOut(kind, stages);
  const settings = (manifest?.settings ?? [...selections.values()][0]?.settings ?? {}) as { topFiles?: unknown; handoff?: unknown };
  const config = (manifest?.config ?? {}) as { topFiles?: unknown; handoff?: unknown };
  const topFiles = typeof config.topFiles === 'number' ? config.topFiles : typeof settings.topFiles === 'number' ? settings.topFiles : DEFAULT_TOP_FILES;
  const handoff = typeof config.handoff === 'string' ? config.handoff : typeof settings.handoff === 'string' ? settings.handoff : undefined;
  return {
    dir: root,
    id: layout.id,
    layout,
    kind,
    ...(manifest ? { manifest } : {}),
    arm: await armOf(kind, manifest, selections),
    instances,
    stages,
    fileStage: stages.find((s) => s === STAGE.files || s === RETRIEVE_STAGE),
    leftOut,
    topFiles,
    ...(handoff ? { handoff } : {}),
  };
}

/** A folder made by stage commands or an import: every pipeline stage after its last one is not part of it. */
function stageFolderLeftOut(kind: RunFolderKind, stages: readonly string[]): Record<string, string> {
  const pipeline = stages.map((s) => (s === RETRIEVE_STAGE ? STAGE.files : s));
  const last = Math.max(...pipeline.map((s) => PIPELINE_STAGES.indexOf(s as (typeof PIPELINE_STAGES)[number])));
  const why = kind === 'imported' ? 'an imported run holds file localization only' : `this folder holds the stages ${stages.join(', ')} only`;
  return Object.fromEntries(PIPELINE_STAGES.slice(last + 1).map((s) => [s, why]));
}

export { CONFIGURATION_KINDS };

/**
 * One instance's state in one stage: done, failed (with the error's kind), or not reached, with the reason
 * (the run left the stage out, an earlier stage stopped the instance, or the run has not got there yet).
 */
export function stageState(folder: RunFolder, stage: string, artifact: StageArtifact<unknown> | undefined): StageState {
  if (artifact?.status === 'ok') return { state: 'done' };
  if (artifact?.status === 'error')
    return { state: 'failed', ...(artifact.error?.kind ? { kind: artifact.error.kind } : {}), message: artifact.error?.message ?? 'error' };
  const reason =
    folder.leftOut[stage] ??
    (folder.kind === 'imported'
      ? 'the imported file has no usable row for this instance (import-report.json says why)'
      : `${stage} has not run for this instance (the run was stopped before it, or is still running)`);
  return { state: 'not-reached', reason };
}
