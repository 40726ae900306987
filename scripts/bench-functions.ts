/**
 * Function-level localization without a model (localizer/function-ranking/), measured as LocAgent's and
 * SweRank's tables measure it: Acc@5, Acc@10 (every gold function in the top k) and MRR, gold = the functions,
 * methods and classes the gold patch edits (`path:Class.method`, a constructor counted as its class).
 *
 *   npm run bench:functions -- --dataset FILE --files RETRIEVAL.json [--mirrors DIR] [--subset EXCLUDED.json]
 *                              [--top-files N] [--weights JSON] [--history COMMITS] [--features OUT.json] [--out FILE]
 *   npm run bench:functions -- --scored F.json [--weights JSON] [--top-files N] [--subset EXCLUDED.json]
 *   npm run bench:functions -- --tune F1.json,F2.json [--top-files N] [--only CHANNEL] [--off CHANNEL,…]
 *
 * `--files` is a `npm run bench:retrieval -- --out` result: its file rankings (the default configuration's
 * first 20 files) are the function level's input, as the pipeline hands the file level's ranking on. The first mode
 * computes every candidate's channels once (`--features` keeps them) and reports the weights given (the shipped
 * default without `--weights`), each channel left out, and each alone. `--tune` searches the weights over the
 * features of development sets and prints the best by mean Acc@5 + Acc@10 + MRR, per set and pooled, and each set
 * scored with weights chosen on the others (out of fold); it never
 * reads evaluation data unless given it, and the weights it prints are chosen on what it was given.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { modifiedExistingFiles } from '../src/patch.ts';
import { RepoStore } from '../src/repo/store.ts';
import { groupByRepo } from '../src/run/repo-release.ts';
import { goldLocations } from '../localizer/oracle/gold-locations.ts';
import { candidateFiles } from '../localizer/function-ranking/candidates.ts';
import { historyExpansion } from '../src/index/word-associations.ts';
import { elementKey, goldElementKeys } from '../localizer/function-ranking/elements.ts';
import { elementMetrics, type ElementMetrics } from '../localizer/function-ranking/metrics.ts';
import { DEFAULT_ELEMENT_WEIGHTS, DEFAULT_FUNCTION_TOP_FILES } from '../localizer/function-ranking/options.ts';
import { ELEMENT_CHANNELS, elementChannels, goldPlaces, type ElementChannel, type ElementWeights } from '../localizer/function-ranking/rank.ts';
import { benchInput } from './bench-inputs.ts';
import { seededRandom } from '../results/statistics.ts';

/** One instance's gold and every candidate's channels: what any weighting needs, computed once. */
export interface InstanceFeatures {
  id: string;
  repo: string;
  gold: string[];
  goldFiles: string[];
  /** undefined when the instance could not be read (its error is kept) */
  candidates?: Array<{ key: string; fileRank: number; channels: Record<ElementChannel, number> }>;
  error?: string;
  ms?: number;
  /** of `ms`, learning the history's word associations (0: off) */
  historyMs?: number;
  /** the identifiers the history associates with the issue's words (`--history`) */
  expansion?: string;
  /** why the history could not be read (the channel left out for this instance) */
  historyError?: string;
}

interface FeatureFile {
  dataset: string;
  topFiles: number;
  instances: InstanceFeatures[];
}

async function featuresOf(
  store: RepoStore,
  inst: SweInstance,
  ranking: readonly string[] | undefined,
  topFiles: number,
  historyCommits: number,
): Promise<InstanceFeatures> {
  const t0 = performance.now();
  const snapshot = await store.snapshot(inst.repo, inst.base_commit);
  const goldPaths = modifiedExistingFiles(inst.patch);
  const goldSources = goldPaths.length ? await snapshot.readFiles(goldPaths) : new Map<string, string>();
  const gold = goldLocations(inst.patch, (p) => goldSources.get(p));
  const base = { id: inst.instance_id, repo: inst.repo, gold: goldElementKeys(gold.elements), goldFiles: gold.files.map((f) => f.path) };
  if (!ranking) return { ...base, error: 'no file ranking' };
  const { files } = await candidateFiles(snapshot, ranking, topFiles);
  const expansion = await historyExpansion(snapshot, inst.problem_statement, historyCommits);
  const candidates = elementChannels(inst.problem_statement, files, { expansion: expansion.text, changes: expansion.changes }).map((e) => ({
    key: elementKey(e.path, e.name),
    fileRank: e.fileRank,
    channels: e.channels,
  }));
  return {
    ...base,
    candidates,
    ms: performance.now() - t0,
    historyMs: expansion.ms,
    ...(expansion.text !== undefined ? { expansion: expansion.text } : {}),
    ...(expansion.error ? { historyError: expansion.error } : {}),
  };
}

