/**
 * The run manifest (runs/<id>/manifest.json): what produced a run — config, locfix version, git revision,
 * models, seeds, and start/end times of every invocation (a resumed run has several).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { readFile } from 'node:fs/promises';
import type { SweInstance } from '../dataset/schema.ts';
import { readJsonIfExists, writeJsonAtomic, writeJsonlAtomic } from '../util/fsx.ts';
import { currentManifest, MANIFEST_FORMAT } from '../util/legacy.ts';
import type { RunLayout } from './run-layout.ts';

export interface Invocation {
  startedAt: string;
  finishedAt?: string;
  argv: string[];
  /** counts per stage at the end of the invocation */
  stages?: Record<string, { ok: number; failed: number; reused: number }>;
}

export interface RunManifest {
  /** the manifest's format (util/legacy.ts MANIFEST_FORMAT); older formats are read as today's on reading */
  format: number;
  runId: string;
  locfixVersion: string;
  gitRevision?: string;
  node: string;
  host: { platform: string; cpus: number; memoryGiB: number };
  config: Record<string, unknown>;
  models: { llm?: string; embedder: string };
  seed: number;
  localizer: string;
  instances: string[];
  /** the settings that decide what the artifacts contain (config.ts artifactSettings); absent in older runs */
  settings?: Record<string, unknown>;
  createdAt: string;
  invocations: Invocation[];
  /** what kind of command made the folder (absent: `locfix run`, or an older folder; results/run-folder.ts tells) */
  kind?: 'pipeline' | 'stage' | 'imported';
  /** the dataset the selection came from, when the config does not say (stage folders) */
  dataset?: string;
  /** the stages the run runs, and those it leaves out on purpose with the reason (--stop-after, no Docker) */
  plan?: RunPlan;
  /** a merged folder: the folders it was joined from */
  mergedFrom?: string[];
}

export interface RunPlan {
  stages: string[];
  leftOut: Record<string, string>;
}

export function locfixVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export function gitRevision(): string | undefined {
  try {
    const cwd = new URL('../..', import.meta.url).pathname;
    const rev = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return dirty ? `${rev}+dirty` : rev;
  } catch {
    return undefined; // not a git checkout (installed from npm)
  }
}

/** runs/<id>/instances.jsonl: the dataset rows of the run's instances (issue text, gold patch), read by the analysis. */
export const INSTANCES_FILE = 'instances.jsonl';

/** Adds rows to instances.jsonl (a stage command's selection joins those of the folder's earlier commands). */
export async function addRunInstances(layout: RunLayout, rows: readonly SweInstance[]): Promise<void> {
  const file = layout.file(INSTANCES_FILE);
  const byId = new Map<string, unknown>();
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  for (const line of text.split('\n')) if (line.trim()) byId.set((JSON.parse(line) as { instance_id: string }).instance_id, JSON.parse(line));
  for (const row of rows) byId.set(row.instance_id, row);
  await writeJsonlAtomic(file, [...byId.values()]);
}

/** Creates the manifest on the first invocation, appends an invocation on resumes; returns it. */
export async function openManifest(
  layout: RunLayout,
  init: Omit<RunManifest, 'format' | 'locfixVersion' | 'gitRevision' | 'node' | 'host' | 'createdAt' | 'invocations'>,
): Promise<RunManifest> {
  const existing = await readManifest(layout);
  const invocation: Invocation = { startedAt: new Date().toISOString(), argv: process.argv.slice(2) };
  const manifest: RunManifest = existing
    ? { ...existing, ...(init.plan ? { plan: init.plan } : {}), invocations: [...existing.invocations, invocation] }
    : {
        format: MANIFEST_FORMAT,
        ...init,
        locfixVersion: locfixVersion(),
        gitRevision: gitRevision(),
        node: process.version,
        host: { platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
        createdAt: invocation.startedAt,
        invocations: [invocation],
      };
  await writeJsonAtomic(layout.manifestPath, manifest);
  return manifest;
}

export async function closeInvocation(layout: RunLayout, stages: Invocation['stages']): Promise<void> {
  const manifest = await readManifest(layout);
  if (!manifest) return;
  const last = manifest.invocations.at(-1);
  if (last) {
    last.finishedAt = new Date().toISOString();
    last.stages = stages;
  }
  await writeJsonAtomic(layout.manifestPath, manifest);
}

/** The manifest of a run folder in today's format (an older one read as today's), or undefined when the run is new. */
export async function readManifest(layout: RunLayout): Promise<RunManifest | undefined> {
  const stored = await readJsonIfExists<unknown>(layout.manifestPath);
  return stored === undefined ? undefined : (currentManifest(stored, layout.manifestPath) as unknown as RunManifest);
}

/**
 * The manifest of a folder made by stage commands or an import (`kind` stage or imported): what each stage
 * was made with (`settings[stage]`), so that the analysis commands know the run's arm, and the instances
 * selected. A stage command run into a `locfix run` folder leaves that run's manifest as it is.
 */
export async function recordStageRun(
  layout: RunLayout,
  record: {
    kind: 'stage' | 'imported';
    stage: string;
    localizer?: string;
    models: { llm?: string; embedder?: string };
    dataset: string;
    /** the selected rows: their ids go into the manifest, the rows (issue, gold patch) into instances.jsonl */
    instances: readonly SweInstance[];
    /** what decides the stage's artifacts: localizer and its resolved options, the stage's own settings */
    settings: Record<string, unknown>;
    /** where the stage read repositories (mirrorsDir, cacheDir): the analysis reads base files from the same place */
    config?: Record<string, unknown>;
  },
): Promise<void> {
  const existing = await readManifest(layout);
  if (existing && existing.kind !== 'stage' && existing.kind !== 'imported') return;
  await addRunInstances(layout, record.instances);
  const invocation: Invocation = { startedAt: new Date().toISOString(), argv: process.argv.slice(2) };
  const settings = { ...(existing?.settings ?? {}), [record.stage]: record.settings };
  const stages = [...new Set([...(existing?.plan?.stages ?? []), record.stage])];
  const manifest: RunManifest = {
    format: MANIFEST_FORMAT,
    runId: layout.id,
    locfixVersion: existing?.locfixVersion ?? locfixVersion(),
    ...(existing?.gitRevision || !existing ? { gitRevision: existing?.gitRevision ?? gitRevision() } : {}),
    node: existing?.node ?? process.version,
    host: existing?.host ?? { platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, memoryGiB: Math.round(os.totalmem() / 2 ** 30) },
    config: { ...(record.config ?? {}), ...(existing?.config ?? {}) },
    models: { ...(existing?.models ?? {}), ...Object.fromEntries(Object.entries(record.models).filter(([, v]) => v !== undefined)) } as RunManifest['models'],
    seed: existing?.seed ?? 0,
    localizer: record.localizer ?? existing?.localizer ?? 'unknown',
    instances: [...new Set([...(existing?.instances ?? []), ...record.instances.map((i) => i.instance_id)])],
    settings,
    kind: record.kind,
    dataset: existing?.dataset ?? record.dataset,
    plan: { stages, leftOut: existing?.plan?.leftOut ?? {} },
    createdAt: existing?.createdAt ?? invocation.startedAt,
    invocations: [...(existing?.invocations ?? []), invocation],
  };
  await writeJsonAtomic(layout.manifestPath, manifest);
}
