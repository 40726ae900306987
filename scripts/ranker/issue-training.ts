/**
 * Training the learned file ranker on real issues (issue 44): development rows whose searches
 * `bench:retrieval --record` kept, judged by cross-validation grouped by repository, so that no fold is scored by
 * a model that saw an issue of its own repository. Mined commit messages (`ranker:record`) may join the training
 * folds as a weighted extra; a pair of a repository in the held-out fold never does.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadDataset } from '../../src/dataset/load.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { goldPaths } from '../../src/dataset/gold.ts';
import { safeFileName } from '../../src/util/fsx.ts';
import { computeLocMetrics, metricsSummary, type LocMetrics } from '../../results/loc-metrics.ts';
import { treeScore, type RankerTree } from '../../localizer/retrieval/learned/model.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';
import type { IndexRecording } from '../../localizer/retrieval/recording-index.ts';
import { reorder } from '../../localizer/retrieval/learned/rerank.ts';
import { trainLambdaMart, type LambdaMartParams, type RankingGroup } from './lambdamart.ts';
import { rankingExample, type RankingExample } from './training.ts';

/** `DATASET=RECORDINGS`: a dataset file and the folder `bench:retrieval --record` wrote for it */
export function parseIssueSource(spec: string): { dataset: string; recordings: string } {
  const at = spec.indexOf('=');
  if (at <= 0 || at === spec.length - 1) throw new Error(`--issues takes DATASET=RECORDINGS_DIR, got "${spec}"`);
  return { dataset: spec.slice(0, at), recordings: spec.slice(at + 1) };
}

/** One development row and the searches `bench:retrieval --record` kept for it. */
export interface IssueRecording {
  instance: SweInstance;
  recording: IndexRecording;
  /** the dataset's file name without its extension (per-set tables) */
  set: string;
}

/**
 * Every row of `DATASET=RECORDINGS` with its recording, in dataset order. A rejected row, a missing, unreadable or
 * failed recording stops with the file and what to do: a model or a weight chosen on part of a set says nothing.
 */
export async function issueRecordings(spec: string): Promise<IssueRecording[]> {
  const { dataset: file, recordings } = parseIssueSource(spec);
  const dataset = await loadDataset(file);
  if (dataset.errors.length) throw new Error(`${file}: rows rejected: ${dataset.errors.map((e) => e.message).join('; ')}`);
  const set = path.basename(file).replace(/\.jsonl?$/, '');
  const out: IssueRecording[] = [];
  for (const instance of dataset.instances) {
    const recordingFile = path.join(recordings, `${safeFileName(instance.instance_id)}.json`);
    let recording: IndexRecording | { error: string };
    try {
      recording = JSON.parse(await readFile(recordingFile, 'utf8')) as IndexRecording | { error: string };
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no recording of row' : 'unreadable recording of row';
      throw new Error(`${recordingFile}: ${why} ${instance.instance_id}; record the dataset with bench:retrieval --record ${recordings}`);
    }
    if ('error' in recording) throw new Error(`${recordingFile}: the row's recording failed: ${recording.error}`);
    out.push({ instance, recording, set });
  }
  return out;
}

/** The rows of a dataset as ranking examples; `set` names the source (per-set tables). */
export async function issueExamples(spec: string): Promise<Array<RankingExample & { set: string }>> {
  const out: Array<RankingExample & { set: string }> = [];
  for (const { instance: inst, recording, set } of await issueRecordings(spec)) {
    const example = await rankingExample(inst.instance_id, inst.repo, recording, defaultQueries(inst.problem_statement), goldPaths(inst.patch), 'all');
    out.push({ ...example, set });
  }
  return out;
}

/**
 * Repositories into `k` folds of about equal rows: largest repository first, each to the fold with the fewest
 * rows so far (ties: the lower fold). Deterministic, and every repository's rows stay in one fold.
 */
