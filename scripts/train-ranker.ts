/**
 * Trains the learned file ranker (issue 34) on mined pairs whose searches `npm run ranker:record` recorded, and
 * writes the model file `--fusion learned` reads.
 *
 *   npm run ranker:train -- --pairs-dir DIR [--dev DATASET --dev-recordings DIR] [--out models/file-ranker.json]
 *                           [--drop-group text|history|structure|quoted|fusion|path|file|query …] [--grid quick|full|monotone]
 *                           [--params JSON]
 *   npm run ranker:train -- --issues DATASET=RECORDINGS … [--pairs-dir DIR --pairs-weights 0,0.1,0.3,1] [--folds 6]
 *                           [--grid issues|shallow|quick] [--drop-group …] [--params JSON] [--out FILE]
 *
 * With `--issues` (issue 44) the ranker learns from real issues: development rows and the searches
 * `bench:retrieval --record` kept for them. Tuning is cross-validation grouped by repository (scripts/ranker/
 * issue-training.ts): each grid point, tree count and pair weight is judged by the out-of-fold Top-1/3/5 over every
 * row, and the final model is trained with the best on every row (and the pairs, at their chosen weight).
 *
 * Tuning never sees SWE-bench Lite: a fifth of the pairs (by commit hash) is held out, and the Multilingual
 * development rows (`--dev`, with the recordings `bench:retrieval --record` made of them) are the other check.
 * Each grid point is judged on both (the mean of Acc@1, @3 and @5, the two sets weighted alike), the best tree
 * count is read off every 10 trees, and the final model is trained with that choice on every pair. Nothing is
 * random, and the model file carries no time: the same recordings give the same file byte for byte.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { safeFileName } from '../src/util/fsx.ts';
import { computeLocMetrics, metricsSummary, type LocMetrics } from '../results/loc-metrics.ts';
import { reorder } from '../localizer/retrieval/learned/rerank.ts';
import { defaultQueries } from '../localizer/retrieval/query.ts';
import type { IndexRecording } from '../localizer/retrieval/recording-index.ts';
import { FEATURES, FEATURE_NAMES, FEATURE_SET_VERSION, type FeatureGroup } from '../localizer/retrieval/learned/features.ts';
import { DEFAULT_LAMBDAMART, trainLambdaMart, type LambdaMartParams } from './ranker/lambdamart.ts';
import { MODEL_FORMAT, MODEL_VERSION, treeScore, type RankerModel, type RankerTree } from '../localizer/retrieval/learned/model.ts';
import { parseRecordedPair, type RecordedPair } from './ranker/pair-recordings.ts';
import { DEFAULT_CANDIDATES, examplesHash, project, rankingExample, trainingCommand, writeModelFile, type RankingExample } from './ranker/training.ts';
import { trainOnIssues } from './ranker/train-on-issues.ts';

const { values } = parseArgs({
  options: {
    'pairs-dir': { type: 'string' },
    issues: { type: 'string', multiple: true, default: [] },
    'pairs-weights': { type: 'string' },
    folds: { type: 'string', default: '6' },
    dev: { type: 'string' },
    'dev-recordings': { type: 'string' },
    out: { type: 'string', default: 'models/file-ranker.json' },
    'drop-group': { type: 'string', multiple: true, default: [] },
    // default: 'full' with mined pairs only, 'issues' with --issues
    grid: { type: 'string' },
    // skip tuning: train on every pair with these parameters (an ablation takes the full model's)
    params: { type: 'string' },
  },
});
if (!values['pairs-dir'] && values.issues!.length === 0)
  throw new Error('usage: npm run ranker:train -- (--issues DATASET=RECORDINGS … | --pairs-dir DIR [--dev DATASET --dev-recordings DIR]) [--out FILE]');
if (Boolean(values.dev) !== Boolean(values['dev-recordings'])) throw new Error('--dev and --dev-recordings go together');
const groups = new Set(FEATURES.map((f) => f.group));
for (const g of values['drop-group']!) if (!groups.has(g as FeatureGroup)) throw new Error(`--drop-group: no feature group "${g}" (${[...groups].join(', ')})`);
const features = FEATURES.filter((f) => !values['drop-group']!.includes(f.group)).map((f) => f.name);
const columns = features.map((f) => FEATURE_NAMES.indexOf(f));

async function pairExamples(dir: string): Promise<{ examples: RankingExample[]; skipped: Record<string, number> }> {
  const examples: RankingExample[] = [];
  const skipped: Record<string, number> = { failed: 0, goldAbsent: 0 };
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    let recorded: RecordedPair;
    try {
      recorded = parseRecordedPair(await readFile(path.join(dir, file), 'utf8'), file);
    } catch {
      skipped.failed!++;
      continue;
    }
    const { pair, recording } = recorded;
    const example = await rankingExample(`${pair.repo}@${pair.commit}`, pair.repo, recording, defaultQueries(pair.query), pair.files, 'present');
    // a pair whose files were all added by its own commit has nothing to find in its parent
    if (example.gold.length === 0) skipped.goldAbsent!++;
    else examples.push(example);
  }
  return { examples, skipped };
}

async function devExamples(datasetFile: string, dir: string): Promise<RankingExample[]> {
  const dataset = await loadDataset(datasetFile);
  const out: RankingExample[] = [];
  for (const inst of dataset.instances) {
    const file = path.join(dir, `${safeFileName(inst.instance_id)}.json`);
    const recording = JSON.parse(await readFile(file, 'utf8')) as IndexRecording | { error: string };
    if ('error' in recording) throw new Error(`${file}: the development row's recording failed: ${recording.error}`);
    out.push(await rankingExample(inst.instance_id, inst.repo, recording, defaultQueries(inst.problem_statement), goldPaths(inst.patch), 'all'));
  }
  return out;
}

/** Metrics of the examples ranked by `score` (one number per candidate row); undefined scores: the weighted order. */
function judge(examples: readonly RankingExample[], score?: (example: RankingExample) => number[]): LocMetrics {
  return metricsSummary(
    computeLocMetrics(
      examples.map((e) => ({
        instanceId: e.id,
        gold: e.gold,
        ranking: score
          ? reorder(
              e.weighted.map((path) => ({ path, score: 0 })),
              score(e),
            ).map((f) => f.path)
          : e.weighted,
      })),
    ),
  );
}

