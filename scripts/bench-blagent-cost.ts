/**
 * BLAgent cost benchmark on real SWE-bench Lite instances with a scripted model (no real LLM):
 *
 *   npm run bench:blagent-cost -- [--dataset FILE] [--mirrors DIR] [--every 6] [--limit N] [--pattern P]
 *                                 [--cache-dir DIR] [--configs paper,m10,...] [--out FILE]
 *                                 [--record DIR [--skip-recorded] | --replay DIR] [--part K/N]
 *
 * `--merge a.json,b.json` prints the summary of several earlier outputs (e.g. parallel live parts) together.
 *
 * `--part K/N` takes the K-th of N contiguous slices of the selection (grouped by repository), so several
 * live runs can index in parallel (each with its own --cache-dir); `--skip-recorded` leaves out instances
 * whose recording exists.
 *
 * The scripted model (test/blagent/scripted-policy.ts) follows a fixed policy: T0 = the model-free
 * structural query, T1 = the issue's first 60 words, Phase 1 inspects the top 5 skeletons and scores them
 * by retrieval order, EAR returns the order it is given. So prompt tokens are what locfix's prompts cost
 * on real repositories; completion tokens are the policy's short answers (a real model adds reasoning).
 *
 * Per instance the repository index is built first (timed apart: "warm indexes" for the localizer), then
 * each configuration runs. Overhead = the localizer's wall time minus the time spent waiting for model
 * calls (HTTP round trips to the in-process server included in the latter).
 *
 * Indexing real repositories dominates the wall time, so a live run keeps each instance's searches
 * (`--record DIR`, retrieval's RecordingIndex); `--replay DIR` reruns every configuration from them in
 * seconds per instance — same retrieval results, so same prompts and token counts. Overhead is only
 * meaningful in live runs (replayed searches cost nothing).
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import { selectInstances } from '../src/dataset/select.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { createChatModel } from '../src/llm/factory.ts';
import { Services } from '../app/services.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { groupByRepo } from '../src/run/repo-release.ts';
import { BlagentLocalizer } from '../localizer/blagent/index.ts';
import type { BlagentOptions } from '../localizer/blagent/options.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import { RecordingIndex, ReplayIndex, type IndexRecording } from '../localizer/retrieval/recording-index.ts';
import { lazyHistorySearch } from '../src/index/commit-history-index.ts';
import { DEFAULT_RETRIEVAL_OPTIONS } from '../localizer/retrieval/options.ts';
import type { RetrievalIndex } from '../localizer/retrieval/retriever.ts';
import type { RepoIndex } from '../src/index/types.ts';
import { safeFileName } from '../src/util/fsx.ts';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { ScriptedModelServer } from '../test/support/scripted-model-server.ts';
import { blagentPolicy } from '../test/blagent/scripted-policy.ts';
import { benchInput } from './bench-inputs.ts';

const CONFIGS: Record<string, { label: string; options: BlagentOptions }> = {
  paper: { label: 'paper settings (pool 15, M=5, 5 anchors), locfix defaults: notes history, skeletons ≤ 3k, EAR ≤ 16k', options: {} },
  full: {
    label: 'paper settings, full ReAct history, skeletons ≤ 8k, EAR ≤ 40k (the earlier defaults)',
    options: { phase1History: 'full', skeletonMaxTokens: 8000, earTokenBudget: 40000 },
  },
  outline: { label: 'paper settings, older skeletons cut to outlines in the Phase 1 history', options: { phase1History: 'outline' } },
  fullHistory: { label: 'paper settings, full ReAct history (budgets as default)', options: { phase1History: 'full' } },
  ear40k: { label: 'paper settings, EAR budget 40k (no EAR shrinking in practice)', options: { earTokenBudget: 40000 } },
  m10: { label: 'M=10 (reference implementation)', options: { earFiles: 10 } },
  m10ear40k: { label: 'M=10, EAR budget 40k', options: { earFiles: 10, earTokenBudget: 40000 } },
  pool20: { label: 'pool 20, M=10', options: { poolCap: 20, earFiles: 10 } },
  assign5: { label: 'paper settings, EAR assignments over 5 lines shown by their first line', options: { earAssignmentLines: 5 } },
};

const PHASES = ['T0', 'T1', 'phase1', 'phase2'] as const;

interface InstanceCost {
  id: string;
  repo: string;
  indexMs: number;
  ok: boolean;
  error?: string;
  prompt: Record<string, number>;
  completion: Record<string, number>;
  calls: number;
  /** CPU time of this process during the localization (includes the in-process scripted server's token counting) */
  cpuMs?: number;
  totalMs: number;
  modelMs: number;
  overheadMs: number;
  phaseMs: Record<string, number>;
  poolSize: number;
  fallbacks: string[];
  goldRank: number;
}

