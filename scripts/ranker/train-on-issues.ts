/**
 * `ranker:train --issues`: the learned ranker trained on real issues (issue 44). Every choice — tree depth,
 * learning rate, tree count, the mined pairs' weight — is made by cross-validation grouped by repository over the
 * development rows (scripts/ranker/issue-training.ts); SWE-bench Lite is never read. The weighted fusion's own
 * out-of-fold figures are printed beside, since the learned ranker only earns the default by beating them there.
 */
import path from 'node:path';
import { FEATURE_NAMES, FEATURE_SET_VERSION } from '../../localizer/retrieval/learned/features.ts';
import { MODEL_FORMAT, MODEL_VERSION, type RankerModel } from '../../localizer/retrieval/learned/model.ts';
import type { LocMetrics } from '../../results/loc-metrics.ts';
import { crossValidate, issueExamples, judgeRankings, parseIssueSource, repositoryFolds, topObjective } from './issue-training.ts';
import { DEFAULT_LAMBDAMART, trainLambdaMart, type LambdaMartParams } from './lambdamart.ts';
import { DEFAULT_CANDIDATES, examplesHash, project, trainingCommand, writeModelFile, type RankingExample } from './training.ts';

export interface IssueTrainingInput {
  issues: readonly string[];
  pairsDir?: string;
  /** comma-separated pair weights to choose from (default "0.3" with pairs, none without) */
  pairsWeights?: string;
  folds: number;
  grid: string;
  /** fixed parameters (an ablation takes the full model's): no grid, still cross-validated */
  params?: string;
  /** the feature names the model reads */
  features: readonly string[];
  out: string;
  pairExamples(dir: string): Promise<{ examples: RankingExample[] }>;
}

type IssueParams = LambdaMartParams & { baseScale: number };

/** Depth 2 or 3 (few hundred rows per repository: shallow trees), two rates; trees start from the weighted score. */
const ISSUE_GRIDS: Record<string, Array<Partial<IssueParams>>> = {
  issues: [2, 3].flatMap((maxDepth) => [0.05, 0.1].map((learningRate) => ({ maxDepth, learningRate, baseScale: 10 }))),
  quick: [{ maxDepth: 2, learningRate: 0.1, baseScale: 10 }],
  // the best point of `issues` without pairs, to weigh the pairs with (a full grid per pair weight is 4 times as long)
  shallow: [{ maxDepth: 2, learningRate: 0.05, baseScale: 10 }],
};
/** fewer rows than mined pairs: smaller leaves, and at most 300 trees */
const ISSUE_DEFAULTS: IssueParams = { ...DEFAULT_LAMBDAMART, trees: 300, minLeafRows: 20, baseScale: 10 };

const fmt = (m: LocMetrics) => `${m.top1.toFixed(3)}/${m.top3.toFixed(3)}/${m.top5.toFixed(3)}`;

function pairWeightsOf(input: IssueTrainingInput): number[] {
  if (!input.pairsDir && input.pairsWeights !== undefined) throw new Error('--pairs-weights needs --pairs-dir (the recorded pairs to weigh)');
  if (!input.pairsDir) return [0];
  const weights = (input.pairsWeights ?? '0.3').split(',').map(Number);
  if (weights.some((w) => !(w >= 0))) throw new Error(`--pairs-weights takes numbers >= 0, got "${input.pairsWeights}"`);
  return weights;
}

