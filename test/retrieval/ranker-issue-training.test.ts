/**
 * Training the learned ranker on real issues (issue 44): folds keep every repository's rows together, a held-out
 * fold is never scored by a model that saw its repository (not even through mined pairs), a pair's weight changes
 * what is learned, and the command a model records names no machine's folders.
 */
import { describe, expect, it } from 'vitest';
import { crossValidate, parseIssueSource, repositoryFolds } from '../../scripts/ranker/issue-training.ts';
import { trainLambdaMart } from '../../scripts/ranker/lambdamart.ts';
import { trainingCommand, type RankingExample } from '../../scripts/ranker/training.ts';
import { treeScore } from '../../localizer/retrieval/learned/model.ts';

/** an example of 4 candidates whose gold file is the one with feature 0 set; feature 1 is noise */
function example(id: string, repo: string, gold: number, invert = false): RankingExample {
  const rows = [0, 1, 2, 3].map((i) => Float64Array.from([(i === gold) !== invert ? 1 : 0, (i * 7 + id.length) % 3]));
  return { id, repo, gold: [`f${gold}`], weighted: ['f0', 'f1', 'f2', 'f3'], rows, labels: [0, 1, 2, 3].map((i) => (i === gold ? 1 : 0)) };
}
const group = (e: RankingExample) => ({ rows: e.rows, base: e.rows.map(() => 0) });
const params = { trees: 20, learningRate: 0.3, maxDepth: 2, minLeafRows: 1, l2: 1, bins: 8 };

describe('grouped cross-validation by repository', () => {
  it('puts each repository in one fold, balancing rows, and needs two repositories', () => {
    const rows = [...Array(6).fill({ repo: 'a/big' }), ...Array(3).fill({ repo: 'b/mid' }), ...Array(2).fill({ repo: 'c/small' }), { repo: 'd/one' }];
    const folds = repositoryFolds(rows, 2);
    expect(Object.fromEntries(folds)).toEqual({ 'a/big': 0, 'b/mid': 1, 'c/small': 1, 'd/one': 1 });
    expect(repositoryFolds(rows, 10).size).toBe(4);
    expect(() => repositoryFolds([{ repo: 'a/only' }], 5)).toThrow(/at least 2 repositories/);
    // a --folds that is no number (before: a RangeError from an array of NaN length in tune:fusion)
    for (const k of [Number.NaN, 1, 2.5]) expect(() => repositoryFolds(rows, k)).toThrow(/--folds must be an integer >= 2/);
  });

  it('learns what carries across repositories, and scores a fold only with models that never saw its repository', () => {
    const issues = ['a/x', 'b/y', 'c/z'].flatMap((repo) => [0, 1, 2, 3].map((g) => example(`${repo}#${g}`, repo, g)));
    const base = crossValidate({ issues, pairs: [], pairsWeight: 0, folds: 3, group, width: 2, params, every: 10 });
    const scores = base.get(20)!;
    for (const e of issues) {
      const s = scores.get(e.id)!;
      expect(s.indexOf(Math.max(...s))).toBe(e.labels.indexOf(1));
    }
    // pairs of repository a/x that teach the opposite: the a/x fold is scored exactly as without them
    const misleading = [0, 1, 2, 3].map((g) => example(`pair#${g}`, 'a/x', g, true));
    const withPairs = crossValidate({ issues, pairs: misleading, pairsWeight: 5, folds: 3, group, width: 2, params, every: 10 });
    for (const e of issues.filter((x) => x.repo === 'a/x')) expect(withPairs.get(20)!.get(e.id)).toEqual(scores.get(e.id));
    // ...while the other folds trained on them
    expect(issues.filter((x) => x.repo !== 'a/x').some((e) => JSON.stringify(withPairs.get(20)!.get(e.id)) !== JSON.stringify(scores.get(e.id)))).toBe(true);
  });

  it('weighs a group by its weight, and refuses a weight that is not positive', () => {
    const right = [0, 1, 2, 3].map((g) => example(`r${g}`, 'a/x', g));
    const wrong = [0, 1, 2, 3].map((g) => example(`w${g}`, 'a/x', g, true));
    const top = (weights: [number, number]) => {
      const trees = trainLambdaMart(
        [
          ...right.map((e) => ({ ...group(e), labels: e.labels, weight: weights[0] })),
          ...wrong.map((e) => ({ ...group(e), labels: e.labels, weight: weights[1] })),
        ],
        2,
        params,
      );
      const score = (row: Float64Array) => trees.reduce((s, t) => s + treeScore(t, row), 0);
      return score(Float64Array.from([1, 0])) > score(Float64Array.from([0, 0]));
    };
    expect(top([1, 0.1])).toBe(true);
    expect(top([0.1, 1])).toBe(false);
    expect(() => trainLambdaMart([{ ...group(right[0]!), labels: right[0]!.labels, weight: 0 }], 2, params)).toThrow(/weight must be a number > 0/);
  });
});

describe('issue sources and the recorded command', () => {
  it('reads DATASET=RECORDINGS and records both sides by their last part', () => {
    expect(parseIssueSource('/data/dev.jsonl=/tmp/rec')).toEqual({ dataset: '/data/dev.jsonl', recordings: '/tmp/rec' });
    expect(() => parseIssueSource('/data/dev.jsonl')).toThrow(/DATASET=RECORDINGS_DIR/);
    expect(trainingCommand(['--issues', '/data/dev.jsonl=/tmp/rec', '--params', '{"trees":20}', '--out', '/x/m.json'])).toBe(
      'npm run ranker:train -- --issues dev.jsonl=rec --params {"trees":20} --out m.json',
    );
  });
});
