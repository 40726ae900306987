/**
 * On-disk response cache: one folder per distinct request, one JSON file per sample.
 *
 *   <dir>/<key[0..2]>/<key>/request.json   the normalized request (for humans and debugging)
 *   <dir>/<key[0..2]>/<key>/<i>.json       sample i: raw answer (reasoning included) and its original usage
 *
 * The key is the sha256 of the normalized request without `n`, so a request for 10 samples reuses the 4
 * an earlier request for 4 left behind and only generates samples 4..9. Files are written atomically, so a
 * killed run never leaves a torn entry.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import { readJsonIfExists, writeJsonAtomic, pathExists } from '../util/fsx.ts';

export interface CachedSample {
  version: 1;
  key: string;
  sampleIndex: number;
  modelId: string;
  raw: string;
  /** reasoning the server sent in a separate field (Ollama `thinking`, vLLM `reasoning_content`) */
  thinking?: string;
  finishReason?: string;
  promptTokens: number;
  completionTokens: number;
  createdAt: string;
}

/** JSON with object keys sorted and undefined values dropped: equal requests give equal text. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableStringify(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

export function requestKey(normalizedRequest: unknown): string {
  return createHash('sha256').update(stableStringify(normalizedRequest)).digest('hex');
}

export class ResponseCache {
  /** `dir` is the folder that holds the entries (the model layer passes `<cacheDir>/llm`) */
  constructor(readonly dir: string) {}

  private folder(key: string): string {
    return path.join(this.dir, key.slice(0, 2), key);
  }

  async get(key: string, sampleIndex: number): Promise<CachedSample | undefined> {
    let entry: CachedSample | undefined;
    try {
      entry = await readJsonIfExists<CachedSample>(path.join(this.folder(key), `${sampleIndex}.json`));
    } catch {
      // An unreadable entry is a miss: the sample is generated again and the entry rewritten.
      return undefined;
    }
    if (entry?.version !== 1 || entry.key !== key || typeof entry.raw !== 'string') return undefined;
    return entry;
  }

  async put(sample: CachedSample, normalizedRequest: unknown): Promise<void> {
    const folder = this.folder(sample.key);
    const requestFile = path.join(folder, 'request.json');
    if (!(await pathExists(requestFile))) await writeJsonAtomic(requestFile, normalizedRequest);
    await writeJsonAtomic(path.join(folder, `${sample.sampleIndex}.json`), sample);
  }
}
