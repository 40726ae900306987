/**
 * Records the retrieval searches of mined training pairs (issue 34), so the learned ranker's features can be
 * computed, changed and recomputed without indexing again. For each sampled pair the repository is indexed at the
 * pair's parent commit (the state its author started from; the history channel sees only older commits), the
 * pair's message is the issue, and the default retrieval runs through a RecordingIndex, as `bench:retrieval
 * --record` does for SWE-bench rows.
 *
 *   npm run ranker:record -- --pairs pairs.jsonl --mirrors $LOCFIX_MIRRORS --out DIR [--per-repo 150] [--repos a/b,…]
 *
 * Sampling is deterministic: per repository, `--per-repo` pairs evenly spaced over its history order. The vector
 * store is the in-process exact one (no HNSW randomness), the embedder the offline lexical one, so the same
 * mirrors give the same recordings. A pair already recorded in DIR is skipped: an interrupted run resumes.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createEmbedder } from '../src/embedding/factory.ts';
import { defaultIndexMemo } from '../src/index/index-memo.ts';
import { buildRepoIndex, defaultFileParser } from '../src/index/repo-index.ts';
import { selectRepositories, type TrainingPair } from './ranker/training-pairs.ts';
import { RepoStore } from '../src/repo/store.ts';
import { safeFileName } from '../src/util/fsx.ts';
import { MemoryVectorStore } from '../src/vectorstore/memory.ts';
import { DEFAULT_RETRIEVAL_OPTIONS } from '../localizer/retrieval/options.ts';
import { defaultQueries } from '../localizer/retrieval/query.ts';
import { everyChannelOn, RecordingIndex } from '../localizer/retrieval/recording-index.ts';
import { retrieveFiles } from '../localizer/retrieval/retriever.ts';
import { samplePairs, type RecordedPair } from './ranker/pair-recordings.ts';
import { benchInput } from './bench-inputs.ts';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string' },
    mirrors: { type: 'string' },
    out: { type: 'string' },
    'per-repo': { type: 'string', default: '150' },
    repos: { type: 'string' },
  },
});
if (!values.pairs || !values.out) throw new Error('usage: npm run ranker:record -- --pairs FILE --mirrors DIR --out DIR [--per-repo N] [--repos a/b,…]');
const perRepo = Number(values['per-repo']);
if (!Number.isInteger(perRepo) || perRepo < 1) throw new Error(`--per-repo must be a positive integer, got ${values['per-repo']}`);

const all = (await readFile(values.pairs, 'utf8'))
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as TrainingPair);
const repos = new Set(selectRepositories(values.repos, [...new Set(all.map((p) => p.repo))], values.pairs));
const chosen = samplePairs(
  all.filter((p) => repos.has(p.repo)),
  perRepo,
);
await mkdir(values.out, { recursive: true });
const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-ranker-rec-'));
const store = new RepoStore({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), allowClone: false });
const embedder = createEmbedder('lexical');
const vectorStore = new MemoryVectorStore();
const parser = await defaultFileParser();
const depth = { chunk: DEFAULT_RETRIEVAL_OPTIONS.chunkDepth, file: DEFAULT_RETRIEVAL_OPTIONS.fileDepth };
const t0 = performance.now();
let done = 0;
let failed = 0;
try {
  for (const [n, pair] of chosen.entries()) {
    const previous = chosen[n - 1]?.repo;
    if (previous !== undefined && previous !== pair.repo) {
      defaultIndexMemo().forgetRepo(previous);
      store.releaseRepo(previous);
    }
    const file = path.join(values.out, `${safeFileName(`${pair.repo}+${pair.commit}`)}.json`);
    if (existsSync(file)) continue;
    const ti = performance.now();
    try {
      // the first parent: for a merge, the branch the fix landed on
      const snapshot = await store.snapshot(pair.repo, `${pair.commit}^1`);
      const index = await buildRepoIndex(snapshot, { embedder, vectorStore, cacheDir, parser });
      const recording = new RecordingIndex({ ...index, graphNeighbors: undefined }, depth);
      await retrieveFiles(recording, defaultQueries(pair.query), DEFAULT_RETRIEVAL_OPTIONS);
      // every channel, whatever its default weight: a weight chosen later replays from the same recording
      await retrieveFiles(recording, defaultQueries(pair.query), everyChannelOn());
      // the learned ranker's file facts (the weighted fusion does not ask for them)
      await recording.fileFacts();
      const record: RecordedPair = { pair: { ...pair, parent: snapshot.commit }, recording: recording.recording() };
      await writeFile(file, JSON.stringify(record));
      done++;
      process.stderr.write(`[${n + 1}/${chosen.length}] ${pair.repo} ${pair.commit.slice(0, 10)} ${((performance.now() - ti) / 1000).toFixed(1)}s\n`);
    } catch (err) {
      failed++;
      const message = err instanceof Error ? err.message : String(err);
      await writeFile(file, JSON.stringify({ pair, error: message }));
      process.stderr.write(`[${n + 1}/${chosen.length}] ${pair.repo} ${pair.commit.slice(0, 10)} FAILED: ${message}\n`);
    }
  }
} finally {
  await store.close();
  await rm(cacheDir, { recursive: true, force: true });
}
console.log(`${chosen.length} pairs sampled, ${done} recorded now, ${failed} failed, in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
