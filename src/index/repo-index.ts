/**
 * Builds the searchable index of one repository at one commit (src/index/types.ts: RepoIndex).
 *
 * This file plans the per-file work and composes the channels: it lists the commit's files, reuses every
 * file record whose (blob, path) an earlier commit of the process already built (or an earlier process
 * left in the on-disk record store), parses and tokenizes only the rest, and hands every record to each
 * index channel (src/index/channels/: dense vectors, BM25, definitions, literals, history, code graph), whose parts
 * together are the RepoIndex. A new channel is one file there plus one line in the list of step 2.
 */
import type { RepoSnapshot } from '../repo/types.ts';
import type { BuildRepoIndexDeps } from './build-options.ts';
import { bm25Channel } from './channels/bm25.ts';
import { definitionsChannel } from './channels/definitions.ts';
import { denseChannel } from './channels/dense.ts';
import { graphChannel } from './channels/graph.ts';
import { historyChannel } from './channels/history.ts';
import { keysChannel } from './channels/keys.ts';
import { literalsChannel } from './channels/literals.ts';
import type { ChannelBuild, ChannelContext, IndexChannel } from './channels/types.ts';
import { createFileVerdict, resolveFileFilter, summarizeFileSelection } from './file-filter.ts';
import type { FileParser, ParsedFile } from './file-parser.ts';
import { buildFileRecord, recordStoreFor } from './file-records.ts';
import { defaultIndexMemo } from './index-memo.ts';
import type { FileRecord, IndexTimings, RepoIndex } from './types.ts';

let defaultParserPromise: Promise<FileParser> | undefined;

/** The tree-sitter chunker from src/parsing/ (loaded on first use). */
export function defaultFileParser(): Promise<FileParser> {
  defaultParserPromise ??= (async () => {
    const mod = (await import('./default-parser.ts')) as { createDefaultFileParser: () => Promise<FileParser> };
    return mod.createDefaultFileParser();
  })();
  return defaultParserPromise;
}

const now = (): number => performance.now();

function emptyTimings(): IndexTimings {
  return {
    cold: true,
    totalMs: 0,
    listMs: 0,
    readMs: 0,
    parseMs: 0,
    tokenizeMs: 0,
    vectorSyncMs: 0,
    vectorWaitMs: 0,
    vectorBackpressureMs: 0,
    embedMs: 0,
    bm25Ms: 0,
    literalsMs: 0,
    keysMs: 0,
    filesIndexed: 0,
    filesReused: 0,
    filesParsed: 0,
    filesRestored: 0,
    chunks: 0,
    chunksUpserted: 0,
    textsEmbedded: 0,
  };
}

/**
 * The channels, in the order they open and finish: the dense one last, so the vector store's last batches overlap
 * the others' builds. A new channel is one entry here, and its part in RepoIndex (src/index/types.ts).
 */
const CHANNELS = [definitionsChannel, literalsChannel, keysChannel, bm25Channel, historyChannel, graphChannel, denseChannel] as const;
type PartOf<C> = C extends IndexChannel<infer P> ? P : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** what the channels together answer of the index */
type ChannelParts = Intersection<PartOf<(typeof CHANNELS)[number]>>;

export async function buildRepoIndex(snapshot: RepoSnapshot, deps: BuildRepoIndexDeps): Promise<RepoIndex> {
  const tStart = now();
  const memo = deps.memo ?? defaultIndexMemo();
  const parser = deps.parser ?? (await defaultFileParser());
  const timings = emptyTimings();
  const ctx: ChannelContext = { snapshot, deps, memo, parserId: parser.id, timings, progress: deps.onProgress ?? (() => {}) };

  // 1. files of this commit
  const { entries, fileSelection } = await indexedFiles(snapshot, deps, timings);
  // 2. the channels, opened in CHANNELS' order
  const builds: ChannelBuild<object>[] = [];
  for (const channel of CHANNELS) builds.push(await (channel as IndexChannel<object>).open(ctx));
  // 3. per-file records: reuse by (blob, path), build the rest
  const records = await fileRecords(entries, ctx, parser, builds);
  timings.filesIndexed = entries.length;
  for (const b of builds) b.flush?.();

  // 4. the channels' parts of the index, each the part of RepoIndex its channel answers
  const parts: object[] = [];
  for (const b of builds) parts.push(await b.finish(records));
  const channelParts = Object.assign({}, ...parts) as ChannelParts;
  const files = records.map((r) => r.file);
  const chunks = records.flatMap((r) => r.chunks);
  const chunksByFile = new Map(records.map((r) => [r.file.path, r.chunks]));
  const filePaths = files.map((f) => f.path);
  const fileSet = new Set(filePaths);
  timings.chunks = chunks.length;
  timings.totalMs = now() - tStart;
  const none: readonly never[] = Object.freeze([]);

  return {
    repo: snapshot.repo,
    commit: snapshot.commit,
    embedderId: deps.embedder.id,
    files,
    filePaths,
    chunks,
    timings,
    fileSelection,
    ...channelParts,
    chunksOfFile: (p) => chunksByFile.get(p) ?? none,
    hasFile: (p) => fileSet.has(p),
  };
}

