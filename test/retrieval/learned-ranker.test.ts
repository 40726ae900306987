import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RetrievalLocalizer } from '../../localizer/retrieval/localizer.ts';
import { candidateFeatures, FEATURE_NAMES, FEATURE_SET_VERSION } from '../../localizer/retrieval/learned/features.ts';
import { trainLambdaMart, type RankingGroup } from '../../scripts/ranker/lambdamart.ts';
import {
  checkRankerModel,
  loadRankerModel,
  treeScore,
  MODEL_FORMAT,
  MODEL_VERSION,
  type RankerModel,
  type RankerTree,
} from '../../localizer/retrieval/learned/model.ts';
import { samplePairs } from '../../scripts/ranker/pair-recordings.ts';
import { reorder } from '../../localizer/retrieval/learned/rerank.ts';
import { rawIssueQuery } from '../../localizer/retrieval/query.ts';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { retrieveFiles, type RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import { changesOf } from '../../src/index/channels/history.ts';
import type { TrainingPair } from '../../scripts/ranker/training-pairs.ts';

const leaf = (value: number): RankerTree => ({ feature: [-1], threshold: [0], left: [-1], right: [-1], value: [value] });

/** a one-split model over the full feature list: `feature` <= threshold scores `low`, above it `high` */
function stumpModel(feature: string, threshold: number, low: number, high: number, extra: Partial<RankerModel> = {}): RankerModel {
  return {
    format: MODEL_FORMAT,
    version: MODEL_VERSION,
    featureSetVersion: FEATURE_SET_VERSION,
    features: [...FEATURE_NAMES],
    candidates: 50,
    training: { dataSha256: 'test', pairs: 0, repositories: 0, command: 'test', params: {} },
    trees: [{ feature: [FEATURE_NAMES.indexOf(feature), -1, -1], threshold: [threshold, 0, 0], left: [1, -1, -1], right: [2, -1, -1], value: [0, low, high] }],
    ...extra,
  };
}

async function modelFile(model: unknown): Promise<string> {
  const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'locfix-ranker-')), 'model.json');
  await writeFile(file, JSON.stringify(model));
  return file;
}

/** BM25 puts the test file first; the other channels are off */
const index: RetrievalIndex = {
  filePaths: ['pkg/tests/test_core.py', 'pkg/core.py', 'pkg/util.py'],
  searchDense: async () => [],
  searchChunksBm25: async () => [],
  searchFilesBm25: async () => [
    { path: 'pkg/tests/test_core.py', score: 9 },
    { path: 'pkg/core.py', score: 8 },
    { path: 'pkg/util.py', score: 1 },
  ],
  definitionsOf: () => [],
};

