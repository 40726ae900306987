/**
 * The model-free file retriever: several queries × several retrievers → one fused file ranking, a
 * candidate pool, and evidence per file.
 *
 * Per query, each text retriever gives file scores: dense and chunk-BM25 take the max over a file's chunks
 * (BLAgent §2.3), file-BM25 scores whole files. A query that carries structural signals adds two more
 * channels: the definition boost and path matches. Each query's channels are fused into that query's own
 * ranking (for the BLAgent-style pool); all channels of all queries are fused into the final ranking.
 */
import type { CodeChunk, Definition } from '../../src/parsing/types.ts';
import type { FileFacts } from '../../src/index/types.ts';
import { candidatePool, rankFiles, reciprocalRankFusion, weightedScoreFusion, type Channel, type RankedFile } from './fusion.ts';
import { definitionScores, type DefinitionEvidence } from './definition-boost.ts';
import { type GraphEvidence, type GraphLookup, graphScores } from './graph-expansion.ts';
import { pathSignalScores, RepoPathMatcher, type PathEvidence } from './path-match.ts';
import { resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from './options.ts';
import { assertQueries, type RetrievalQuery } from './query.ts';
import { learnedRanking } from './learned/rerank.ts';
import { coChangeSeeds } from './co-change-seeds.ts';
import { loadRankerModel } from './learned/model.ts';

export interface ChunkHit {
  chunk: CodeChunk;
  score: number;
}

export interface FileHit {
  path: string;
  score: number;
}

/** What the retriever needs from a repository index (src/index/repo-index.ts provides it). */
export interface RetrievalIndex {
  /** repository-relative paths of every indexed file */
  readonly filePaths: readonly string[];
  searchDense(text: string, k: number): Promise<ChunkHit[]>;
  searchChunksBm25(text: string, k: number): Promise<ChunkHit[]>;
  searchFilesBm25(text: string, k: number): Promise<FileHit[]>;
  /** files changed by earlier commits similar to the text (absent: no history channel) */
  searchHistory?(text: string, k: number): Promise<FileHit[]>;
  /** files holding string literals the text quotes (absent: no literals channel) */
  searchLiterals?(text: string, k: number): Promise<FileHit[]>;
  /** files reading the configuration keys and flags the text names (absent: no keys channel) */
  searchKeys?(text: string, k: number): Promise<FileHit[]>;
  /** files the recent commits changed together with the seeds (absent: no co-change channel) */
  searchCoChange?(seeds: readonly string[], k: number): Promise<FileHit[]>;
  definitionsOf(name: string): readonly Definition[];
  /** the code-graph channel, read as neighbours of an entity (absent: no graph channel) */
  graphNeighbors?(): Promise<GraphLookup>;
  /** each file's size and recent changes, for the learned ranker (absent or undefined: those features are 0) */
  fileFacts?(): Promise<FileFacts | undefined>;
}

export interface EvidenceChunk {
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  query: string;
  signal: 'dense' | 'chunkBm25';
  symbol?: string;
}

export interface RankedFileWithEvidence extends RankedFile {
  /** normalized contribution of each channel ("raw/fileBm25": 0.8, …) before fusion weights */
  channels: Record<string, number>;
  chunks: EvidenceChunk[];
  definitions: DefinitionEvidence[];
  pathSignals: PathEvidence[];
  /** graph channel: which named entity led here, through which neighbour and edge (absent when the channel is off) */
  graph?: GraphEvidence[];
}

export interface QueryRanking {
  label: string;
  text: string;
  files: RankedFile[];
  timingsMs: Record<string, number>;
}

export interface RetrievalResult {
  /** fused ranking over all queries and channels, best first, `rankingDepth` long */
  ranking: RankedFileWithEvidence[];
  /** unique(top-m of each query's ranking), capped */
  pool: string[];
  perQuery: QueryRanking[];
  /** each weighted channel's own best file (what `channel-agreement` compares with the fused first file) */
  channelTops: Array<{ label: string; weight: number; top: string }>;
  timingsMs: { total: number };
}

/**
 * File score from its chunk hits: the best chunk (BLAgent §2.3) plus, when `topN` > 1, the next best ones
 * damped by `decay` per rank (s1 + decay·s2 + decay²·s3 …), so a file matching in several places gains.
 */
export function fileScoresFromChunks(hits: readonly ChunkHit[], topN = 1, decay = 0.5): Map<string, number> {
  const perFile = new Map<string, number[]>();
  for (const h of hits) {
    const list = perFile.get(h.chunk.path);
    if (list) list.push(h.score);
    else perFile.set(h.chunk.path, [h.score]);
  }
  const out = new Map<string, number>();
  for (const [path, scores] of perFile) {
    scores.sort((a, b) => b - a);
    let total = 0;
    let factor = 1;
    for (const s of scores.slice(0, Math.max(1, topN))) {
      total += factor * s;
      factor *= decay;
    }
    out.set(path, total);
  }
  return out;
}

/** a query's own ranking, and the final one under 'weighted' and 'rrf' ('learned' reorders the weighted one) */
function fuse(channels: readonly Channel[], options: RetrievalOptions): Map<string, number> {
  return options.fusion === 'rrf' ? reciprocalRankFusion(channels, options.rrfK) : weightedScoreFusion(channels, options.normalization);
}

async function timed<T>(timings: Record<string, number>, key: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timings[key] = Math.round((performance.now() - t0) * 10) / 10;
  }
}