type FileEntry = Awaited<ReturnType<RepoSnapshot['listFiles']>>[number];

/** The commit's files the filter indexes, in path order, and the account of what it left out. */
async function indexedFiles(snapshot: RepoSnapshot, deps: BuildRepoIndexDeps, timings: IndexTimings) {
  const t = now();
  const listed = await snapshot.listFiles();
  const listedPaths = listed.map((e) => e.path);
  const verdict = createFileVerdict(resolveFileFilter(deps.fileFilter ?? {}, listedPaths));
  const fileSelection = summarizeFileSelection(listedPaths, verdict);
  const entries = listed.filter((e) => verdict(e.path) === 'indexed').sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  timings.listMs = now() - t;
  return { entries, fileSelection };
}

/** Every file's record, handed to each channel as it comes: reused by (blob, path) where one was built, else built. */
async function fileRecords(
  entries: readonly FileEntry[],
  ctx: ChannelContext,
  parser: FileParser,
  builds: readonly ChannelBuild<object>[],
): Promise<FileRecord[]> {
  const { snapshot, deps, memo, timings } = ctx;
  const keyOf = (e: FileEntry) => `${snapshot.repo}\0${parser.id}\0${e.blob}\0${e.path}`;
  const add = (record: FileRecord): void => {
    for (const b of builds) b.add?.(record);
  };
  const records: FileRecord[] = new Array(entries.length);
  const todo: number[] = [];
  entries.forEach((e, i) => {
    const r = memo.records.get(keyOf(e));
    if (r) {
      records[i] = r;
      add(r);
    } else {
      todo.push(i);
    }
  });
  timings.filesReused = entries.length - todo.length;
  timings.cold = timings.filesReused === 0 && entries.length > 0;
  if (todo.length === 0) return records;
  const t = now();
  const contents = await Promise.all(todo.map(async (i) => (await snapshot.readBlob(entries[i].blob)).toString('utf8')));
  timings.readMs = now() - t;
  const knownChunkTerms = memo.chunkTermsOf(snapshot.repo);
  const onDisk = deps.persistParsedFiles === false ? undefined : await recordStoreFor(memo, deps.cacheDir, snapshot.repo, parser.id);
  const pace = { lastYield: now() };
  for (let j = 0; j < todo.length; j++) {
    const entry = entries[todo[j]];
    const { parsed, restored } = await parseOrRestore(entry, contents[j], parser, onDisk, timings);
    const record = buildFileRecord(entry, contents[j], parsed, memo.terms, knownChunkTerms, timings);
    if (!restored) {
      onDisk?.add(entry.blob, entry.path, contents[j], {
        chunks: record.chunks,
        definitions: record.definitions,
        ...(record.file.parseError ? { parseError: record.file.parseError } : {}),
      });
    }
    memo.records.set(keyOf(entry), record);
    records[todo[j]] = record;
    add(record);
    await keepChannelsMoving(builds, pace, timings);
    if ((j + 1) % 500 === 0) ctx.progress(`${snapshot.repo}: parsed ${j + 1}/${todo.length} files`);
  }
  await onDisk?.flush();
  return records;
}

type RecordStore = Awaited<ReturnType<typeof recordStoreFor>>;

/** A file parsed, or restored from the on-disk record store; a parser's failure is the file's parse error. */
async function parseOrRestore(entry: FileEntry, content: string, parser: FileParser, onDisk: RecordStore | undefined, timings: IndexTimings) {
  const tp = now();
  let parsed: ParsedFile | Error;
  const restored = onDisk?.restore(entry.blob, entry.path, content);
  if (restored) {
    parsed = restored.parseError ? new Error(restored.parseError) : restored;
    timings.filesRestored++;
  } else {
    try {
      parsed = await parser.parse(entry.path, content);
    } catch (err) {
      parsed = err instanceof Error ? err : new Error(String(err));
    }
    timings.filesParsed++;
  }
  timings.parseMs += now() - tp;
  return { parsed, restored: restored !== undefined };
}

/** Parsing is synchronous: let the channels' requests progress now and then, and wait for any that fell behind. */
async function keepChannelsMoving(builds: readonly ChannelBuild<object>[], pace: { lastYield: number }, timings: IndexTimings): Promise<void> {
  const waits = builds.map((b) => b.throttle?.()).filter((w): w is Promise<void> => w !== undefined);
  if (waits.length > 0) {
    const tw = now();
    await Promise.all(waits);
    pace.lastYield = now();
    timings.vectorBackpressureMs += pace.lastYield - tw;
  } else if (now() - pace.lastYield > 50) {
    await new Promise((r) => setImmediate(r));
    pace.lastYield = now();
  }
}
