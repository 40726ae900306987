/**
 * Agentless' `loc_outputs.jsonl` (agentless/fl/localize.py): one JSON object per instance with
 * `instance_id`, `found_files`, `additional_artifact_loc_file`, `file_traj`, `found_related_locs`,
 * `additional_artifact_loc_related`, `related_loc_traj`, `found_edit_locs`,
 * `additional_artifact_loc_edit_location`, `edit_loc_traj`.
 *
 * Shapes as Agentless writes them: `found_related_locs` is `{file: ["loc\nloc…"]}` (one joined string per
 * file); `found_edit_locs` is a list with one such object per sample when sampled (`--num_samples 4`), a
 * single object otherwise or after `--merge`.
 *
 * Export turns a locfix run (localize-files / localize-functions / localize-lines artifacts) into these
 * records — e.g. BLAgent's files as `--start_file` for the original Agentless; import turns records into
 * locfix artifacts, resolving Agentless' locations against the base commit so that repair can use them.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { EditLocationSet } from '../../repair/types.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readArtifact, type StageArtifact } from '../../src/run/stage-runner.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../../src/util/fsx.ts';
import type { EditLocationsOutput, EditLocationSample } from '../hierarchy/edit-locations.ts';
import { loadSources } from '../hierarchy/files.ts';
import { mergeRanges, resolveLocations } from '../hierarchy/locations.ts';
import { toCodeElements, type RelatedElementsOutput } from '../hierarchy/related-elements.ts';
import { STAGE } from '../../src/run/stage.ts';
import type { FileLocalization, TraceEvent } from '../../src/artifacts/localization.ts';

/** `{file: [strings]}` as Agentless writes location maps. */
export type AgentlessLocMap = Record<string, string[]>;

export interface AgentlessLocRecord {
  instance_id: string;
  found_files: string[];
  additional_artifact_loc_file: unknown;
  file_traj: unknown;
  found_related_locs: AgentlessLocMap;
  additional_artifact_loc_related: unknown;
  related_loc_traj: unknown;
  found_edit_locs: AgentlessLocMap | AgentlessLocMap[];
  additional_artifact_loc_edit_location: unknown;
  edit_loc_traj: unknown;
}

const locMap = z.record(z.string(), z.union([z.array(z.string()), z.string()]));
const recordSchema = z.looseObject({
  instance_id: z.string().min(1),
  found_files: z.array(z.string()).default([]),
  additional_artifact_loc_file: z.unknown().optional(),
  file_traj: z.unknown().optional(),
  found_related_locs: z.union([locMap, z.array(locMap), z.null()]).optional(),
  additional_artifact_loc_related: z.unknown().optional(),
  related_loc_traj: z.unknown().optional(),
  found_edit_locs: z.union([locMap, z.array(locMap), z.null()]).optional(),
  additional_artifact_loc_edit_location: z.unknown().optional(),
  edit_loc_traj: z.unknown().optional(),
});