describe('learned fusion', () => {
  it('reorders the weighted fusion by the model, keeping the weighted order as the tie-break', async () => {
    const weighted = await retrieveFiles(index, [rawIssueQuery('core breaks')], { weights: { history: 0 } });
    expect(weighted.ranking.map((f) => f.path)).toEqual(['pkg/tests/test_core.py', 'pkg/core.py', 'pkg/util.py']);
    // the model: a test file scores -1, any other file +1
    const rankerModel = await modelFile(stumpModel('path.test', 0.5, 1, -1));
    const learned = await retrieveFiles(index, [rawIssueQuery('core breaks')], { weights: { history: 0 }, fusion: 'learned', rankerModel });
    expect(learned.ranking.map((f) => f.path)).toEqual(['pkg/core.py', 'pkg/util.py', 'pkg/tests/test_core.py']);
    // softmax shares: positive, summing to 1, the tied pair equal
    const scores = learned.ranking.map((f) => f.score);
    expect(scores.every((s) => s > 0)).toBe(true);
    expect(scores.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(scores[0]).toBe(scores[1]);
  });

  it('starts from the weighted fusion when the model says so: no trees, the hand-set order', async () => {
    const options = { weights: { history: 0 } };
    const weighted = await retrieveFiles(index, [rawIssueQuery('core breaks')], options);
    const rankerModel = await modelFile({ ...stumpModel('path.test', 0.5, 0, 0), trees: [], base: { feature: 'fused.score', scale: 10 } });
    const learned = await retrieveFiles(index, [rawIssueQuery('core breaks')], { ...options, fusion: 'learned', rankerModel });
    expect(learned.ranking.map((f) => f.path)).toEqual(weighted.ranking.map((f) => f.path));
    // the first file leads the second by 10 × their fused-score gap in logits
    const [a, b] = [weighted.ranking[0]!.score / weighted.ranking[0]!.score, weighted.ranking[1]!.score / weighted.ranking[0]!.score];
    expect(Math.log(learned.ranking[0]!.score / learned.ranking[1]!.score)).toBeCloseTo(10 * (a - b), 9);
    await expect(
      retrieveFiles(index, [rawIssueQuery('x')], {
        fusion: 'learned',
        rankerModel: await modelFile({ ...stumpModel('path.test', 0.5, 0, 0), base: { feature: 'nope', scale: 1 } }),
      }),
    ).rejects.toThrow(/base must name one of its features/);
  });

  it('leaves files below the candidates in weighted order at score 0', () => {
    const weighted = ['a', 'b', 'c', 'd'].map((path, i) => ({ path, score: 4 - i }));
    expect(reorder(weighted, [0, 2])).toEqual([
      { path: 'b', score: Math.exp(0) / (1 + Math.exp(-2)) },
      { path: 'a', score: Math.exp(-2) / (1 + Math.exp(-2)) },
      { path: 'c', score: 0 },
      { path: 'd', score: 0 },
    ]);
  });

  it('refuses a missing, foreign or incompatible model file with the reason', async () => {
    const run = (rankerModel: string) => retrieveFiles(index, [rawIssueQuery('x')], { fusion: 'learned', rankerModel });
    await expect(run('/nonexistent/model.json')).rejects.toThrow(/model.json: no such file; retrain it .*--fusion weighted/);
    await expect(run(await modelFile({ format: 'other' }))).rejects.toThrow(/not a locfix ranker model/);
    await expect(run(await modelFile({ ...stumpModel('path.test', 0.5, 1, -1), featureSetVersion: 0 }))).rejects.toThrow(
      /trained on feature set version 0, this locfix computes version/,
    );
    await expect(run(await modelFile({ ...stumpModel('path.test', 0.5, 1, -1), features: ['size.bytes'] }))).rejects.toThrow(
      /reads features this locfix does not compute: size.bytes/,
    );
    const loop = stumpModel('path.test', 0.5, 1, -1);
    loop.trees[0]!.left[0] = 0;
    await expect(run(await modelFile(loop))).rejects.toThrow(/tree 0 node 0: bad child 0/);
    const noHash = stumpModel('path.test', 0.5, 1, -1) as Partial<RankerModel>;
    delete noHash.training;
    await expect(run(await modelFile(noHash))).rejects.toThrow(/does not record its training data/);
  });

  it('refuses a model that would rank wrongly, naming the file and never echoing its content (issue 42)', async () => {
    const run = (rankerModel: string) => retrieveFiles(index, [rawIssueQuery('x')], { fusion: 'learned', rankerModel });
    // before: null or "abc" thresholds sent every row one way ("2 of 2 ok"); leaves of 1e308 summed to Infinity
    for (const threshold of [null, 'abc']) {
      const broken = stumpModel('path.test', 0.5, 1, -1) as unknown as { trees: Array<{ threshold: unknown[] }> };
      broken.trees[0]!.threshold[0] = threshold;
      const file = await modelFile(broken);
      await expect(run(file)).rejects.toThrow(new RegExp(`ranker model ${file}: trees\\[0\\]\\.threshold\\[0\\]: must be a finite number`));
    }
    const huge = stumpModel('path.test', 0.5, 1e308, -1, { trees: [] });
    huge.trees = [0, 1, 2].map(() => stumpModel('path.test', 0.5, 1e308, -1).trees[0]!);
    await expect(run(await modelFile(huge))).rejects.toThrow(/leaves sum to Infinity in size/);
    const overflow = JSON.stringify(stumpModel('path.test', 0.5, 1, -1)).replace('"value":[0,1,-1]', '"value":[0,1e309,-1]');
    const overflowFile = await modelFile({});
    await writeFile(overflowFile, overflow);
    await expect(run(overflowFile)).rejects.toThrow(/trees\[0\]\.value\[1\]: must be a finite number/);
    // before: "Cannot read properties of null", naming no file
    const nullBase = await modelFile({ ...stumpModel('path.test', 0.5, 1, -1), base: null });
    await expect(run(nullBase)).rejects.toThrow(new RegExp(`ranker model ${nullBase}: base: `));
    // before: a path to another file echoed its first characters ("root:*:202"...)
    const secret = path.join(path.dirname(await modelFile({})), 'shadow');
    await writeFile(secret, 'root:*:20200:0:99999:7:::\n');
    const refused = await run(secret).catch((e: Error) => e.message);
    expect(refused).toMatch(/shadow: is not JSON; retrain it/);
    expect(refused).not.toContain('root');
  });

  it('fails when the localizer is made, not at every instance', () => {
    expect(() => new RetrievalLocalizer({ retrieval: { fusion: 'learned', rankerModel: '/nonexistent/model.json' } })).toThrow(/no such file/);
  });

  it('reads a model of a feature subset by name', () => {
    const model = stumpModel('path.test', 0.5, 1, -1);
    model.features = ['fused.rr', 'path.test'];
    model.trees[0]!.feature[0] = 1;
    expect(checkRankerModel(model, 'subset').columns).toEqual([FEATURE_NAMES.indexOf('fused.rr'), FEATURE_NAMES.indexOf('path.test')]);
  });

  it('ships a model this locfix reads', () => {
    const shipped = loadRankerModel();
    expect(shipped.model.trees.length).toBeGreaterThan(0);
    // trained on real development issues (issue 44), chosen by cross-validation grouped by repository
    const rows = (shipped.model.training.issues ?? []).reduce((n, s) => n + s.rows, 0);
    expect(rows).toBeGreaterThan(300);
    expect(shipped.model.training.crossValidation?.folds).toBeGreaterThanOrEqual(2);
  });
});

describe('features', () => {
  it('reads channel scores, ranks and agreement, and the path against the query', () => {
    const channels = [
      {
        label: 'raw/fileBm25',
        scores: new Map([
          ['src/flask/sessions.py', 4],
          ['src/flask/app.py', 2],
        ]),
        weight: 1,
      },
      { label: 'structural/fileBm25', scores: new Map([['src/flask/app.py', 3]]), weight: 1 },
      { label: 'structural/paths', scores: new Map([['src/flask/sessions.py', 1]]), weight: 1.5 },
    ];
    const [sessions, app] = candidateFeatures({
      channels,
      queries: [rawIssueQuery('get_cookie_name in SessionInterface breaks sessions')],
      candidates: [
        { path: 'src/flask/sessions.py', score: 2.5 },
        { path: 'src/flask/app.py', score: 1.5 },
      ],
      rrf: new Map([
        ['src/flask/sessions.py', 0.04],
        ['src/flask/app.py', 0.02],
      ]),
    });
    const f = (row: Float64Array, name: string) => row[FEATURE_NAMES.indexOf(name)];
    expect(f(sessions!, 'fileBm25.score')).toBe(1);
    expect(f(app!, 'fileBm25.score')).toBe(1); // the best over the two queries
    expect(f(app!, 'fileBm25.rr')).toBe(1);
    expect(f(sessions!, 'fileBm25.queries')).toBe(0.5);
    expect(f(app!, 'fileBm25.queries')).toBe(1);
    expect(f(sessions!, 'fileBm25.lead')).toBe(0.5);
    expect(f(app!, 'paths.score')).toBe(0);
    expect(f(sessions!, 'paths.lead')).toBe(1);
    expect(f(sessions!, 'fused.rr')).toBe(1);
    expect(f(app!, 'fused.score')).toBe(0.6);
    expect(f(app!, 'rrf.score')).toBe(0.5);
    expect(f(sessions!, 'path.stemNamed')).toBe(1);
    expect(f(app!, 'path.stemNamed')).toBe(0);
    expect(f(sessions!, 'path.depth')).toBe(3);
    expect(f(sessions!, 'query.structure')).toBe(1);
  });
});

describe('file facts', () => {
  it('counts how often and how recently the recent commits changed each indexed file', () => {
    const commits = [
      { id: 'c3', message: 'newest', files: ['a.py', 'gone.py'] },
      { id: 'c2', message: '', files: ['b.py'] },
      { id: 'c1', message: '', files: ['a.py', 'b.py', 'constructor'] },
    ];
    expect(changesOf(commits, (p) => p !== 'gone.py')).toEqual({
      changes: { 'a.py': { count: 2, newest: 0 }, 'b.py': { count: 2, newest: 1 }, constructor: { count: 1, newest: 2 } },
      commitsRead: 3,
    });
  });

  it('become features, and a recording keeps them for the replay', async () => {
    const facts = { size: { 'pkg/core.py': 1023 }, changes: { 'pkg/core.py': { count: 4, newest: 1 } }, commitsRead: 10 };
    const recording = new RecordingIndex({ ...index, fileFacts: async () => facts }, { chunk: 300, file: 200 });
    const rankerModel = await modelFile(stumpModel('file.recency', 0.4, -1, 1));
    const live = await retrieveFiles(recording, [rawIssueQuery('core breaks')], { weights: { history: 0 }, fusion: 'learned', rankerModel });
    expect(live.ranking[0]!.path).toBe('pkg/core.py'); // recency 1/2 > 0.4
    const replay = new ReplayIndex(JSON.parse(JSON.stringify(recording.recording())));
    expect(await replay.fileFacts()).toEqual(facts);
    const [core, util] = candidateFeatures({
      channels: [],
      queries: [rawIssueQuery('x')],
      candidates: [
        { path: 'pkg/core.py', score: 1 },
        { path: 'pkg/util.py', score: 1 },
      ],
      rrf: new Map(),
      facts,
    });
    const f = (row: Float64Array, name: string) => row[FEATURE_NAMES.indexOf(name)];
    expect([f(core!, 'file.size'), f(core!, 'file.changes'), f(core!, 'file.recency')]).toEqual([10, 4, 0.5]);
    expect([f(util!, 'file.size'), f(util!, 'file.changes'), f(util!, 'file.recency')]).toEqual([0, 0, 0]);
  });
});

describe('LambdaMART', () => {
  /** 200 queries of 10 files: the relevant one has the highest feature 0, feature 1 is noise that misleads */
  function groups(): RankingGroup[] {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    return Array.from({ length: 200 }, () => {
      const target = Math.floor(rand() * 10);
      const rows = Array.from({ length: 10 }, (_, i) => [i === target ? 0.6 + rand() * 0.4 : rand() * 0.55, i === target ? rand() * 0.3 : rand()]);
      return { rows, labels: rows.map((_, i) => (i === target ? 1 : 0)) };
    });
  }

  it('learns which feature finds the relevant file, the same trees on every run', () => {
    const params = { trees: 20, learningRate: 0.1, maxDepth: 2, minLeafRows: 5, l2: 1, bins: 16 };
    const trees = trainLambdaMart(groups(), 2, params);
    expect(JSON.stringify(trainLambdaMart(groups(), 2, params))).toBe(JSON.stringify(trees));
    expect(trees[0]!.feature[0]).toBe(0);
    // a model file of the trained trees passes the checks
    checkRankerModel({ ...stumpModel('path.test', 0, 0, 0), features: ['fused.score', 'fused.rr'], trees }, 'trained');
    let first = 0;
    for (const g of groups()) {
      const scores = g.rows.map((r) => trees.reduce((s, t) => s + treeScore(t, r), 0));
      if (g.labels[scores.indexOf(Math.max(...scores))] === 1) first++;
    }
    // feature 1 alone would put the relevant file first in about a tenth of the queries
    expect(first).toBeGreaterThanOrEqual(190);
  });

  it('keeps a monotone feature from lowering the score as it grows, even where the data say otherwise', () => {
    // relevance falls with feature 0; feature 1 is what finds the relevant file
    const data = groups().map((g) => ({ labels: g.labels, rows: g.rows.map((r) => [1 - r[0]!, r[1]!]) }));
    const params = { trees: 20, learningRate: 0.1, maxDepth: 3, minLeafRows: 5, l2: 1, bins: 16 };
    const score = (trees: RankerTree[], x0: number, x1: number) => trees.reduce((s, t) => s + treeScore(t, [x0, x1]), 0);
    const free = trainLambdaMart(data, 2, params);
    const constrained = trainLambdaMart(data, 2, { ...params, monotone: [1, 0] });
    const falls = (trees: RankerTree[]) => {
      let count = 0;
      for (let x1 = 0; x1 <= 1; x1 += 0.05) for (let x0 = 0; x0 < 1; x0 += 0.05) if (score(trees, x0 + 0.05, x1) < score(trees, x0, x1) - 1e-12) count++;
      return count;
    };
    expect(falls(free)).toBeGreaterThan(0);
    expect(falls(constrained)).toBe(0);
  });

  it('computes a leaf as learning rate × gradient sum / (hessian sum + L2), the order the shipped model was trained in', () => {
    // two files, scores 0: the swap changes NDCG by d, the logistic weight is 1/2 (LambdaRank)
    const d = 1 - 1 / Math.log2(3);
    const [tree] = trainLambdaMart([{ rows: [[0], [1]], labels: [0, 1] }], 1, { trees: 1, learningRate: 0.05, maxDepth: 1, minLeafRows: 1, l2: 1, bins: 4 });
    // bit for bit: 0.05 × (G / (H + 1)) differs in the last place, and a model retrained that way is another file
    expect(tree!.value.slice(1)).toEqual([(0.05 * (-d / 2)) / (d / 4 + 1), (0.05 * (d / 2)) / (d / 4 + 1)]);
  });

  it('adds nothing when no query has both a relevant and an irrelevant file', () => {
    const trees = trainLambdaMart([{ rows: [[1], [2]], labels: [0, 0] }], 1, { trees: 2, learningRate: 0.1, maxDepth: 2, minLeafRows: 1, l2: 1, bins: 4 });
    expect(trees.map((t) => t.value)).toEqual([leaf(0).value, leaf(0).value]);
  });
});

describe('samplePairs', () => {
  it('takes evenly spaced pairs per repository, repositories sorted', () => {
    const pair = (repo: string, i: number): TrainingPair => ({ repo, commit: `${i}`, committedAt: i, refs: ['#1'], query: 'q', files: ['a.py'] });
    const pairs = [...Array.from({ length: 10 }, (_, i) => pair('z/z', i)), pair('a/a', 0), pair('a/a', 1)];
    expect(samplePairs(pairs, 3).map((p) => `${p.repo}:${p.commit}`)).toEqual(['a/a:0', 'a/a:1', 'z/z:1', 'z/z:5', 'z/z:8']);
  });
});