export function repositoryFolds(examples: readonly { repo: string }[], k: number): Map<string, number> {
  if (!Number.isInteger(k) || k < 2) throw new Error(`--folds must be an integer >= 2, got ${k}`);
  const rows = new Map<string, number>();
  for (const e of examples) rows.set(e.repo, (rows.get(e.repo) ?? 0) + 1);
  const repos = [...rows].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const folds = Math.min(k, repos.length);
  if (folds < 2) throw new Error(`grouped cross-validation needs at least 2 repositories, got ${repos.length}`);
  const load = new Array<number>(folds).fill(0);
  const foldOf = new Map<string, number>();
  for (const [repo, n] of repos) {
    const f = load.indexOf(Math.min(...load));
    foldOf.set(repo, f);
    load[f]! += n;
  }
  return foldOf;
}

/** A gold file at rank ≤ k (Top-k), the measure of the goal: Lite's gold patches edit one file each. */
export const topObjective = (m: LocMetrics): number => (m.top1 + m.top3 + m.top5) / 3;

export function judgeRankings(examples: readonly RankingExample[], scores?: ReadonlyMap<string, readonly number[]>): LocMetrics {
  return metricsSummary(
    computeLocMetrics(
      examples.map((e) => {
        const s = scores?.get(e.id);
        return {
          instanceId: e.id,
          gold: e.gold,
          ranking: s
            ? reorder(
                e.weighted.map((p) => ({ path: p, score: 0 })),
                s,
              ).map((f) => f.path)
            : e.weighted,
        };
      }),
    ),
  );
}

export interface CvSetup {
  issues: readonly RankingExample[];
  pairs: readonly RankingExample[];
  /** a pair's weight beside an issue's 1 (0: pairs left out) */
  pairsWeight: number;
  folds: number;
  /** an example's rows as the model's columns, and the scores its trees start from */
  group(example: RankingExample): { rows: Float64Array[]; base: number[] };
  width: number;
  params: LambdaMartParams;
  /** out-of-fold metrics are taken every this many trees */
  every: number;
}

/** Out-of-fold scores of every issue at every `every`-th tree count: per tree count, issue id → candidate scores. */
export function crossValidate(setup: CvSetup): Map<number, Map<string, number[]>> {
  const foldOf = repositoryFolds(setup.issues, setup.folds);
  const folds = Math.max(...foldOf.values()) + 1;
  const out = new Map<number, Map<string, number[]>>();
  for (let f = 0; f < folds; f++) {
    const heldRepos = new Set([...foldOf].filter(([, g]) => g === f).map(([r]) => r));
    const held = setup.issues.filter((e) => heldRepos.has(e.repo));
    const toGroup = (e: RankingExample, weight: number): RankingGroup => ({ ...setup.group(e), labels: e.labels, weight });
    const training = [
      ...setup.issues.filter((e) => !heldRepos.has(e.repo)).map((e) => toGroup(e, 1)),
      ...(setup.pairsWeight > 0 ? setup.pairs.filter((e) => !heldRepos.has(e.repo)).map((e) => toGroup(e, setup.pairsWeight)) : []),
    ];
    const heldGroups = held.map((e) => setup.group(e));
    const scores = heldGroups.map((g) => Float64Array.from(g.base));
    trainLambdaMart(training, setup.width, setup.params, (trees) => {
      addTree(trees[trees.length - 1]!, heldGroups, scores);
      if (trees.length % setup.every === 0) {
        const at = out.get(trees.length) ?? new Map<string, number[]>();
        held.forEach((e, i) => at.set(e.id, [...scores[i]!]));
        out.set(trees.length, at);
      }
      return true;
    });
  }
  return out;
}

function addTree(tree: RankerTree, groups: ReadonlyArray<{ rows: Float64Array[] }>, scores: Float64Array[]): void {
  groups.forEach((g, i) => {
    g.rows.forEach((row, r) => {
      scores[i]![r]! += treeScore(tree, row);
    });
  });
}