/** What every query's channels found, before fusion: the channels, and the evidence that explains them. */
export interface CollectedChannels {
  /** every channel of every query, in query order */
  channels: Channel[];
  /** each query's own channels, with its search timings */
  perQuery: Array<{ query: RetrievalQuery; channels: Channel[]; timingsMs: Record<string, number> }>;
  chunkEvidence: Map<string, EvidenceChunk[]>;
  defEvidence: Map<string, DefinitionEvidence[]>;
  pathEvidence: Map<string, PathEvidence[]>;
  graphEvidence: Map<string, GraphEvidence[]>;
}

/** A query's text channels: chunk searches (a file scores its best chunks), then searches that score whole files. */
async function textChannels(
  index: RetrievalIndex,
  query: RetrievalQuery,
  options: RetrievalOptions,
  timings: Record<string, number>,
  chunkFound: (hit: ChunkHit, signal: EvidenceChunk['signal']) => void,
): Promise<Channel[]> {
  const w = options.weights;
  const qw = options.queryWeights[query.label] ?? 1;
  const text = query.text.trim();
  const channels: Channel[] = [];
  if (!text) return channels;
  const chunkSearches: Array<[EvidenceChunk['signal'], number, (text: string, k: number) => Promise<ChunkHit[]>]> = [
    ['dense', w.dense, index.searchDense.bind(index)],
    ['chunkBm25', w.chunkBm25, index.searchChunksBm25.bind(index)],
  ];
  for (const [kind, weight, search] of chunkSearches) {
    if (weight <= 0) continue;
    const hits = await timed(timings, kind, () => search(text, options.chunkDepth));
    channels.push({
      label: `${query.label}/${kind}`,
      scores: fileScoresFromChunks(hits, options.chunkAggregation.topN, options.chunkAggregation.decay),
      weight: weight * qw,
    });
    for (const h of hits) chunkFound(h, kind);
  }
  // in a fixed order, each a channel when its weight is on
  const historyWeight = w.history * (options.historyQueries === 'all' || options.historyQueries.includes(query.label) ? 1 : 0);
  const fileSearches: Array<[string, number, ((text: string, k: number) => Promise<FileHit[]>) | undefined]> = [
    ['fileBm25', w.fileBm25, index.searchFilesBm25.bind(index)],
    ['history', historyWeight, index.searchHistory?.bind(index)],
    ['literals', w.literals, index.searchLiterals?.bind(index)],
    ['keys', w.keys, index.searchKeys?.bind(index)],
  ];
  for (const [kind, weight, search] of fileSearches) {
    if (weight <= 0 || !search) continue;
    const hits = await timed(timings, kind, () => search(text, options.fileDepth));
    channels.push({ label: `${query.label}/${kind}`, scores: new Map(hits.map((h) => [h.path, h.score])), weight: weight * qw });
  }
  return channels;
}