/** a fifth of the pairs, chosen by commit hash: the held-out check while tuning */
const heldOut = (e: RankingExample) => Number.parseInt(createHash('sha256').update(e.id).digest('hex').slice(0, 8), 16) % 5 === 0;

const objective = (m: LocMetrics) => (m.acc1 + m.acc3 + m.acc5) / 3;
const fmt = (m: LocMetrics) => `${m.acc1.toFixed(3)}/${m.acc3.toFixed(3)}/${m.acc5.toFixed(3)}`;

/** the column of the weighted fusion's score, which the trees may start from (absent when an ablation drops it) */
const baseColumn = features.indexOf('fused.score');
const baseOf = (rows: readonly Float64Array[], scale: number) => rows.map((r) => (baseColumn < 0 ? 0 : scale * r[baseColumn]!));

function scorer(trees: readonly RankerTree[], scale: number): (e: RankingExample) => number[] {
  return (e) => {
    const rows = project(e.rows, columns);
    const base = baseOf(rows, scale);
    return rows.map((row, i) => trees.reduce((s, t) => s + treeScore(t, row), base[i]!));
  };
}

/** Issue 34's training: mined pairs, a fifth held out, the Multilingual development rows as the second check. */
async function trainOnPairs(pairsDir: string): Promise<void> {
  const t0 = performance.now();
  const { examples: pairs, skipped } = await pairExamples(pairsDir);
  const dev = values.dev ? await devExamples(values.dev, values['dev-recordings']!) : [];
  if (pairs.length === 0) {
    throw new Error(`${pairsDir}: no recorded pair with a file to find (${skipped.failed} unreadable or failed recordings); run npm run ranker:record first`);
  }
  const train = pairs.filter((e) => !heldOut(e));
  const valid = pairs.filter(heldOut);
  /** `monotone` 1: more evidence for a file may never lower its score (a constraint that carries from commit messages to issues) */
  type TrainParams = Omit<LambdaMartParams, 'monotone'> & { baseScale: number; monotone: 0 | 1 };
  const increasing = FEATURES.filter((f) => f.increasing && features.includes(f.name)).map((f) => f.name);
  const lambdaParams = (p: TrainParams): LambdaMartParams => ({
    ...p,
    monotone: p.monotone ? features.map((f) => (increasing.includes(f) ? 1 : 0)) : undefined,
  });
  const asGroups = (list: readonly RankingExample[], scale: number) =>
    list.map((e) => {
      const rows = project(e.rows, columns);
      return { rows, labels: e.labels, base: baseOf(rows, scale) };
    });
  console.log(
    `${pairs.length} pairs from ${new Set(pairs.map((e) => e.repo)).size} repositories (${skipped.failed} recordings failed, ${skipped.goldAbsent} with no file to find); ` +
      `train ${train.length}, held out ${valid.length}, development rows ${dev.length}; features ${features.length}; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  console.log(`weighted fusion: held-out pairs ${fmt(judge(valid))}, development rows ${dev.length ? fmt(judge(dev)) : '-'}`);

  /**
   * The grid: tree depth, learning rate, and whether the trees start from the weighted fusion's score (scale 10: its
   * first file leads its second by a few logits) or from nothing.
   */
  const GRIDS: Record<string, Array<Partial<TrainParams>>> = {
    quick: [{}],
    full: [3, 4].flatMap((maxDepth) => [0.05, 0.1].flatMap((learningRate) => [0, 10].map((baseScale) => ({ maxDepth, learningRate, baseScale })))),
    monotone: [3, 4].flatMap((maxDepth) =>
      [0.05, 0.1].flatMap((learningRate) => [0, 10].map((baseScale) => ({ maxDepth, learningRate, baseScale, monotone: 1 as const }))),
    ),
  };
  const DEFAULT_TRAIN: TrainParams = { ...DEFAULT_LAMBDAMART, baseScale: 0, monotone: 0 };

  /** The parameters and tree count with the best held-out objective, or `--params` as given. */
  function tune(): TrainParams {
    // an empty --params is a mistake (an unset shell variable), not a request to tune
    if (values.params !== undefined) return { ...DEFAULT_TRAIN, ...(JSON.parse(values.params) as Partial<TrainParams>) };
    const grid = GRIDS[values.grid ?? 'full'];
    if (!grid) throw new Error(`--grid must be ${Object.keys(GRIDS).join(' or ')}`);
    let best: { params: TrainParams; trees: number; score: number } | undefined;
    for (const point of grid) {
      const params = { ...DEFAULT_TRAIN, ...point };
      const tg = performance.now();
      trainLambdaMart(asGroups(train, params.baseScale), columns.length, lambdaParams(params), (trees) => {
        if (trees.length % 10 !== 0) return true;
        const score = scorer(trees, params.baseScale);
        const sv = judge(valid, score);
        const sd = dev.length ? judge(dev, score) : undefined;
        const combined = sd ? (objective(sv) + objective(sd)) / 2 : objective(sv);
        if (!best || combined > best.score) best = { params, trees: trees.length, score: combined };
        if (trees.length % 100 === 0)
          console.log(
            `  depth ${params.maxDepth} rate ${params.learningRate} base ${params.baseScale} monotone ${params.monotone} trees ${trees.length}: held out ${fmt(sv)}, dev ${sd ? fmt(sd) : '-'}`,
          );
        return true;
      });
      console.log(`grid point ${JSON.stringify(point)} trained in ${((performance.now() - tg) / 1000).toFixed(0)} s`);
    }
    console.log(`chosen: trees ${best!.trees} of ${JSON.stringify(best!.params)} (objective ${best!.score.toFixed(4)})`);
    return { ...best!.params, trees: best!.trees };
  }
  const chosen = tune();

  // the final model: the chosen parameters, every pair
  const trees = trainLambdaMart(asGroups(pairs, chosen.baseScale), columns.length, lambdaParams(chosen));
  const model: RankerModel = {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    featureSetVersion: FEATURE_SET_VERSION,
    features,
    candidates: DEFAULT_CANDIDATES,
    training: {
      dataSha256: examplesHash(pairs),
      pairs: pairs.length,
      repositories: new Set(pairs.map((e) => e.repo)).size,
      command: trainingCommand(process.argv.slice(2)),
      params: { ...chosen },
      ...(chosen.monotone ? { increasing } : {}),
    },
    ...(chosen.baseScale > 0 && baseColumn >= 0 ? { base: { feature: 'fused.score', scale: chosen.baseScale } } : {}),
    trees,
  };
  const written = await writeModelFile(values.out!, model);
  console.log(
    `${values.out}: ${trees.length} trees, ${(written.bytes / 1024).toFixed(0)} KB, sha256 ${written.sha256.slice(0, 16)}…; ` +
      `dev rows with it ${dev.length ? fmt(judge(dev, scorer(trees, chosen.baseScale))) : '-'}; ${((performance.now() - t0) / 1000).toFixed(0)} s in all`,
  );
}

if (values.issues!.length > 0) {
  await trainOnIssues({
    issues: values.issues!,
    pairsDir: values['pairs-dir'],
    pairsWeights: values['pairs-weights'],
    folds: Number(values.folds),
    grid: values.grid ?? 'issues',
    params: values.params,
    features,
    out: values.out!,
    pairExamples,
  });
} else {
  await trainOnPairs(values['pairs-dir']!);
}
