/**
 * Loads SWE-bench instances from a file or a Hub dataset name and validates every row.
 *
 * Sources:
 *   - `*.json`: a JSON list of rows;
 *   - `*.jsonl` / `*.ndjson`: one row a line (blank lines ignored);
 *   - `*.parquet`: every row of the file (Hugging Face exports; hyparquet);
 *   - a folder: every `*.parquet` in it, in name order (e.g. a cached Hub split);
 *   - `owner/name[:split]` or `owner/name:config:split`: a Hugging Face Hub dataset (see hub.ts);
 *   - the harness 5.0 aliases `full`, `verified`, `multilingual`, `multimodal` (optionally `:split`): those Hub datasets;
 *   - a task repository folder (`sweb.yaml`, `tasks/<id>/…`), or `DIR#NAME` for its dataset NAME (task-repo.ts).
 *
 * A bad row becomes a DatasetRowError whose message names the file, the row (the line for JSONL) and the
 * field, e.g. `swe-bench-lite.jsonl line 12: base_commit: expected a git commit hash`. By default good rows
 * are kept and errors reported; `strict` throws on the first one.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { fieldOverLimit, parquetOverBound } from './limits.ts';
import type { z } from 'zod';
import { downloadHubParquet, parseHubDatasetName } from './hub.ts';
import { SweInstanceSchema, type SweInstance } from './schema.ts';
import { isTaskRepo, readTaskRepo, splitTaskRepoSource, type TaskRow } from './task-repo.ts';

export interface DatasetRowError {
  /** file name (base name) the row came from */
  file: string;
  /** 1-based: the line for JSONL, the element for JSON lists, the row for parquet */
  row: number;
  rowKind: 'line' | 'row';
  /** the first offending field, when the problem is a field */
  field?: string;
  instanceId?: string;
  /** full message, e.g. `swe-bench-lite.jsonl line 12: base_commit: expected a git commit hash` */
  message: string;
}

export interface LoadDatasetOptions {
  /** where Hub downloads are cached; default LOCFIX_CACHE_DIR or ~/.cache/locfix */
  cacheDir?: string;
  /** throw on the first bad row instead of reporting it */
  strict?: boolean;
  /** Hub base URL (default LOCFIX_HF_ENDPOINT, HF_ENDPOINT, https://huggingface.co) */
  hubEndpoint?: string;
  fetch?: typeof fetch;
}

export interface LoadedDataset {
  instances: SweInstance[];
  errors: DatasetRowError[];
  /** the local files the rows were read from */
  files: string[];
}

/** A dataset that cannot be read at all (missing file, not a JSON list, unreadable parquet), or a strict-mode row error. */
export class DatasetError extends Error {
  readonly rowError: DatasetRowError | undefined;
  constructor(message: string, options?: { cause?: unknown; rowError?: DatasetRowError }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DatasetError';
    this.rowError = options?.rowError;
  }
}

export function defaultCacheDir(): string {
  return process.env.LOCFIX_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'locfix');
}

interface RawRow {
  file: string;
  row: number;
  rowKind: 'line' | 'row';
  /** how messages name the row, when not "<file> <kind> <row>" (a task folder) */
  label?: string;
  /** parsed value, or the parse failure */
  value?: unknown;
  parseError?: string;
}

/** The harness 5.0 dataset aliases (swebench/cli/_datasets.py); any other name is used as given. */
export const DATASET_ALIASES: Record<string, string> = {
  full: 'SWE-bench/SWE-bench',
  verified: 'SWE-bench/SWE-bench_Verified',
  multilingual: 'SWE-bench/SWE-bench_Multilingual',
  multimodal: 'SWE-bench/SWE-bench_Multimodal',
};

/** `verified` → `SWE-bench/SWE-bench_Verified`, `verified:test` → `SWE-bench/SWE-bench_Verified:test`; others as given. */
export function resolveDatasetAlias(source: string): string {
  const [name, ...rest] = source.trim().split(':');
  const full = DATASET_ALIASES[name!.toLowerCase()];
  return full ? [full, ...rest].join(':') : source;
}