/** Runs every query against every channel whose weight is on (the searches; no fusion). */
export async function collectChannels(index: RetrievalIndex, queries: readonly RetrievalQuery[], options: RetrievalOptions): Promise<CollectedChannels> {
  const w = options.weights;
  let matcher: RepoPathMatcher | undefined;
  // the graph channel builds the commit's code graph on first use: only when its weight is on
  const graphLookup = w.graph > 0 && index.graphNeighbors ? await index.graphNeighbors() : undefined;
  const out: CollectedChannels = {
    channels: [],
    perQuery: [],
    chunkEvidence: new Map(),
    defEvidence: new Map(),
    pathEvidence: new Map(),
    graphEvidence: new Map(),
  };
  const pushTo = <T>(map: Map<string, T[]>, key: string, value: T): void => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };

  for (const query of queries) {
    const qw = options.queryWeights[query.label] ?? 1;
    const timings: Record<string, number> = {};
    const channels = await textChannels(index, query, options, timings, (hit, signal) =>
      pushTo(out.chunkEvidence, hit.chunk.path, chunkToEvidence(hit, query.label, signal)),
    );
    if (query.signals) {
      const signals = query.signals;
      if (w.definitions > 0 || graphLookup) {
        const t0 = performance.now();
        const { scores, evidence } = definitionScores(signals, index, options);
        timings.definitions = Math.round((performance.now() - t0) * 10) / 10;
        if (w.definitions > 0) {
          channels.push({ label: `${query.label}/definitions`, scores, weight: w.definitions * qw });
          for (const e of evidence) pushTo(out.defEvidence, e.path, e);
        }
        if (graphLookup) {
          const t1 = performance.now();
          const graph = graphScores(evidence, graphLookup, options);
          timings.graph = Math.round((performance.now() - t1) * 10) / 10;
          channels.push({ label: `${query.label}/graph`, scores: graph.scores, weight: w.graph * qw });
          for (const e of graph.evidence) pushTo(out.graphEvidence, e.path, e);
        }
      }
      if (w.paths > 0) {
        matcher ??= new RepoPathMatcher(index.filePaths);
        const { scores, evidence } = pathSignalScores(signals, matcher, options.pathWeights, options.frameDecay);
        channels.push({ label: `${query.label}/paths`, scores, weight: w.paths * qw });
        for (const e of evidence) pushTo(out.pathEvidence, e.path, e);
      }
      if (w.coChange > 0 && index.searchCoChange) {
        const seeds = coChangeSeeds(index, signals, channels, () => (matcher ??= new RepoPathMatcher(index.filePaths)), options);
        const hits = await timed(timings, 'coChange', () => index.searchCoChange!(seeds, options.fileDepth));
        channels.push({ label: `${query.label}/coChange`, scores: new Map(hits.map((h) => [h.path, h.score])), weight: w.coChange * qw });
      }
    }
    out.perQuery.push({ query, channels, timingsMs: timings });
    out.channels.push(...channels);
  }
  return out;
}

/** Retrieval with options given in part (tests, scripts): resolved here, then `retrieveResolved`. */
export async function retrieveFiles(
  index: RetrievalIndex,
  queries: readonly RetrievalQuery[],
  partialOptions: DeepPartial<RetrievalOptions> = {},
): Promise<RetrievalResult> {
  return retrieveResolved(index, queries, resolveRetrievalOptions(partialOptions));
}