/** Location lines of a map value: joined strings are split, blank lines dropped, whitespace trimmed. */
export function locLines(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const parts = typeof value === 'string' ? [value] : value;
  return parts
    .flatMap((p) => p.split('\n'))
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Any location-map shape → file → lines (a list of maps is pooled). */
export function normalizeLocMap(value: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const maps = Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : [];
  for (const m of maps as Array<Record<string, string | string[]>>) {
    for (const [file, v] of Object.entries(m)) (out[file] ??= []).push(...locLines(v));
  }
  return out;
}

/** found_edit_locs → one location map per sample. */
export function editLocSamples(value: unknown): Array<Record<string, string[]>> {
  if (Array.isArray(value)) return value.map((m) => normalizeLocMap(m));
  if (value && typeof value === 'object' && Object.keys(value).length > 0) return [normalizeLocMap(value)];
  return [];
}

/** Agentless' shape of a location map: one newline-joined string per file. */
export function toAgentlessLocMap(locations: Readonly<Record<string, readonly string[]>>): AgentlessLocMap {
  const out: AgentlessLocMap = {};
  for (const [file, lines] of Object.entries(locations)) out[file] = [lines.join('\n')];
  return out;
}

export async function readLocOutputs(file: string): Promise<AgentlessLocRecord[]> {
  const text = await readFile(file, 'utf8');
  const records: AgentlessLocRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw new Error(`${file}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    const parsed = recordSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `${file}:${i + 1}: not an Agentless localization record: ${parsed.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`,
      );
    const r = parsed.data;
    records.push({
      instance_id: r.instance_id,
      found_files: r.found_files,
      additional_artifact_loc_file: r.additional_artifact_loc_file ?? null,
      file_traj: r.file_traj ?? {},
      found_related_locs:
        (Array.isArray(r.found_related_locs)
          ? toAgentlessLocMap(normalizeLocMap(r.found_related_locs))
          : (r.found_related_locs as AgentlessLocMap | null | undefined)) ?? {},
      additional_artifact_loc_related: r.additional_artifact_loc_related ?? null,
      related_loc_traj: r.related_loc_traj ?? [],
      found_edit_locs: (r.found_edit_locs as AgentlessLocMap | AgentlessLocMap[] | null | undefined) ?? {},
      additional_artifact_loc_edit_location: r.additional_artifact_loc_edit_location ?? null,
      edit_loc_traj: r.edit_loc_traj ?? {},
    });
  });
  return records;
}

export async function writeLocOutputs(file: string, records: readonly AgentlessLocRecord[]): Promise<void> {
  await writeJsonlAtomic(file, records);
}

function trajOf(trace: readonly TraceEvent[], steps: (step: string) => boolean): Record<string, unknown> {
  const calls = trace.filter((e): e is Extract<TraceEvent, { type: 'llm' }> => e.type === 'llm' && steps(e.step));
  const last = calls[calls.length - 1];
  if (!last) return {};
  const responses = last.trace.response?.choices.map((c) => c.content) ?? [];
  return {
    prompt: last.trace.request.messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n'),
    response: responses.length === 1 ? responses[0] : responses,
    usage: {
      prompt_tokens: calls.reduce((s, c) => s + (c.trace.response?.usage.promptTokens ?? 0), 0),
      completion_tokens: calls.reduce((s, c) => s + (c.trace.response?.usage.completionTokens ?? 0), 0),
    },
  };
}

export interface ExportSettings {
  fileStage?: string;
  functionStage?: string;
  lineStage?: string;
}

/** The Agentless record of one instance from whatever locfix stages have ok artifacts; undefined without files. */
export async function exportInstance(runDir: string, instanceId: string, settings: ExportSettings = {}): Promise<AgentlessLocRecord | undefined> {
  const layout = new RunLayout(runDir);
  const files = await readArtifact<FileLocalization>(layout, settings.fileStage ?? STAGE.files, instanceId);
  if (files?.status !== 'ok' || !files.output) return undefined;
  const related = await readArtifact<RelatedElementsOutput>(layout, settings.functionStage ?? STAGE.functions, instanceId);
  const lines = await readArtifact<EditLocationsOutput>(layout, settings.lineStage ?? STAGE.lines, instanceId);
  const fileTraj = trajOf(files.output.trace, (s) => s === 'files');
  const record: AgentlessLocRecord = {
    instance_id: instanceId,
    found_files: files.output.files.map((f) => f.path),
    additional_artifact_loc_file: typeof fileTraj.response === 'string' ? { raw_output_files: fileTraj.response } : {},
    file_traj: fileTraj,
    found_related_locs: {},
    additional_artifact_loc_related: null,
    related_loc_traj: [],
    found_edit_locs: {},
    additional_artifact_loc_edit_location: null,
    edit_loc_traj: {},
  };
  if (related?.status === 'ok' && related.output) {
    record.found_related_locs = toAgentlessLocMap(related.output.locations);
    record.additional_artifact_loc_related = [{ raw_output_loc: related.output.rawOutputs[related.output.rawOutputs.length - 1] ?? '' }];
    record.related_loc_traj = related.output.trace.filter((e) => e.type === 'llm').map((e) => trajOf([e], () => true));
  }
  if (lines?.status === 'ok' && lines.output) {
    record.found_edit_locs = lines.output.samples.map((s) => toAgentlessLocMap(s.locations));
    record.additional_artifact_loc_edit_location = [{ raw_output_loc: lines.output.samples.map((s) => s.raw) }];
    record.edit_loc_traj = trajOf(lines.output.trace, (s) => s.startsWith('lines.'));
  }
  return record;
}

export async function exportRun(runDir: string, instanceIds: readonly string[], settings: ExportSettings = {}): Promise<AgentlessLocRecord[]> {
  const out: AgentlessLocRecord[] = [];
  for (const id of instanceIds) {
    const r = await exportInstance(runDir, id, settings);
    if (r) out.push(r);
  }
  return out;
}

function artifact<T>(stage: string, instanceId: string, output: T): StageArtifact<T> {
  const now = new Date().toISOString();
  return { stage, instanceId, status: 'ok', startedAt: now, finishedAt: now, durationMs: 0, attempt: 1, output };
}

const noUsage = () => ({ promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 });

export interface ImportSettings extends ExportSettings {
  /** the `localizer` name written into imported file rankings (default "agentless-import") */
  label?: string;
  /** where the records came from, for the trace */
  source?: string;
}

export interface ImportResult {
  instanceId: string;
  stages: string[];
  unresolved: number;
}

/**
 * Writes locfix artifacts for one Agentless record: the file ranking always, related elements and
 * edit-location sets when the record has them (resolved at the base commit given by `snapshot`).
 */
export async function importRecord(runDir: string, record: AgentlessLocRecord, snapshot: RepoSnapshot, settings: ImportSettings = {}): Promise<ImportResult> {
  const layout = new RunLayout(runDir);
  const id = record.instance_id;
  const note: TraceEvent = { type: 'note', step: 'import', message: `imported from Agentless loc_outputs${settings.source ? ` (${settings.source})` : ''}` };
  const stages: string[] = [];
  let unresolvedCount = 0;
  const fileStage = settings.fileStage ?? STAGE.files;
  const files: FileLocalization = {
    localizer: settings.label ?? 'agentless-import',
    files: record.found_files.map((path, i) => ({ path, score: record.found_files.length - i })),
    trace: [note],
    usage: noUsage(),
    timingsMs: {},
  };
  await writeJsonAtomic(layout.artifactPath(fileStage, id), artifact(fileStage, id, files));
  stages.push(fileStage);

  const related = normalizeLocMap(record.found_related_locs);
  const samples = editLocSamples(record.found_edit_locs);
  const mentioned = [...new Set([...Object.keys(related), ...samples.flatMap((s) => Object.keys(s))])];
  const { sources, missing } = await loadSources(snapshot, mentioned);
  const byPath = new Map(sources.map((s) => [s.path, s]));

  if (Object.keys(related).length > 0) {
    const stage = settings.functionStage ?? STAGE.functions;
    const elements: RelatedElementsOutput['elements'] = [];
    const unresolved: RelatedElementsOutput['unresolved'] = [];
    for (const [path, lines] of Object.entries(related)) {
      const source = byPath.get(path);
      if (!source) {
        unresolved.push(...lines.map((raw) => ({ path, raw, reason: 'file not at the base commit' })));
        continue;
      }
      const r = resolveLocations(source, lines);
      elements.push(...r.resolved);
      unresolved.push(...r.unresolved);
    }
    unresolvedCount += unresolved.length;
    const out: RelatedElementsOutput & { fileLocalizer: string } = {
      fileLocalizer: files.localizer,
      files: Object.keys(related),
      locations: related,
      elements,
      codeElements: toCodeElements(elements),
      unresolved,
      ignored: [],
      attempts: 0,
      rawOutputs: [],
      missingFiles: missing,
      trace: [note],
      usage: noUsage(),
      timingsMs: {},
    };
    await writeJsonAtomic(layout.artifactPath(stage, id), artifact(stage, id, out));
    stages.push(stage);
  }

  if (samples.length > 0) {
    const stage = settings.lineStage ?? STAGE.lines;
    const locationSets: EditLocationSet[] = [];
    const outSamples: EditLocationSample[] = [];
    for (const sample of samples) {
      const set: EditLocationSet = { files: [] };
      const s: EditLocationSample = { raw: '', locations: sample, unresolved: [] };
      for (const [path, lines] of Object.entries(sample)) {
        const source = byPath.get(path);
        if (!source) {
          s.unresolved.push(...lines.map((raw) => ({ path, raw, reason: 'file not at the base commit' })));
          continue;
        }
        const r = resolveLocations(source, lines);
        s.unresolved.push(...r.unresolved);
        if (r.resolved.length) set.files.push({ path, ranges: mergeRanges(r.resolved.map((x) => x.range)), elements: r.resolved.map((x) => x.raw) });
      }
      unresolvedCount += s.unresolved.length;
      locationSets.push(set);
      outSamples.push(s);
    }
    const out: EditLocationsOutput & { fileLocalizer: string; files: string[] } = {
      fileLocalizer: files.localizer,
      files: record.found_files,
      locationSets,
      samples: outSamples,
      context: [],
      attempts: 0,
      missingFiles: missing,
      trace: [note],
      usage: noUsage(),
      timingsMs: {},
    };
    await writeJsonAtomic(layout.artifactPath(stage, id), artifact(stage, id, out));
    stages.push(stage);
  }
  return { instanceId: id, stages, unresolved: unresolvedCount };
}
