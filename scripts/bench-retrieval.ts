/**
 * Retrieval benchmark on SWE-bench Lite (all 300 instances) or any dataset (`--dataset`, e.g. the Multilingual
 * rows), offline: lexical embedder + BM25, no LLM. Reports the default per language family and the parse
 * speed per language (scripts/retrieval-languages.ts).
 *
 *   npm run bench:retrieval -- [--dataset FILE] [--mirrors DIR] [--limit N] [--pattern P]
 *                              [--history COMMITS]
 *                              [--vector-store chroma|memory] [--record DIR] [--replay DIR] [--out FILE]
 *                              [--embedder lexical|lexical:<dims>|ollama:…|openai:…] [--hnsw-ef N]
 *
 * Live mode indexes every instance's repository at its base commit (fresh cache folder and Chroma server,
 * so the first commit of each repository is a cold index), then evaluates every configuration on the same
 * index: searches are memoized per instance, so extra configurations cost only fusion. `--record DIR`
 * keeps each instance's searches; `--replay DIR` re-evaluates configurations from such recordings in
 * seconds (used to tune the few global weights on even-indexed instances; odd ones are the held-out check).
 */
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import { selectInstances } from '../src/dataset/select.ts';
import { createEmbedder } from '../src/embedding/factory.ts';
import { buildRepoIndex, defaultFileParser } from '../src/index/repo-index.ts';
import { formatSpeeds, indexLanguage, speedsRecord, timedParser, type LanguageSpeed } from './retrieval-languages.ts';
import { defaultIndexMemo } from '../src/index/index-memo.ts';
import { RepoStore } from '../src/repo/store.ts';
import { historyExpansion } from '../src/index/word-associations.ts';
import { openChromaStore } from '../src/vectorstore/supervised.ts';
import { MemoryVectorStore } from '../src/vectorstore/memory.ts';
import { safeFileName, writeJsonAtomic } from '../src/util/fsx.ts';
import LOCAGENT_EXCLUDED from './data/locagent-excluded-ids.json' with { type: 'json' };
import { goldPaths } from '../src/dataset/gold.ts';
import { computeLocMetrics, formatLocMetricsTable, metricsSummary, type LocMetrics } from '../results/loc-metrics.ts';
import { groupByRepo } from '../src/run/repo-release.ts';
import { retrieveFiles, type RetrievalIndex } from '../localizer/retrieval/retriever.ts';
import { defaultQueries } from '../localizer/retrieval/query.ts';
import { DEFAULT_RETRIEVAL_OPTIONS } from '../localizer/retrieval/options.ts';
import { everyChannelOn, RecordingIndex, ReplayIndex, type IndexRecording } from '../localizer/retrieval/recording-index.ts';
import { DEFAULT_COMMIT_HISTORY, lazyHistorySearch } from '../src/index/commit-history-index.ts';
import { lazyCoChangeSearch } from '../src/index/co-change.ts';
import { benchInput } from './bench-inputs.ts';
import {
  CONFIGS,
  DEFAULT_LABEL,
  EVIDENCE_CONFIGS,
  GRAPH_CONFIGS,
  MEANING_CONFIGS,
  runConfigs,
  LEARNED_LABEL,
  learnedConfigs,
  LADDER_CONFIGS,
  LITERAL_CONFIGS,
  type BenchConfig,
} from './bench-retrieval-configs.ts';
import { chromaPeakRssKb, formatSpeed, fusionTimes, mb, speedSummary, type FusionTimes } from './bench-retrieval-speed.ts';
import { formatMissTable, missTable } from './retrieval-miss-categories.ts';

/** files of the default's ranking written per instance (`rankings`), more than the function level reads */
const RANKING_KEPT = 20;

const DEPTH = { chunk: DEFAULT_RETRIEVAL_OPTIONS.chunkDepth, file: DEFAULT_RETRIEVAL_OPTIONS.fileDepth };

interface InstanceRun {
  id: string;
  gold: string[];
  /** per config label: ranked paths (undefined = failed) */
  rankings: Record<string, string[] | undefined>;
  error?: string;
  /** the language family of the instance's index (scripts/retrieval-languages.ts) */
  language?: string;
  indexMs?: number;
  retrieveMs?: number;
  fusion?: FusionTimes;
  indexTimings?: Record<string, unknown>;
}