function tokensByPhase(loc: FileLocalization): { prompt: Record<string, number>; completion: Record<string, number> } {
  const prompt: Record<string, number> = { T0: 0, T1: 0, phase1: 0, phase2: 0, total: 0 };
  const completion: Record<string, number> = { ...prompt };
  for (const e of loc.trace) {
    if (e.type !== 'llm' || !e.trace.response) continue;
    prompt[e.step] = (prompt[e.step] ?? 0) + e.trace.response.usage.promptTokens;
    completion[e.step] = (completion[e.step] ?? 0) + e.trace.response.usage.completionTokens;
    prompt.total! += e.trace.response.usage.promptTokens;
    completion.total! += e.trace.response.usage.completionTokens;
  }
  return { prompt, completion };
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
function median(xs: number[]): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
function p90(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.9))] ?? NaN;
}
const fmt = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');

/** The row of an instance whose localization (or indexing) failed: it counts, with nothing spent. */
function failedCost(instance: SweInstance, indexMs: number, error: string): InstanceCost {
  return {
    id: instance.instance_id,
    repo: instance.repo,
    indexMs,
    ok: false,
    error,
    prompt: {},
    completion: {},
    calls: 0,
    totalMs: 0,
    modelMs: 0,
    overheadMs: 0,
    phaseMs: {},
    poolSize: 0,
    fallbacks: [],
    goldRank: 0,
  };
}

