/**
 * Published localization runs as locfix runs, so that policies (a cascade, a comparison) can be measured
 * against runs nobody here can afford to repeat. Each reader turns one published format into rows of ranked
 * files; `writeImportedRun` writes them as file-localization artifacts with the selection that `eval-loc`,
 * `compare`, the calibration report and `bench:cascade` read. Nothing is guessed: a row that names an unknown
 * instance, has the wrong shape, or points at an instance whose issue text differs is reported and skipped.
 *
 * Formats, as their repositories write them:
 * - **blagent** (afifaniks/BLAgent `results/`): a JSON array; `swe_data_index` is the row's position in the
 *   Hub's test split, which is sorted by instance id; `problem_statement` (checked against the dataset),
 *   `ranked_scores` (Phase 1, 0–10), `ranked_files` (Phase 1 order), `final_reranked_files` (Phase 2: plain
 *   paths, or `{path: [functions]}` objects), `retrieved_files_t0` / `_t1` / `_base`, `token_usage`
 *   (`prompt_tokens`, `output_tokens`). The RAG baselines (`results/rq1-2/`) have `rag_ranked_files` (the
 *   model's answer over the retrieved chunks) and `retrieved_files` (the embedding retrieval).
 * - **locagent** (gersteinlab/LocAgent `loc_outputs.jsonl`): `instance_id`, `found_files`, `found_modules`,
 *   `found_entities`, each a flat list, or one list per sample in an unmerged run (merged here by reciprocal
 *   rank, as LocAgent merges them).
 * - **agentless** (OpenAutoCoder/Agentless `loc_outputs.jsonl`): `instance_id`, `found_files`.
 * - **predictions** (SWE-bench): `instance_id`, `model_patch` (JSON array or JSONL); the files the patch
 *   edits, in patch order, are the localization.
 */
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { agreementWith, scoreSignals, signals, type ConfidenceSignals } from '../../src/artifacts/confidence.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { goldPaths } from '../../src/dataset/gold.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { recordStageRun } from '../../src/run/manifest.ts';
import { STAGE } from '../../src/run/stage.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { writeSelection } from '../stage.ts';

export const PUBLISHED_FORMATS = ['blagent', 'locagent', 'agentless', 'predictions'] as const;
export type PublishedFormat = (typeof PUBLISHED_FORMATS)[number];

export interface PublishedRow {
  instanceId: string;
  /** 1-based position of the row in the file (the line of a JSONL file, the element of a JSON array) */
  row?: number;
  files: string[];
  functions?: Array<{ path: string; name: string }>;
  confidence?: ConfidenceSignals;
  /** tokens where the file recorded them (calls are not recorded by any of these formats) */
  tokens?: { promptTokens: number; completionTokens: number };
  details?: Record<string, unknown>;
}

export interface ImportProblem {
  /** 1-based position of the row in the file (the line of a JSONL file, the element of a JSON array), as the
   * dataset loader numbers rows */
  row: number;
  instanceId?: string;
  reason: string;
}