export async function trainOnIssues(input: IssueTrainingInput): Promise<void> {
  const t0 = performance.now();
  const sources = input.issues.map((spec) => ({ spec, dataset: path.basename(parseIssueSource(spec).dataset) }));
  const perSet = await Promise.all(sources.map((s) => issueExamples(s.spec)));
  const issues = perSet.flat();
  const pairs = input.pairsDir ? (await input.pairExamples(input.pairsDir)).examples : [];
  const columns = input.features.map((f) => FEATURE_NAMES.indexOf(f));
  const baseColumn = input.features.indexOf('fused.score');
  const group = (scale: number) => (e: RankingExample) => {
    const rows = project(e.rows, columns);
    return { rows, base: rows.map((r) => (baseColumn < 0 ? 0 : scale * r[baseColumn]!)) };
  };
  const foldOf = repositoryFolds(issues, input.folds);
  const folds = Math.max(...foldOf.values()) + 1;
  console.log(
    `${issues.length} issues from ${foldOf.size} repositories in ${folds} folds; ${pairs.length} mined pairs; features ${input.features.length}; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  for (let f = 0; f < folds; f++)
    console.log(
      `  fold ${f}: ${[...foldOf]
        .filter(([, g]) => g === f)
        .map(([r]) => r)
        .join(', ')}`,
    );
  console.log(
    `weighted fusion: ${fmt(judgeRankings(issues))} (Top-1/3/5) — ${perSet.map((set, i) => `${sources[i]!.dataset} ${fmt(judgeRankings(set))}`).join(', ')}`,
  );

  const fixed = input.params === undefined ? undefined : { ...ISSUE_DEFAULTS, ...(JSON.parse(input.params) as Partial<IssueParams>) };
  const grid = fixed ? [fixed] : ISSUE_GRIDS[input.grid]?.map((p) => ({ ...ISSUE_DEFAULTS, ...p }));
  if (!grid) throw new Error(`--grid with --issues must be ${Object.keys(ISSUE_GRIDS).join(' or ')}`);
  let best: { params: IssueParams; pairsWeight: number; trees: number; metrics: LocMetrics; score: number } | undefined;
  for (const pairsWeight of pairWeightsOf(input)) {
    for (const params of grid) {
      const tg = performance.now();
      const every = fixed ? params.trees : 10;
      const oof = crossValidate({ issues, pairs, pairsWeight, folds: input.folds, group: group(params.baseScale), width: columns.length, params, every });
      for (const [trees, scores] of [...oof].sort((a, b) => a[0] - b[0])) {
        const metrics = judgeRankings(issues, scores);
        const score = topObjective(metrics);
        if (!best || score > best.score) best = { params, pairsWeight, trees, metrics, score };
        if (trees % 50 === 0 || fixed)
          console.log(`  pairs ${pairsWeight} depth ${params.maxDepth} rate ${params.learningRate} trees ${trees}: out of fold ${fmt(metrics)}`);
      }
      console.log(`  (${((performance.now() - tg) / 1000).toFixed(0)} s)`);
    }
  }
  const chosen = best!;
  console.log(
    `chosen: pairs weight ${chosen.pairsWeight}, depth ${chosen.params.maxDepth}, rate ${chosen.params.learningRate}, ${chosen.trees} trees: out of fold ${fmt(chosen.metrics)}`,
  );
  await writeFinalModel(input, { issues, pairs, perSet, sources, group: group(chosen.params.baseScale), width: columns.length, folds, chosen, baseColumn });
  console.log(`${((performance.now() - t0) / 1000).toFixed(0)} s in all`);
}

async function writeFinalModel(
  input: IssueTrainingInput,
  c: {
    issues: RankingExample[];
    pairs: RankingExample[];
    perSet: RankingExample[][];
    sources: Array<{ dataset: string }>;
    group: (e: RankingExample) => { rows: Float64Array[]; base: number[] };
    width: number;
    folds: number;
    chosen: { params: IssueParams; pairsWeight: number; trees: number; metrics: LocMetrics };
    baseColumn: number;
  },
): Promise<void> {
  const { params, pairsWeight, trees: treeCount, metrics } = c.chosen;
  const usedPairs = pairsWeight > 0 ? c.pairs : [];
  const training = [
    ...c.issues.map((e) => ({ ...c.group(e), labels: e.labels, weight: 1 })),
    ...usedPairs.map((e) => ({ ...c.group(e), labels: e.labels, weight: pairsWeight })),
  ];
  const trees = trainLambdaMart(training, c.width, { ...params, trees: treeCount });
  const { baseScale, monotone: _monotone, ...lambda } = { ...params, trees: treeCount };
  const model: RankerModel = {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    featureSetVersion: FEATURE_SET_VERSION,
    features: [...input.features],
    candidates: DEFAULT_CANDIDATES,
    training: {
      dataSha256: examplesHash([...c.issues, ...usedPairs]),
      pairs: usedPairs.length,
      repositories: new Set([...c.issues, ...usedPairs].map((e) => e.repo)).size,
      command: trainingCommand(process.argv.slice(2)),
      params: { ...lambda, baseScale },
      issues: c.sources.map((s, i) => ({ dataset: s.dataset, rows: c.perSet[i]!.length })),
      pairsWeight,
      crossValidation: { folds: c.folds, top1: metrics.top1, top3: metrics.top3, top5: metrics.top5 },
    },
    ...(baseScale > 0 && c.baseColumn >= 0 ? { base: { feature: 'fused.score', scale: baseScale } } : {}),
    trees,
  };
  const written = await writeModelFile(input.out, model);
  console.log(`${input.out}: ${trees.length} trees, ${(written.bytes / 1024).toFixed(0)} KB, sha256 ${written.sha256.slice(0, 16)}…`);
}