/** The metrics of one weighting over features, the candidates cut to the first `topFiles` files. */
export function scoreFeatures(instances: readonly InstanceFeatures[], weights: ElementWeights, topFiles: number): ElementMetrics {
  return elementMetrics(
    instances.map((i) => ({
      instanceId: i.id,
      gold: i.gold,
      ranking: i.candidates
        ? goldPlaces(
            i.candidates.filter((c) => c.fileRank < topFiles),
            i.gold,
            weights,
          )
        : undefined,
    })),
  );
}

function fmt(m: ElementMetrics): string {
  return `${m.acc[1]!.toFixed(3)} / ${m.acc[5]!.toFixed(3)} / ${m.acc[10]!.toFixed(3)}, MRR ${m.mrr.toFixed(3)} (n=${m.instances})`;
}

function objective(m: ElementMetrics): number {
  return m.acc[5]! + m.acc[10]! + m.mrr;
}

function report(instances: readonly InstanceFeatures[], weights: ElementWeights, topFiles: number): Record<string, ElementMetrics> {
  const rows: Record<string, ElementMetrics> = { given: scoreFeatures(instances, weights, topFiles) };
  for (const c of ELEMENT_CHANNELS) rows[`without ${c}`] = scoreFeatures(instances, { ...weights, [c]: 0 }, topFiles);
  for (const c of ELEMENT_CHANNELS)
    rows[`${c} alone`] = scoreFeatures(instances, { ...Object.fromEntries(ELEMENT_CHANNELS.map((x) => [x, 0])), [c]: 1 } as ElementWeights, topFiles);
  for (const n of [1, 3, 5, 10].filter((n) => n !== topFiles)) rows[`top ${n} files`] = scoreFeatures(instances, weights, n);
  return rows;
}

/** The pooled objective of one weighting: the mean over the sets of Acc@5 + Acc@10 + MRR. */
function pooledScore(
  sets: Record<string, InstanceFeatures[]>,
  weights: ElementWeights,
  topFiles: number,
): { pooled: number; per: Record<string, ElementMetrics> } {
  const per = Object.fromEntries(Object.entries(sets).map(([name, inst]) => [name, scoreFeatures(inst, weights, topFiles)]));
  return { pooled: Object.values(per).reduce((s, m) => s + objective(m), 0) / Object.keys(per).length, per };
}

const STEPS = [0, 0.25, 0.5, 1, 2, 4];

/** Which weights a search may move: `only` one (the others at the default), and never those `off` (held at 0). */
export interface WeightSearch {
  only?: ElementChannel;
  off?: readonly ElementChannel[];
}

/**
 * Coordinate ascent over the weights (lexical held at 1: only ratios matter): from the shipped default and from
 * seeded random starts, two passes of trying each channel at each step and keeping the best; the best of all.
 */