function metricsFor(runs: readonly InstanceRun[], label: string, filter: (i: number) => boolean = () => true): LocMetrics {
  return metricsSummary(computeLocMetrics(runs.filter((_, i) => filter(i)).map((r) => ({ instanceId: r.id, gold: r.gold, ranking: r.rankings[label] }))));
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string' },
      mirrors: { type: 'string' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      record: { type: 'string' },
      replay: { type: 'string' },
      'cache-dir': { type: 'string' },
      embedder: { type: 'string', default: 'lexical' },
      'vector-store': { type: 'string', default: 'chroma' },
      out: { type: 'string', default: 'bench-results/retrieval.json' },
      options: { type: 'string' },
      // HNSW ef_construction of the collections this run creates (default: src/vectorstore/chroma.ts)
      'hnsw-ef': { type: 'string' },
      // also build each commit's code graph (src/index/graph) and evaluate the graph channel
      graph: { type: 'boolean', default: false },
      'ranker-model': { type: 'string' },
      'ranker-ablations': { type: 'string' },
      // commits before the base to learn word associations from: adds the history-meaning configurations (live only)
      history: { type: 'string', default: '0' },
    },
  });
  const historyCommits = Number(values.history);
  if (!(historyCommits >= 0)) throw new Error('--history: a number of commits (0: off)');
  const t0 = performance.now();
  const dataset = await loadDataset(benchInput(values, 'dataset'));
  if (dataset.errors.length) throw new Error(`dataset rows rejected: ${dataset.errors.map((e) => e.message).join('; ')}`);
  const { instances: selected } = selectInstances(dataset.instances, {
    pattern: values.pattern,
    limit: values.limit ? Number(values.limit) : undefined,
  });
  // the even/odd split follows dataset order, independent of processing order
  const positionInDataset = new Map(dataset.instances.map((inst, i) => [inst.instance_id, i]));
  const extra: BenchConfig[] = values.options ? [{ label: 'custom', queries: 'raw+structural', options: JSON.parse(values.options) }] : [];
  const learned = learnedConfigs(values['ranker-model'], values['ranker-ablations']);
  const configs = [
    ...CONFIGS,
    ...LITERAL_CONFIGS,
    ...EVIDENCE_CONFIGS,
    ...LADDER_CONFIGS,
    ...learned,
    ...(values.graph ? GRAPH_CONFIGS : []),
    ...(historyCommits > 0 ? MEANING_CONFIGS : []),
    ...extra,
  ];
  const ordered = groupByRepo(selected);
  const runs: InstanceRun[] = [];
  const perRepo = new Map<string, { coldMs?: number; warmMs: number[]; instances: number; files?: number; chunks?: number }>();

  let chromaState: string | undefined;
  /** learning the history's word associations, per instance (with --history) */
  const meaningMs: number[] = [];
  /** graph build time per instance (with --graph) */
  const graphMs: number[] = [];
  /** parse time per language, over every file parsed (cold and changed files; restored and reused ones are not parsed) */
  const speeds = new Map<string, LanguageSpeed>();
  const notRecorded: string[] = [];
  if (values.replay) {
    // recordings made before the history channel existed get it from the mirrors, as a live run would
    const historyStore = new RepoStore({
      cacheDir: await mkdtemp(path.join(os.tmpdir(), 'locfix-replay-')),
      mirrorsDir: benchInput(values, 'mirrors'),
      allowClone: false,
    });
    for (const inst of ordered) {
      const gold = goldPaths(inst.patch);
      const file = path.join(values.replay, `${safeFileName(inst.instance_id)}.json`);
      let rec: IndexRecording | { error: string };
      try {
        rec = JSON.parse(await readFile(file, 'utf8'));
      } catch {
        // replay covers what was recorded; a live failure is recorded as {error} and still counts below
        notRecorded.push(inst.instance_id);
        continue;
      }
      if ('error' in rec) {
        runs.push({ id: inst.instance_id, gold, rankings: {}, error: rec.error });
        continue;
      }
      const history = rec.history ? undefined : lazyHistorySearch(await historyStore.snapshot(inst.repo, inst.base_commit), rec.filePaths);
      // seeds the recording did not search (another path or definition weight names other files): from the mirror
      const coChange = lazyCoChangeSearch(() => historyStore.snapshot(inst.repo, inst.base_commit), rec.filePaths, DEFAULT_COMMIT_HISTORY);
      runs.push({
        id: inst.instance_id,
        gold,
        language: indexLanguage(rec.filePaths),
        rankings: await runConfigs(new ReplayIndex(rec, history, coChange), inst, configs),
      });
    }
    await historyStore.close();
  } else {
    const cacheDir = values['cache-dir'] ? path.resolve(values['cache-dir']) : await mkdtemp(path.join(os.tmpdir(), 'locfix-bench-'));
    if (values.record) await mkdir(values.record, { recursive: true });
    const store = new RepoStore({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), allowClone: false });
    if (values['vector-store'] !== 'chroma' && values['vector-store'] !== 'memory') throw new Error('--vector-store must be chroma or memory');
    // memory: exact cosine in-process, no server; isolates locfix's own indexing cost from Chroma's
    const chroma =
      values['vector-store'] === 'memory'
        ? { store: new MemoryVectorStore(), close: async () => {} }
        : await openChromaStore({ cacheDir, ...(values['hnsw-ef'] ? { hnsw: { efConstruction: Number(values['hnsw-ef']) } } : {}) });
    chromaState = path.join(cacheDir, 'chroma-server.json');
    const embedder = createEmbedder(values.embedder!);
    const parser = timedParser(await defaultFileParser(), speeds);
    try {
      for (const [n, inst] of ordered.entries()) {
        // instances come grouped by repository: a finished repository's parsed files only grow the heap
        // (garbage collection and forking git get slower with it)
        const previous = ordered[n - 1]?.repo;
        if (previous !== undefined && previous !== inst.repo) {
          defaultIndexMemo().forgetRepo(previous);
          store.releaseRepo(previous);
        }
        const gold = goldPaths(inst.patch);
        const repoStats = perRepo.get(inst.repo) ?? { warmMs: [], instances: 0 };
        perRepo.set(inst.repo, repoStats);
        repoStats.instances++;
        const ti = performance.now();
        try {
          const snapshot = await store.snapshot(inst.repo, inst.base_commit);
          const index = await buildRepoIndex(snapshot, { embedder, vectorStore: chroma.store, cacheDir, parser });
          const indexMs = performance.now() - ti;
          if (repoStats.coldMs === undefined) repoStats.coldMs = indexMs;
          else repoStats.warmMs.push(indexMs);
          repoStats.files = index.files.length;
          repoStats.chunks = index.chunks.length;
          // the graph channel is on only with --graph (built here, so its time is measured apart from retrieval)
          let searchable: RetrievalIndex = { ...index, graphNeighbors: undefined };
          if (values.graph) {
            const tg = performance.now();
            await index.graph();
            graphMs.push(performance.now() - tg);
            searchable = index;
          }
          const recording = new RecordingIndex(searchable, DEPTH);
          const meaning = await historyExpansion(snapshot, inst.problem_statement, historyCommits);
          if (historyCommits > 0) meaningMs.push(meaning.ms);
          if (meaning.error) process.stderr.write(`${inst.instance_id}: history unreadable, meaning query left out: ${meaning.error}\n`);
          const tr = performance.now();
          const rankings = await runConfigs(recording, inst, configs, meaning.text);
          const retrieveMs = performance.now() - tr;
          // every channel once on the default queries: the recording replays any weights chosen later (tune:fusion)
          if (values.record) await retrieveFiles(recording, defaultQueries(inst.problem_statement), everyChannelOn());
          const fusion = await fusionTimes(searchable, inst, learned[0]?.options, n);
          runs.push({
            id: inst.instance_id,
            gold,
            rankings,
            language: indexLanguage(index.filePaths),
            indexMs,
            retrieveMs,
            fusion,
            indexTimings: { ...index.timings },
          });
          if (values.record) await writeFile(path.join(values.record, `${safeFileName(inst.instance_id)}.json`), JSON.stringify(recording.recording()));
          const best = rankings[DEFAULT_LABEL];
          const rank = best ? best.findIndex((p) => gold.includes(p)) + 1 : 0;
          process.stderr.write(
            `[${n + 1}/${ordered.length}] ${inst.instance_id} index ${(indexMs / 1000).toFixed(1)}s (${index.timings.filesParsed} files parsed, vector sync ${(index.timings.vectorSyncMs / 1000).toFixed(1)}s) retrieve(${configs.length} configs) ${(retrieveMs / 1000).toFixed(1)}s gold@${rank || '-'}\n`,
          );
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          runs.push({ id: inst.instance_id, gold, rankings: {}, error: message });
          if (values.record) await writeFile(path.join(values.record, `${safeFileName(inst.instance_id)}.json`), JSON.stringify({ error: message }));
          process.stderr.write(`[${n + 1}/${ordered.length}] ${inst.instance_id} FAILED: ${message}\n`);
        }
      }
    } finally {
      const chromaPeak = chromaPeakRssKb(chromaState);
      if (chromaPeak) process.stderr.write(`chroma server peak RSS ${mb(chromaPeak)}\n`);
      await chroma.close();
      await store.close();
      if (!values['cache-dir']) await rm(cacheDir, { recursive: true, force: true });
    }
  }
  const wallMs = performance.now() - t0;

  const even = (i: number): boolean => (positionInDataset.get(runs[i].id) ?? 0) % 2 === 0;
  const odd = (i: number): boolean => !even(i);
  const table = configs.map((c) => ({ label: c.label, metrics: metricsFor(runs, c.label) }));
  const split = configs.flatMap((c) => [
    { label: `${c.label} [even]`, metrics: metricsFor(runs, c.label, even) },
    { label: `${c.label} [odd]`, metrics: metricsFor(runs, c.label, odd) },
  ]);
  const languages = [...new Set(runs.map((r) => r.language ?? 'failed'))].sort();
  const byLanguage = [DEFAULT_LABEL, ...(learned.length ? [LEARNED_LABEL] : [])].flatMap((label) =>
    languages.map((language) => ({
      label: `${label} [${language}]`,
      metrics: metricsFor(runs, label, (i) => (runs[i].language ?? 'failed') === language),
    })),
  );
  // Lite-274 (LocAgent's and SweRank's subset): the runs without the 26 Lite ids LocAgent filters out
  const excluded = new Set(LOCAGENT_EXCLUDED.ids);
  const subsetApplies = runs.some((r) => excluded.has(r.id));
  const lite274 = subsetApplies
    ? configs.map((c) => ({ label: `${c.label} [Lite-274]`, metrics: metricsFor(runs, c.label, (i) => !excluded.has(runs[i].id)) }))
    : [];
  const repoOf = (id: string) => id.slice(0, id.lastIndexOf('-'));
  const repoNames = [...new Set(runs.map((r) => repoOf(r.id)))].sort();
  const byRepo = Object.fromEntries(
    configs.map((c) => [c.label, Object.fromEntries(repoNames.map((repo) => [repo, metricsFor(runs, c.label, (i) => repoOf(runs[i].id) === repo)]))]),
  );
  const peakRssKb = process.resourceUsage().maxRSS;
  const repoRows = [...perRepo.entries()].map(([repo, s]) => ({
    repo,
    instances: s.instances,
    files: s.files,
    chunks: s.chunks,
    coldIndexS: s.coldMs === undefined ? undefined : +(s.coldMs / 1000).toFixed(2),
    warmIndexMeanS: s.warmMs.length ? +(s.warmMs.reduce((a, b) => a + b, 0) / s.warmMs.length / 1000).toFixed(2) : undefined,
    warmIndexMaxS: s.warmMs.length ? +(Math.max(...s.warmMs) / 1000).toFixed(2) : undefined,
  }));
  const perInstanceS = runs.filter((r) => r.indexMs !== undefined).map((r) => (r.indexMs! + (r.retrieveMs ?? 0)) / 1000);

  console.log(formatLocMetricsTable(table));
  console.log('\nheld-out check (tuned on even dataset positions):');
  console.log(formatLocMetricsTable(split.filter((r) => r.label.startsWith(`${DEFAULT_LABEL} [`))));
  if (languages.length > 1) {
    console.log("\nper language (the family of the instance's index):");
    console.log(formatLocMetricsTable(byLanguage));
  }
  if (lite274.length > 0) {
    console.log(`\nLite-274 (without the ${excluded.size} ids LocAgent's eval_metric.py filters; scripts/data/locagent-excluded-ids.json):`);
    console.log(formatLocMetricsTable(lite274));
  }
  // where the default misses, by what the issue names of the gold file (on Lite-274 when the subset applies)
  const issueOf = new Map(selected.map((inst) => [inst.instance_id, inst.problem_statement]));
  const inSubset = runs.filter((r) => !subsetApplies || !excluded.has(r.id));
  const misses = Object.fromEntries(
    [DEFAULT_LABEL, ...(learned.length ? [LEARNED_LABEL] : []), ...(historyCommits > 0 ? MEANING_CONFIGS.map((c) => c.label) : [])].map((label) => [
      label,
      missTable(inSubset.map((r) => ({ issue: issueOf.get(r.id) ?? '', gold: r.gold, ranking: r.rankings[label] }))),
    ]),
  );
  for (const [label, table] of Object.entries(misses)) {
    console.log(`\nmisses by what the issue names, ${label}${subsetApplies ? ' [Lite-274]' : ''}:`);
    console.log(formatMissTable(table));
  }
  const repoLabels = [DEFAULT_LABEL, ...(learned.length ? [LEARNED_LABEL] : []), ...(values.graph ? GRAPH_CONFIGS.map((c) => c.label) : [])];
  for (const label of repoLabels) {
    console.log(`\nper repository, ${label}:`);
    console.log(formatLocMetricsTable(repoNames.map((repo) => ({ label: repo, metrics: byRepo[label]![repo]! }))));
  }
  if (graphMs.length > 0) {
    const sorted = [...graphMs].sort((a, b) => a - b);
    console.log(
      `\ncode graph per instance: median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, max ${(sorted[sorted.length - 1]! / 1000).toFixed(2)} s`,
    );
  }
  if (meaningMs.length > 0) {
    const sorted = [...meaningMs].sort((a, b) => a - b);
    console.log(
      `\nhistory word associations per instance (--history ${historyCommits}): median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s`,
    );
  }
  if (speeds.size > 0) {
    console.log('\nparsing (tree-sitter chunks + definitions, one parse per file) per language:');
    for (const line of formatSpeeds(speeds)) console.log(line);
  }
  if (!values.replay) {
    console.log('\nindex time per repository (cold = first commit, fresh caches; warm = each further commit):');
    for (const r of repoRows)
      console.log(
        `  ${r.repo.padEnd(26)} ${String(r.instances).padStart(3)} inst  ${String(r.files).padStart(5)} files  ${String(r.chunks).padStart(6)} chunks  cold ${r.coldIndexS}s  warm mean ${r.warmIndexMeanS ?? '-'}s max ${r.warmIndexMaxS ?? '-'}s`,
      );
  }
  const speed = speedSummary(runs);
  if (speed) console.log(`\n${formatSpeed(speed)}`);
  if (notRecorded.length) console.log(`\nreplay: ${notRecorded.length} selected instances have no recording and are left out`);
  console.log(
    `\n${runs.length} instances, ${runs.filter((r) => r.error).length} failed; wall time ${(wallMs / 1000).toFixed(0)} s; peak RSS (node) ${mb(peakRssKb)}`,
  );
  await mkdir(path.dirname(path.resolve(values.out!)), { recursive: true });
  await writeJsonAtomic(path.resolve(values.out!), {
    command: `npm run bench:retrieval -- ${process.argv.slice(2).join(' ')}`.trim(),
    mode: values.replay ? 'replay' : 'live',
    instances: runs.length,
    notRecorded,
    failed: runs.filter((r) => r.error).map((r) => ({ id: r.id, error: r.error })),
    wallSeconds: +(wallMs / 1000).toFixed(1),
    peakRssMbNode: +(peakRssKb / 1024).toFixed(0),
    metrics: Object.fromEntries(table.map((r) => [r.label, r.metrics])),
    heldOut: Object.fromEntries(split.map((r) => [r.label, r.metrics])),
    byLanguage: Object.fromEntries(byLanguage.map((r) => [r.label, r.metrics])),
    lite274: Object.fromEntries(lite274.map((r) => [r.label, r.metrics])),
    misses,
    byRepo,
    parseSpeed: speedsRecord(speeds),
    languages: Object.fromEntries(runs.map((r) => [r.id, r.language ?? null])),
    repos: repoRows,
    nextInstanceSpeed: speed,
    perInstanceSeconds: perInstanceS.length
      ? { mean: +(perInstanceS.reduce((a, b) => a + b, 0) / perInstanceS.length).toFixed(2), max: +Math.max(...perInstanceS).toFixed(2) }
      : undefined,
    defaults: DEFAULT_RETRIEVAL_OPTIONS,
    indexTimings: Object.fromEntries(runs.filter((r) => r.indexTimings).map((r) => [r.id, r.indexTimings])),
    ranks: Object.fromEntries(
      runs.map((r) => [r.id, r.rankings[DEFAULT_LABEL] ? r.rankings[DEFAULT_LABEL]!.findIndex((p) => r.gold.includes(p)) + 1 || null : null]),
    ),
    // every configuration's rank of the first gold file per instance, for paired comparisons
    ranksByConfig: Object.fromEntries(
      configs.map((c) => [
        c.label,
        Object.fromEntries(runs.map((r) => [r.id, r.rankings[c.label] ? r.rankings[c.label]!.findIndex((p) => r.gold.includes(p)) + 1 || null : null])),
      ]),
    ),
    // the default's first files per instance: the input of the function level's benchmark (bench-functions.ts)
    rankings: Object.fromEntries(runs.map((r) => [r.id, r.rankings[DEFAULT_LABEL]?.slice(0, RANKING_KEPT) ?? null])),
  });
}

await main();