/** Every row of the source, file by file (a task repository's rows as one batch, named by their folders). */
async function sourceRows(source: string, options: LoadDatasetOptions): Promise<{ files: string[]; batches: RawRow[][] }> {
  const { dir } = splitTaskRepoSource(source);
  if ((await fs.stat(dir).catch(() => undefined))?.isDirectory() && (await isTaskRepo(dir))) {
    const rows = (await readTaskRepo(source).catch((err: Error) => {
      throw new DatasetError(`dataset ${source}: ${err.message}`, { cause: err });
    })) as TaskRow[];
    const batch = rows.map((r, index): RawRow => ({ file: r.where, row: index + 1, rowKind: 'row', label: r.where, value: r.value, parseError: r.error }));
    return { files: [dir], batches: [batch] };
  }
  const files = await resolveSource(resolveDatasetAlias(source), options);
  const batches: RawRow[][] = [];
  for (const file of files) batches.push(await readRows(file));
  return { files, batches };
}

export async function loadDataset(source: string, options: LoadDatasetOptions = {}): Promise<LoadedDataset> {
  const { files, batches } = await sourceRows(source, options);
  const instances: SweInstance[] = [];
  const errors: DatasetRowError[] = [];
  const seen = new Map<string, string>(); // instance_id -> where it was first seen

  const report = (error: DatasetRowError): void => {
    if (options.strict) throw new DatasetError(error.message, { rowError: error });
    errors.push(error);
  };

  for (const batch of batches) {
    for (const raw of batch) {
      const where = raw.label ?? `${raw.file} ${raw.rowKind} ${raw.row}`;
      const base = { file: raw.file, row: raw.row, rowKind: raw.rowKind };
      if (raw.parseError !== undefined) {
        report({ ...base, message: `${where}: ${raw.parseError}` });
        continue;
      }
      const value = raw.value;
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        report({ ...base, message: `${where}: expected an object with the instance's fields, got ${describeType(value)}` });
        continue;
      }
      const record = normalizeValues(value as Record<string, unknown>);
      const instanceId = typeof record.instance_id === 'string' && record.instance_id ? record.instance_id : undefined;
      const oversized = fieldOverLimit(record);
      if (oversized) {
        report({ ...base, instanceId, field: oversized.field, message: `${where}: ${oversized.text}` });
        continue;
      }
      const parsed = SweInstanceSchema.safeParse(record);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((issue) => describeIssue(issue, record));
        report({ ...base, instanceId, field: problems[0]!.field, message: `${where}: ${problems.map((p) => p.text).join('; ')}` });
        continue;
      }
      const instance = parsed.data;
      const first = seen.get(instance.instance_id);
      if (first !== undefined) {
        report({ ...base, instanceId, field: 'instance_id', message: `${where}: instance_id: duplicate ${instance.instance_id} (first at ${first})` });
        continue;
      }
      seen.set(instance.instance_id, where);
      instances.push(instance);
    }
  }
  return { instances, errors, files };
}

async function resolveSource(source: string, options: LoadDatasetOptions): Promise<string[]> {
  const stat = await fs.stat(source).catch(() => undefined);
  if (stat?.isDirectory()) {
    const names = (await fs.readdir(source)).filter((n) => n.endsWith('.parquet')).sort();
    if (names.length === 0) throw new DatasetError(`dataset folder ${source} holds no .parquet files`);
    return names.map((n) => path.join(source, n));
  }
  if (stat?.isFile()) return [source];
  const looksLikeFile = /\.(jsonl?|ndjson|parquet)$/i.test(source) || source.startsWith('.') || path.isAbsolute(source);
  const hub = looksLikeFile ? undefined : parseHubDatasetName(source);
  if (!hub) throw new DatasetError(`dataset ${source}: no such file (expected a .json, .jsonl or .parquet file, or a Hub name like SWE-bench/SWE-bench_Lite)`);
  return downloadHubParquet(hub, {
    cacheDir: options.cacheDir ?? defaultCacheDir(),
    endpoint: options.hubEndpoint,
    fetch: options.fetch,
  });
}