export function chooseWeights(
  sets: Record<string, InstanceFeatures[]>,
  topFiles: number,
  restarts = 6,
  search: WeightSearch = {},
): { weights: ElementWeights; pooled: number } {
  const random = seededRandom(54);
  const off = new Set(search.off ?? []);
  const held = (w: ElementWeights): ElementWeights => ({ ...w, ...Object.fromEntries([...off].map((c) => [c, 0])) });
  const starts: ElementWeights[] = [held({ ...DEFAULT_ELEMENT_WEIGHTS, lexical: 1 })];
  for (let r = 0; r < (search.only ? 0 : restarts); r++)
    starts.push(
      held(Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, c === 'lexical' ? 1 : STEPS[Math.floor(random() * STEPS.length)]!])) as ElementWeights),
    );
  let overall = { weights: starts[0]!, pooled: Number.NEGATIVE_INFINITY };
  for (const start of starts) {
    let weights = start;
    let best = pooledScore(sets, weights, topFiles).pooled;
    for (let pass = 0; pass < 2; pass++)
      for (const channel of ELEMENT_CHANNELS.filter((c) => c !== 'lexical' && !off.has(c) && (!search.only || c === search.only)))
        for (const value of STEPS) {
          const tried = { ...weights, [channel]: value };
          const score = pooledScore(sets, tried, topFiles).pooled;
          if (score > best + 1e-9) [weights, best] = [tried, score];
        }
    if (best > overall.pooled) overall = { weights, pooled: best };
  }
  return overall;
}

/** The weights chosen on every set, and each set scored with weights chosen on the others (out of fold). */
function tune(sets: Record<string, InstanceFeatures[]>, topFilesList: readonly number[], search: WeightSearch): void {
  for (const topFiles of topFilesList) {
    const chosen = chooseWeights(sets, topFiles, 6, search);
    console.log(`${chosen.pooled.toFixed(4)}  top ${topFiles} files  ${JSON.stringify(chosen.weights)}`);
    for (const [name, m] of Object.entries(pooledScore(sets, chosen.weights, topFiles).per))
      console.log(`    in sample   ${name.padEnd(14)} Acc@1/5/10 ${fmt(m)}`);
    if (Object.keys(sets).length < 2) continue;
    for (const held of Object.keys(sets)) {
      const others = Object.fromEntries(Object.entries(sets).filter(([name]) => name !== held));
      const w = chooseWeights(others, topFiles, 6, search).weights;
      console.log(`    out of fold ${held.padEnd(14)} Acc@1/5/10 ${fmt(scoreFeatures(sets[held]!, w, topFiles))}  ${JSON.stringify(w)}`);
    }
  }
}