/** Retrieval with whole options, resolved once per run by the caller (the retrieval localizer). */
export async function retrieveResolved(index: RetrievalIndex, queries: readonly RetrievalQuery[], options: RetrievalOptions): Promise<RetrievalResult> {
  assertQueries(queries);
  // a model that cannot be read fails before any search is run
  const ranker = options.fusion === 'learned' ? loadRankerModel(options.rankerModel) : undefined;
  const started = performance.now();
  const collected = await collectChannels(index, queries, options);
  const allChannels = collected.channels;
  const perQuery: QueryRanking[] = collected.perQuery.map((q) => ({
    label: q.query.label,
    text: q.query.text,
    files: rankFiles(fuse(q.channels, options)).slice(0, options.rankingDepth),
    timingsMs: q.timingsMs,
  }));

  const facts = ranker ? await index.fileFacts?.() : undefined;
  const fused = (ranker ? learnedRanking(ranker, allChannels, queries, options, facts) : rankFiles(fuse(allChannels, options))).slice(0, options.rankingDepth);
  const normalizedByChannel = allChannels.map((c) => ({ label: c.label, scores: normalizeForReport(c.scores) }));
  const ranking: RankedFileWithEvidence[] = fused.map((f) => {
    const contributions: Record<string, number> = {};
    for (const c of normalizedByChannel) {
      const s = c.scores.get(f.path);
      if (s !== undefined) contributions[c.label] = Math.round(s * 1e4) / 1e4;
    }
    const graph = collected.graphEvidence.get(f.path);
    return {
      path: f.path,
      score: f.score,
      channels: contributions,
      chunks: bestChunks(collected.chunkEvidence.get(f.path) ?? [], options.evidencePerFile),
      definitions: dedupeDefinitions(collected.defEvidence.get(f.path) ?? []).slice(0, options.evidencePerFile),
      pathSignals: (collected.pathEvidence.get(f.path) ?? []).slice(0, options.evidencePerFile),
      ...(graph ? { graph: dedupeGraphEvidence(graph).slice(0, options.evidencePerFile) } : {}),
    };
  });
  const pool = candidatePool(
    perQuery.map((q) => q.files.map((f) => f.path)),
    options.poolPerQuery,
    options.poolCap,
  );
  const channelTops = allChannels.flatMap((c) => {
    const top = c.weight > 0 ? rankFiles(c.scores)[0] : undefined;
    return top && top.score > 0 ? [{ label: c.label, weight: c.weight, top: top.path }] : [];
  });
  return { ranking, pool, perQuery, channelTops, timingsMs: { total: Math.round(performance.now() - started) } };
}

function chunkToEvidence(hit: ChunkHit, query: string, signal: EvidenceChunk['signal']): EvidenceChunk {
  const c = hit.chunk;
  return { path: c.path, startLine: c.startLine, endLine: c.endLine, score: hit.score, query, signal, ...(c.symbol ? { symbol: c.symbol } : {}) };
}

function normalizeForReport(scores: ReadonlyMap<string, number>): Map<string, number> {
  let max = 0;
  for (const s of scores.values()) if (s > max) max = s;
  const out = new Map<string, number>();
  if (max > 0) for (const [p, s] of scores) out.set(p, s / max);
  return out;
}

/** Chunk hits of one file: the best ones, each region once (dense and BM25 often agree). */
function bestChunks(hits: readonly EvidenceChunk[], n: number): EvidenceChunk[] {
  // scores of different retrievers are not comparable; rank within each retriever, interleave by rank
  const byRank = [...hits].map((h) => ({ h, rank: hits.filter((o) => o.signal === h.signal && o.query === h.query && o.score > h.score).length }));
  byRank.sort((a, b) => a.rank - b.rank || b.h.score - a.h.score);
  const out: EvidenceChunk[] = [];
  const seen = new Set<string>();
  for (const { h } of byRank) {
    const key = `${h.startLine}-${h.endLine}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
    if (out.length >= n) break;
  }
  return out;
}

function dedupeDefinitions(list: readonly DefinitionEvidence[]): DefinitionEvidence[] {
  const seen = new Map<string, DefinitionEvidence>();
  for (const d of list) {
    const key = `${d.qualifiedName}@${d.startLine}`;
    const prev = seen.get(key);
    if (prev) prev.weight += d.weight;
    else seen.set(key, { ...d });
  }
  return [...seen.values()].sort((a, b) => b.weight - a.weight);
}

/** one line per (seed, neighbour, relation), weights of the queries that found it summed */
function dedupeGraphEvidence(list: readonly GraphEvidence[]): GraphEvidence[] {
  const seen = new Map<string, GraphEvidence>();
  for (const e of list) {
    const key = `${e.from}\0${e.to}\0${e.relation}`;
    const prev = seen.get(key);
    if (prev) prev.weight += e.weight;
    else seen.set(key, { ...e });
  }
  return [...seen.values()].sort((a, b) => b.weight - a.weight);
}