async function readRows(file: string): Promise<RawRow[]> {
  const name = path.basename(file);
  const lower = name.toLowerCase();
  if (lower.endsWith('.parquet')) return readParquetRows(file, name);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new DatasetError(`dataset ${file}: cannot read: ${(err as Error).message}`, { cause: err });
  }
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return jsonlRows(text, name);
  if (lower.endsWith('.json')) return jsonListRows(text, name, file);
  throw new DatasetError(`dataset ${file}: unknown format (expected .json, .jsonl or .parquet)`);
}

function jsonlRows(text: string, name: string): RawRow[] {
  const rows: RawRow[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const row: RawRow = { file: name, row: index + 1, rowKind: 'line' };
    try {
      row.value = JSON.parse(line);
    } catch (err) {
      row.parseError = `not valid JSON (${(err as Error).message})`;
    }
    rows.push(row);
  });
  return rows;
}

function jsonListRows(text: string, name: string, file: string): RawRow[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new DatasetError(
      `dataset ${file}: not valid JSON (${(err as Error).message}); a .json dataset is one list of instances (use .jsonl for one instance a line)`,
      {
        cause: err,
      },
    );
  }
  if (!Array.isArray(value)) {
    throw new DatasetError(`dataset ${file}: expected a JSON list of instances, got ${describeType(value)}`);
  }
  return value.map((item, index) => ({ file: name, row: index + 1, rowKind: 'row' as const, value: item }));
}

async function readParquetRows(file: string, name: string): Promise<RawRow[]> {
  let records: Record<string, unknown>[];
  try {
    const buffer = await asyncBufferFromFile(file);
    const metadata = await parquetMetadataAsync(buffer);
    const tooLarge = parquetOverBound(metadata);
    if (tooLarge) throw new DatasetError(`dataset ${file}: ${tooLarge}`);
    records = (await parquetReadObjects({ file: buffer, metadata })) as Record<string, unknown>[];
  } catch (err) {
    if (err instanceof DatasetError) throw err;
    throw new DatasetError(`dataset ${file}: cannot read parquet: ${(err as Error).message}`, { cause: err });
  }
  return records.map((value, index) => ({ file: name, row: index + 1, rowKind: 'row' as const, value }));
}

/**
 * Parquet hands back dates, bigints and raw bytes, and null for absent optional columns; the schema wants
 * strings (or numbers for `version`) and absent fields.
 */
function normalizeValues(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    if (value instanceof Date) out[key] = value.toISOString();
    else if (typeof value === 'bigint') out[key] = Number(value);
    else if (value instanceof Uint8Array) out[key] = Buffer.from(value).toString('utf8');
    else out[key] = value;
  }
  return out;
}

const TEST_LIST_FIELDS = new Set(['FAIL_TO_PASS', 'PASS_TO_PASS']);

function describeIssue(issue: z.core.$ZodIssue, record: Record<string, unknown>): { field: string | undefined; text: string } {
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  const top = issue.path[0];
  let message = issue.message.replace(/^(Invalid input|Too small|Too big): /, '');
  if (typeof top === 'string' && issue.path.length === 1 && !(top in record)) {
    message = 'missing';
  } else if (typeof top === 'string' && issue.path.length === 1 && TEST_LIST_FIELDS.has(top)) {
    message = `expected a list of test names (a JSON array, or a string holding one), got ${describeTestList(record[top])}`;
  } else if (issue.code === 'too_small' && issue.origin === 'string' && Number(issue.minimum) === 1) {
    message = 'must not be empty';
  }
  return { field, text: field ? `${field}: ${message}` : message };
}

function describeTestList(value: unknown): string {
  if (typeof value === 'string') return `a string that is not a JSON list: ${JSON.stringify(value.slice(0, 60))}`;
  return describeType(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