export interface ParsedRun {
  rows: PublishedRow[];
  problems: ImportProblem[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringList = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
const sameIssue = (a: string, b: string): boolean => a.replace(/\r\n/g, '\n').trim() === b.replace(/\r\n/g, '\n').trim();

/** Rows of a JSON array or a JSONL file; a line that is not JSON is a problem, not a crash. */
export function readRows(text: string): { rows: Array<{ row: number; value: unknown }>; problems: ImportProblem[] } {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    try {
      const array = JSON.parse(trimmed) as unknown[];
      return { rows: array.map((value, index) => ({ row: index + 1, value })), problems: [] };
    } catch (err) {
      return { rows: [], problems: [{ row: 1, reason: `not a JSON array: ${(err as Error).message}` }] };
    }
  }
  const rows: Array<{ row: number; value: unknown }> = [];
  const problems: ImportProblem[] = [];
  trimmed.split('\n').forEach((line, index) => {
    const row = index + 1;
    if (!line.trim()) return;
    try {
      rows.push({ row, value: JSON.parse(line) });
    } catch {
      problems.push({ row, reason: 'line is not JSON' });
    }
  });
  return { rows, problems };
}

/** Paths of BLAgent's `final_reranked_files`: plain strings, or `{path: [functions]}` objects. */
function blagentFinal(value: unknown): { files: string[]; functions: Array<{ path: string; name: string }> } | undefined {
  if (!Array.isArray(value)) return undefined;
  const files: string[] = [];
  const functions: Array<{ path: string; name: string }> = [];
  for (const item of value) {
    if (typeof item === 'string') files.push(item);
    else if (isObject(item) && Object.keys(item).length === 1) {
      const [path, names] = Object.entries(item)[0]!;
      files.push(path);
      for (const name of stringList(names) ?? []) functions.push({ path, name });
    } else return undefined;
  }
  return { files, functions };
}

/** The keys a BLAgent row's ranking is read from, most final first. */
const BLAGENT_FILE_KEYS = ['final_reranked_files', 'ranked_files', 'rag_ranked_files', 'retrieved_files_t0', 'retrieved_files_base', 'retrieved_files'];

/** BLAgent's result arrays; `hubOrder` is the dataset sorted by instance id (the Hub's test-split order). */
export function parseBlagentResults(text: string, dataset: readonly SweInstance[]): ParsedRun {
  const hubOrder = [...dataset].sort((a, b) => (a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0));
  const { rows, problems } = readRows(text);
  const out: PublishedRow[] = [];
  for (const { row, value } of rows) {
    if (!isObject(value) || !Number.isInteger(value.swe_data_index)) {
      problems.push({ row, reason: 'no integer swe_data_index' });
      continue;
    }
    const index = value.swe_data_index as number;
    const instance = hubOrder[index];
    if (!instance) {
      problems.push({ row, reason: `swe_data_index ${index} is outside the dataset's ${hubOrder.length} rows` });
      continue;
    }
    if (typeof value.problem_statement === 'string' && !sameIssue(value.problem_statement, instance.problem_statement)) {
      problems.push({
        row,
        instanceId: instance.instance_id,
        reason: `swe_data_index ${index} is ${instance.instance_id}, whose issue text differs from the row's`,
      });
      continue;
    }
    const final = blagentFinal(value.final_reranked_files);
    const phase1 = stringList(value.ranked_files);
    const rag = stringList(value.rag_ranked_files);
    const retrieval = stringList(value.retrieved_files_t0) ?? stringList(value.retrieved_files_base) ?? stringList(value.retrieved_files);
    const stage = final?.files.length ? 'phase2' : phase1?.length ? 'phase1' : rag?.length ? 'rag' : retrieval?.length ? 'retrieval' : undefined;
    if (!stage) {
      problems.push({ row, instanceId: instance.instance_id, reason: `no non-empty list of paths under any of ${BLAGENT_FILE_KEYS.join(', ')}` });
      continue;
    }
    const files = stage === 'phase2' ? final!.files : stage === 'phase1' ? phase1! : stage === 'rag' ? rag! : retrieval!;
    const scores = isObject(value.ranked_scores)
      ? Object.values(value.ranked_scores)
          .filter((s): s is number => typeof s === 'number')
          .sort((a, b) => b - a)
      : [];
    const t1 = stringList(value.retrieved_files_t1);
    const stages = [retrieval, rag, phase1, final?.files].filter((l): l is string[] => !!l?.length);
    const usage = isObject(value.token_usage) ? value.token_usage : undefined;
    out.push({
      instanceId: instance.instance_id,
      row,
      files,
      ...(final?.functions.length ? { functions: final.functions } : {}),
      confidence: signals({
        ...scoreSignals(scores.slice(0, 2)),
        'stage-agreement': stages.length > 1 ? agreementWith(files[0], stages) : undefined,
        'query-agreement': retrieval && t1 ? agreementWith(files[0], [retrieval, t1]) : undefined,
      }),
      ...(usage && typeof usage.prompt_tokens === 'number'
        ? { tokens: { promptTokens: usage.prompt_tokens, completionTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0 } }
        : {}),
      details: { swe_data_index: index, stage },
    });
  }
  return { rows: out, problems };
}

/** Reciprocal-rank merge of per-sample lists (k = 60), ties in first-seen order. */
function mergeSamples(samples: ReadonlyArray<readonly string[]>): string[] {
  const score = new Map<string, number>();
  for (const list of samples) list.forEach((item, i) => score.set(item, (score.get(item) ?? 0) + 1 / (60 + i + 1)));
  return [...score.entries()].sort((a, b) => b[1] - a[1]).map(([item]) => item);
}

/** `found_files` (flat or per sample) and the entities of a LocAgent or Agentless record. */
function foundFiles(value: Json): { files: string[]; samples: string[][] } | undefined {
  const flat = stringList(value.found_files);
  if (flat) return { files: flat, samples: [flat] };
  if (Array.isArray(value.found_files) && value.found_files.every((s) => stringList(s))) {
    const samples = value.found_files as string[][];
    return { files: mergeSamples(samples), samples };
  }
  return undefined;
}

/** The rows of a file of per-instance records (`instance_id` on each); rows without one are problems. */
function recordsWithId(text: string): { records: Array<{ row: number; value: Json & { instance_id: string } }>; problems: ImportProblem[] } {
  const { rows, problems } = readRows(text);
  const records: Array<{ row: number; value: Json & { instance_id: string } }> = [];
  for (const { row, value } of rows) {
    if (isObject(value) && typeof value.instance_id === 'string' && value.instance_id) records.push({ row, value: value as Json & { instance_id: string } });
    else problems.push({ row, reason: 'no instance_id' });
  }
  return { records, problems };
}

export function parseLocOutputs(text: string, format: 'locagent' | 'agentless'): ParsedRun {
  const { records, problems } = recordsWithId(text);
  const out: PublishedRow[] = [];
  for (const { row, value } of records) {
    const found = foundFiles(value);
    if (!found) {
      problems.push({ row, instanceId: value.instance_id, reason: 'found_files is neither a list of paths nor one list per sample' });
      continue;
    }
    const entities = Array.isArray(value.found_entities) ? value.found_entities.flat().filter((e): e is string => typeof e === 'string') : [];
    const functions = [...new Set(entities)].flatMap((e) => {
      const at = e.indexOf(':');
      return at > 0 ? [{ path: e.slice(0, at), name: e.slice(at + 1) }] : [];
    });
    out.push({
      instanceId: value.instance_id,
      row,
      files: found.files,
      ...(format === 'locagent' && functions.length ? { functions } : {}),
      confidence: signals({ 'sample-agreement': found.samples.length > 1 ? agreementWith(found.files[0], found.samples) : undefined }),
      details: { samples: found.samples.length },
    });
  }
  return { rows: out, problems };
}

export function parsePredictions(text: string): ParsedRun {
  const { records, problems } = recordsWithId(text);
  const out: PublishedRow[] = [];
  for (const { row, value } of records) {
    const patch = value.model_patch;
    if (patch !== null && patch !== undefined && typeof patch !== 'string') {
      problems.push({ row, instanceId: value.instance_id, reason: 'model_patch is not a string' });
      continue;
    }
    let files: string[];
    try {
      files = patch ? goldPaths(patch) : [];
    } catch (err) {
      problems.push({ row, instanceId: value.instance_id, reason: `model_patch does not parse: ${(err as Error).message}` });
      continue;
    }
    out.push({ instanceId: value.instance_id, row, files, details: { model: value.model_name_or_path ?? null } });
  }
  return { rows: out, problems };
}

export function parsePublishedRun(format: PublishedFormat, text: string, dataset: readonly SweInstance[]): ParsedRun {
  if (format === 'blagent') return parseBlagentResults(text, dataset);
  if (format === 'predictions') return parsePredictions(text);
  return parseLocOutputs(text, format);
}

export interface ImportReport {
  format: PublishedFormat;
  source: string;
  label: string;
  imported: number;
  /** dataset instances the file has no row for */
  missing: string[];
  problems: ImportProblem[];
}

/**
 * Writes the rows that name instances of `dataset` as `localize-files` artifacts of a run folder, with the
 * selection (every dataset instance, so a missing row scores as a miss) and `import-report.json`.
 */
export async function writeImportedRun(
  runDir: string,
  parsed: ParsedRun,
  dataset: readonly SweInstance[],
  meta: { format: PublishedFormat; source: string; label: string; datasetName: string },
): Promise<ImportReport> {
  const layout = new RunLayout(runDir);
  const known = new Map(dataset.map((i) => [i.instance_id, i]));
  const problems = [...parsed.problems];
  const seen = new Set<string>();
  for (const [i, row] of parsed.rows.entries()) {
    const instance = known.get(row.instanceId);
    if (!instance) {
      problems.push({ row: row.row ?? i + 1, instanceId: row.instanceId, reason: 'not an instance of the dataset' });
      continue;
    }
    if (seen.has(row.instanceId)) {
      problems.push({ row: row.row ?? i + 1, instanceId: row.instanceId, reason: 'a second row for this instance (the first was kept)' });
      continue;
    }
    seen.add(row.instanceId);
    const output: FileLocalization = {
      localizer: meta.label,
      files: row.files.map((path, rank) => ({ path, score: row.files.length - rank })),
      trace: [{ type: 'note', step: 'import', message: `imported from ${meta.format} ${meta.source}` }],
      usage: { promptTokens: row.tokens?.promptTokens ?? 0, completionTokens: row.tokens?.completionTokens ?? 0, cost: 0, calls: 0 },
      timingsMs: {},
      ...(row.functions ? { functions: row.functions } : {}),
      ...(row.confidence && Object.keys(row.confidence).length ? { confidence: row.confidence } : {}),
      details: { imported: { format: meta.format, source: meta.source, tokensRecorded: !!row.tokens }, ...row.details },
    };
    const now = new Date().toISOString();
    const artifact: StageArtifact<FileLocalization> = {
      stage: STAGE.files,
      instanceId: row.instanceId,
      status: 'ok',
      startedAt: now,
      finishedAt: now,
      durationMs: 0,
      attempt: 1,
      output,
    };
    await writeJsonAtomic(layout.artifactPath(STAGE.files, row.instanceId), artifact);
  }
  const settings = { localizer: meta.label, imported: { format: meta.format, source: meta.source } };
  await writeSelection(runDir, STAGE.files, meta.datasetName, dataset, settings);
  await recordStageRun(layout, {
    kind: 'imported',
    stage: STAGE.files,
    localizer: meta.label,
    models: {},
    dataset: meta.datasetName,
    instances: dataset,
    settings,
  });
  const report: ImportReport = {
    format: meta.format,
    source: meta.source,
    label: meta.label,
    imported: seen.size,
    missing: dataset.filter((i) => !seen.has(i.instance_id)).map((i) => i.instance_id),
    problems,
  };
  await writeJsonAtomic(`${layout.root}/import-report.json`, report);
  return report;
}
