/**
 * From recorded searches to ranking examples, and how a model is judged on them. A recording (recording-index.ts)
 * replays the retriever's searches exactly, so an example's features are the ones the live retriever would compute.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RankerModel } from '../../localizer/retrieval/learned/model.ts';
import { DEFAULT_RETRIEVAL_OPTIONS, type RetrievalOptions } from '../../localizer/retrieval/options.ts';
import type { RetrievalQuery } from '../../localizer/retrieval/query.ts';
import { ReplayIndex, type IndexRecording } from '../../localizer/retrieval/recording-index.ts';
import { collectChannels } from '../../localizer/retrieval/retriever.ts';
import { candidateSet } from '../../localizer/retrieval/learned/rerank.ts';

/** how many of the weighted fusion's files the shipped model reorders */
export const DEFAULT_CANDIDATES = 50;

export interface RankingExample {
  id: string;
  /** the repository (for per-repository tables; never a feature) */
  repo: string;
  /** the files that had to be found, those present in the indexed commit */
  gold: string[];
  /** the weighted fusion's ranking, paths only */
  weighted: string[];
  /** features of its first candidates */
  rows: Float64Array[];
  /** 1 where rows[i] is a gold file */
  labels: number[];
}

export async function rankingExample(
  id: string,
  repo: string,
  recording: IndexRecording,
  queries: readonly RetrievalQuery[],
  gold: readonly string[],
  /** 'present': only the gold files the indexed commit has (a mined pair's new files cannot be found);
   * 'all': every gold file, as SWE-bench's metrics count them */
  goldKept: 'present' | 'all',
  depth = DEFAULT_CANDIDATES,
  options: RetrievalOptions = DEFAULT_RETRIEVAL_OPTIONS,
): Promise<RankingExample> {
  const collected = await collectChannels(new ReplayIndex(recording), queries, options);
  const { weighted, rows } = candidateSet(collected.channels, queries, options, depth, recording.facts);
  const present = new Set(recording.filePaths);
  const goldHere = [...new Set(gold)].filter((g) => goldKept === 'all' || present.has(g)).sort();
  const goldSet = new Set(goldHere);
  return {
    id,
    repo,
    gold: goldHere,
    weighted: weighted.map((f) => f.path),
    rows,
    labels: weighted.slice(0, rows.length).map((f) => (goldSet.has(f.path) ? 1 : 0)),
  };
}

/** The columns a model reads, from full feature rows. */
export function project(rows: readonly Float64Array[], columns: readonly number[]): Float64Array[] {
  return rows.map((row) => Float64Array.from(columns, (c) => row[c]!));
}

/** sha256 over every example's id, features and labels, in order: what a model file records as its training data */
export function examplesHash(examples: readonly RankingExample[]): string {
  const hash = createHash('sha256');
  for (const e of examples) {
    hash.update(`${e.id}\n`);
    for (const row of e.rows) hash.update(Buffer.from(row.buffer, row.byteOffset, row.byteLength));
    hash.update(Uint8Array.from(e.labels));
  }
  return hash.digest('hex');
}

/** The training command as a model file records it: every path as its last part (`DATASET=DIR` on each side), so the file carries no machine's folders. */
export function trainingCommand(argv: readonly string[]): string {
  const short = (a: string) => (a.includes('/') ? path.basename(a) : a);
  return `npm run ranker:train -- ${argv.map((a) => (a.includes('=') && !a.startsWith('{') ? a.split('=').map(short).join('=') : short(a))).join(' ')}`;
}

/** Writes the model file (one JSON line) and returns the start of its sha256. */
export async function writeModelFile(out: string, model: RankerModel): Promise<{ bytes: number; sha256: string }> {
  const text = `${JSON.stringify(model)}\n`;
  await mkdir(path.dirname(path.resolve(out)), { recursive: true });
  await writeFile(out, text);
  return { bytes: text.length, sha256: createHash('sha256').update(text).digest('hex') };
}