function summarize(label: string, rows: InstanceCost[]): string {
  const ok = rows.filter((r) => r.ok);
  const lines = [
    `### ${label}`,
    '',
    `${ok.length} of ${rows.length} instances ok.`,
    '',
    '| tokens per instance | T0 | T1 | Phase 1 | Phase 2 (EAR) | total |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const kind of ['prompt', 'completion'] as const) {
    for (const [stat, f] of [
      ['mean', mean],
      ['median', median],
    ] as const) {
      lines.push(`| ${kind} ${stat} | ${[...PHASES, 'total'].map((p) => fmt(f(ok.map((r) => r[kind][p] ?? 0)))).join(' | ')} |`);
    }
  }
  lines.push(`| prompt p90 | ${[...PHASES, 'total'].map((p) => fmt(p90(ok.map((r) => r.prompt[p] ?? 0)))).join(' | ')} |`);
  lines.push('');
  lines.push('| per instance | mean | median | p90 | max |', '|---|---:|---:|---:|---:|');
  for (const [name, pick] of [
    ['locfix overhead (wall − model), ms', (r: InstanceCost) => r.overheadMs],
    ['  of which retrieval, ms', (r: InstanceCost) => r.phaseMs.retrieval ?? 0],
    ['  of which index lookup (warm), ms', (r: InstanceCost) => r.phaseMs.index ?? 0],
    ['process CPU during the localization (incl. scripted server), ms', (r: InstanceCost) => r.cpuMs ?? NaN],
    ['model wait (scripted server), ms', (r: InstanceCost) => r.modelMs],
    ['LLM calls', (r: InstanceCost) => r.calls],
    ['pool size', (r: InstanceCost) => r.poolSize],
  ] as const) {
    const xs = ok.map(pick);
    lines.push(`| ${name} | ${fmt(mean(xs))} | ${fmt(median(xs))} | ${fmt(p90(xs))} | ${fmt(Math.max(...xs))} |`);
  }
  const hit = (k: number): string => `${((ok.filter((r) => r.goldRank > 0 && r.goldRank <= k).length / Math.max(1, ok.length)) * 100).toFixed(1)}%`;
  const fallbacks = ok.flatMap((r) => r.fallbacks);
  lines.push(
    '',
    `Sanity (the policy only keeps retrieval order, so this is the T0/T1 retrieval's accuracy): Acc@1 ${hit(1)}, Acc@5 ${hit(5)}, Acc@10 ${hit(10)}. Fall backs: ${fallbacks.length ? fallbacks.join('; ') : 'none'}.`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string' },
      mirrors: { type: 'string' },
      every: { type: 'string', default: '6' },
      limit: { type: 'string' },
      pattern: { type: 'string' },
      'cache-dir': { type: 'string', default: path.join(os.tmpdir(), 'locfix-bench-blagent') },
      configs: { type: 'string', default: 'paper,full,m10' },
      out: { type: 'string', default: 'bench-results/blagent-cost.json' },
      record: { type: 'string' },
      replay: { type: 'string' },
      part: { type: 'string' },
      'skip-recorded': { type: 'boolean', default: false },
      merge: { type: 'string' },
      inspect: { type: 'string', default: '5' },
    },
  });
  if (values.merge) {
    const merged: Record<string, InstanceCost[]> = {};
    const labels: Record<string, string> = {};
    for (const file of values.merge.split(',')) {
      const data = JSON.parse(await readFile(file.trim(), 'utf8')) as { results: Record<string, InstanceCost[]>; configs: Record<string, { label: string }> };
      for (const [c, rows] of Object.entries(data.results)) {
        (merged[c] ??= []).push(...rows);
        labels[c] = data.configs[c]?.label ?? c;
      }
    }
    const indexTimes = Object.values(merged)[0]?.map((r) => r.indexMs) ?? [];
    process.stdout.write(
      [
        `${Object.values(merged)[0]?.length ?? 0} instances merged from ${values.merge}.`,
        `Index build before the localizer (not in the overhead): mean ${fmt(mean(indexTimes))} ms, median ${fmt(median(indexTimes))} ms, max ${fmt(Math.max(...indexTimes))} ms.`,
        ...Object.entries(merged).map(([c, rows]) => summarize(labels[c]!, rows)),
      ].join('\n\n') + '\n',
    );
    return;
  }
  const dataset = await loadDataset(benchInput(values, 'dataset'));
  if (dataset.errors.length) throw new Error(`dataset rows rejected: ${dataset.errors.map((e) => e.message).join('; ')}`);
  const every = Number(values.every);
  if (!Number.isInteger(every) || every < 1) throw new Error(`--every must be a positive integer, got ${values.every}`);
  const spread = dataset.instances.filter((_, i) => i % every === 0);
  let { instances } = selectInstances(spread, { pattern: values.pattern, limit: values.limit ? Number(values.limit) : undefined });
  instances = groupByRepo(instances);
  if (values.part) {
    const m = /^(\d+)\/(\d+)$/.exec(values.part);
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) throw new Error(`--part must look like K/N with 1 <= K <= N, got ${values.part}`);
    const [k, parts] = [Number(m[1]), Number(m[2])];
    const size = Math.ceil(instances.length / parts);
    instances = instances.slice((k - 1) * size, k * size);
  }
  if (values['skip-recorded'] && values.record) {
    const recorded = new Set((await readdir(values.record).catch(() => [] as string[])).map((f) => f.replace(/\.json$/, '')));
    instances = instances.filter((i) => !recorded.has(safeFileName(i.instance_id)));
  }
  const configNames = values.configs!.split(',').map((c) => c.trim());
  for (const c of configNames) if (!CONFIGS[c]) throw new Error(`unknown config "${c}"; known: ${Object.keys(CONFIGS).join(', ')}`);

  const inspect = Number(values.inspect);
  if (!Number.isInteger(inspect) || inspect < 0) throw new Error(`--inspect must be an integer >= 0, got ${values.inspect}`);
  const server = new ScriptedModelServer({ name: 'blagent-fixed-policy', policy: blagentPolicy({ inspect }) });
  await server.start();
  const llm = createChatModel({ model: `openai:scripted@${server.openaiURL}` });
  const services = new Services({ cacheDir: path.resolve(values['cache-dir']!), mirrorsDir: benchInput(values, 'mirrors'), embedder: 'lexical' });
  const results: Record<string, InstanceCost[]> = Object.fromEntries(configNames.map((c) => [c, []]));
  const localizers = Object.fromEntries(configNames.map((c) => [c, new BlagentLocalizer(CONFIGS[c]!.options as Record<string, unknown>)]));
  const started = performance.now();
  try {
    for (const [n, instance] of instances.entries()) {
      const gold = goldPaths(instance.patch);
      let indexMs = 0;
      try {
        const snapshot = await services.snapshot(instance.repo, instance.base_commit);
        const t0 = performance.now();
        let retrievalIndex: RetrievalIndex;
        let recording: RecordingIndex | undefined;
        if (values.replay) {
          const rec = JSON.parse(await readFile(path.join(values.replay, `${safeFileName(instance.instance_id)}.json`), 'utf8')) as IndexRecording;
          // recordings made before the history channel existed: history comes from the mirror, as live
          retrievalIndex = new ReplayIndex(rec, lazyHistorySearch(snapshot, rec.filePaths));
        } else {
          const live = await services.index(snapshot);
          recording = new RecordingIndex(live, { chunk: DEFAULT_RETRIEVAL_OPTIONS.chunkDepth, file: DEFAULT_RETRIEVAL_OPTIONS.fileDepth });
          retrievalIndex = recording;
        }
        indexMs = performance.now() - t0;
        // the file-level localizer needs only the retrieval part of the index (definitions: function level)
        const index = Object.assign(Object.create(retrievalIndex) as object, { definitionsInFile: () => [] }) as unknown as RepoIndex;
        const line: string[] = [];
        for (const c of configNames) {
          server.reset();
          try {
            const cpu0 = process.cpuUsage();
            const loc = await localizers[c]!.localize({ instance, snapshot, index: async () => index, llm });
            const cpu = process.cpuUsage(cpu0);
            const tokens = tokensByPhase(loc);
            const pool = (loc.trace.find((e) => e.type === 'note' && e.step === 'retrieval') as { data: { pool: string[] } } | undefined)?.data.pool ?? [];
            const fallbacks = loc.trace.flatMap((e) =>
              e.type === 'note' && /fell back|kept the Phase 1 order/.test(e.message) ? [`${instance.instance_id}: ${e.message}`] : [],
            );
            const cost: InstanceCost = {
              id: instance.instance_id,
              repo: instance.repo,
              indexMs,
              ok: true,
              ...tokens,
              calls: loc.usage.calls,
              cpuMs: (cpu.user + cpu.system) / 1000,
              totalMs: loc.timingsMs.total!,
              modelMs: loc.timingsMs.model!,
              overheadMs: loc.timingsMs.overhead!,
              phaseMs: loc.timingsMs,
              poolSize: pool.length,
              fallbacks,
              goldRank: loc.files.findIndex((f) => gold.includes(f.path)) + 1,
            };
            results[c]!.push(cost);
            line.push(`${c}: ${fmt(tokens.prompt.total!)} prompt tok, overhead ${fmt(cost.overheadMs)} ms, gold@${cost.goldRank || '-'}`);
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            results[c]!.push(failedCost(instance, indexMs, message));
            line.push(`${c}: FAILED ${message}`);
          }
        }
        if (recording && values.record) {
          await mkdir(values.record, { recursive: true });
          await writeFile(path.join(values.record, `${safeFileName(instance.instance_id)}.json`), JSON.stringify(recording.recording()));
        }
        process.stderr.write(`[${n + 1}/${instances.length}] ${instance.instance_id} index ${(indexMs / 1000).toFixed(1)}s | ${line.join(' | ')}\n`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        for (const c of configNames) results[c]!.push(failedCost(instance, indexMs, message));
        process.stderr.write(`[${n + 1}/${instances.length}] ${instance.instance_id} FAILED: ${message}\n`);
      }
    }
  } finally {
    await services.close();
    await server.stop();
  }
  const wallS = (performance.now() - started) / 1000;
  const indexTimes = results[configNames[0]!]!.map((r) => r.indexMs);
  const report = [
    `Scripted policy: inspect the top ${inspect} skeletons.`,
    `${instances.length} SWE-bench Lite instances (every ${every}th of ${dataset.instances.length}), ${new Set(instances.map((i) => i.repo)).size} repositories; wall ${wallS.toFixed(0)} s; ${values.replay ? `searches replayed from ${values.replay} (overhead not meaningful)` : 'live index'}.`,
    `Index build before the localizer (not in the overhead): mean ${fmt(mean(indexTimes))} ms, median ${fmt(median(indexTimes))} ms, max ${fmt(Math.max(...indexTimes))} ms.`,
    '',
    ...configNames.map((c) => summarize(CONFIGS[c]!.label, results[c]!)),
  ].join('\n\n');
  process.stdout.write(`${report}\n`);
  await writeJsonAtomic(path.resolve(values.out!), {
    createdAt: new Date().toISOString(),
    instances: instances.map((i) => i.instance_id),
    configs: Object.fromEntries(configNames.map((c) => [c, CONFIGS[c]])),
    results,
    report,
  });
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