/** Every instance's features: computed from the dataset, file rankings and mirrors, or read back (`--scored`). */
async function instancesOf(values: Record<string, string | undefined>, topFiles: number): Promise<InstanceFeatures[]> {
  // Lite-274: Lite without the ids LocAgent's evaluation filters (scripts/data/locagent-excluded-ids.json)
  const excluded = new Set<string>(values.subset ? (JSON.parse(readFileSync(values.subset, 'utf8')) as { ids: string[] }).ids : []);
  if (values.scored) return (JSON.parse(readFileSync(values.scored, 'utf8')) as FeatureFile).instances.filter((i) => !excluded.has(i.id));
  const datasetFile = benchInput(values, 'dataset');
  const dataset = await loadDataset(datasetFile);
  if (!values.files) throw new Error('--files: a `npm run bench:retrieval -- --out` result whose rankings to take');
  const retrieval = JSON.parse(readFileSync(values.files, 'utf8')) as { rankings?: Record<string, string[] | null> };
  if (!retrieval.rankings) throw new Error(`${values.files}: no \`rankings\` (made by an older bench:retrieval): run it again`);
  const rankingOf = new Map(Object.entries(retrieval.rankings).map(([id, r]) => [id, r ?? undefined]));
  const rows = dataset.instances.filter((i) => rankingOf.has(i.instance_id) && !excluded.has(i.instance_id));
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'locfix-bench-functions-'));
  const store = new RepoStore({ cacheDir, mirrorsDir: benchInput(values, 'mirrors'), allowClone: false });
  const instances: InstanceFeatures[] = [];
  // the channels are computed over 10 files, the most any row below cuts to
  const featureDepth = Math.max(10, topFiles);
  for (const inst of groupByRepo(rows)) {
    try {
      instances.push(await featuresOf(store, inst, rankingOf.get(inst.instance_id), featureDepth, Number(values.history)));
    } catch (err) {
      instances.push({ id: inst.instance_id, repo: inst.repo, gold: [], goldFiles: [], error: (err as Error).message.split('\n')[0] });
    }
  }
  await store.close();
  rmSync(cacheDir, { recursive: true, force: true });
  if (values.features) writeFileSync(values.features, JSON.stringify({ dataset: datasetFile, topFiles: featureDepth, instances } satisfies FeatureFile));
  return instances;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dataset: { type: 'string' },
      files: { type: 'string' },
      mirrors: { type: 'string' },
      'top-files': { type: 'string' },
      weights: { type: 'string' },
      features: { type: 'string' },
      tune: { type: 'string' },
      subset: { type: 'string' },
      out: { type: 'string' },
      // commits before the base commit to learn word associations from (0: the meaning channel off)
      history: { type: 'string', default: '0' },
      // score the features a run kept (--features) with --weights, instead of computing them again
      scored: { type: 'string' },
      // with --tune: choose this channel's weight alone, the others at the shipped default (an ablation)
      only: { type: 'string' },
      // with --tune: channels held at 0 (an ablation of a group, e.g. the history's: meaning,similar,churn)
      off: { type: 'string' },
    },
  });
  const topFiles = values['top-files'] ? Number(values['top-files']) : DEFAULT_FUNCTION_TOP_FILES;
  if (values.tune) {
    const sets = Object.fromEntries(
      values.tune.split(',').map((f) => [path.basename(f, '.json'), (JSON.parse(readFileSync(f, 'utf8')) as FeatureFile).instances]),
    );
    const channel = (name: string, flag: string): ElementChannel => {
      if (!(ELEMENT_CHANNELS as readonly string[]).includes(name)) throw new Error(`${flag}: one of ${ELEMENT_CHANNELS.join(', ')}, got "${name}"`);
      return name as ElementChannel;
    };
    const search: WeightSearch = {
      ...(values.only ? { only: channel(values.only, '--only') } : {}),
      ...(values.off ? { off: values.off.split(',').map((c) => channel(c, '--off')) } : {}),
    };
    tune(sets, values['top-files'] ? [topFiles] : [3, 5, 10], search);
    return;
  }
  const weights: ElementWeights = values.weights ? { ...DEFAULT_ELEMENT_WEIGHTS, ...JSON.parse(values.weights) } : DEFAULT_ELEMENT_WEIGHTS;
  const instances = await instancesOf(values, topFiles);
  const failed = instances.filter((i) => i.error);
  const noGold = instances.filter((i) => !i.error && i.gold.length === 0).length;
  console.log(
    `${instances.length} rows, ${failed.length} failed${failed.length ? ` (${failed[0]!.error})` : ''}, ${noGold} with no function-level gold (module-level edits only: not counted)`,
  );
  const rowsOut = report(instances, weights, topFiles);
  console.log(`weights ${JSON.stringify(weights)}, top ${topFiles} files; Acc@1 / Acc@5 / Acc@10, MRR:`);
  for (const [name, m] of Object.entries(rowsOut)) console.log(`  ${name.padEnd(18)} ${fmt(m)}`);
  const perRepo = new Map<string, InstanceFeatures[]>();
  for (const i of instances) perRepo.set(i.repo, [...(perRepo.get(i.repo) ?? []), i]);
  console.log('per repository (given weights):');
  for (const [repo, list] of [...perRepo].sort()) console.log(`  ${repo.padEnd(32)} ${fmt(scoreFeatures(list, weights, topFiles))}`);
  const ms = instances.flatMap((i) => (i.ms !== undefined ? [i.ms] : [])).sort((a, b) => a - b);
  const historyMs = instances.flatMap((i) => (i.historyMs !== undefined ? [i.historyMs] : [])).sort((a, b) => a - b);
  console.log(
    `per instance (read, parse up to ${Math.max(10, topFiles)} files, channels): median ${ms[Math.floor(ms.length / 2)]?.toFixed(0)} ms, of which history ${historyMs[Math.floor(historyMs.length / 2)]?.toFixed(0)} ms`,
  );
  if (values.out) writeFileSync(values.out, JSON.stringify({ weights, topFiles, rows: rowsOut }, null, 2));
}

await main();
