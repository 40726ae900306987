/**
 * Runs retrieval over a list of instances through the shared stage runner: one StageArtifact per
 * instance, resumable (an existing artifact, success or recorded error, is kept), failure-isolated (a
 * missing commit becomes that instance's recorded error; the run goes on).
 *
 * Instances are processed grouped by repository, in first-appearance order, so consecutive snapshots of
 * one repository reuse the index caches, and one at a time: indexing is CPU-bound, and two repositories'
 * indexes at once would only compete for memory.
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { writeJsonAtomic } from '../../src/util/fsx.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { runStage, type StageArtifact, type StageEvent } from '../../src/run/stage-runner.ts';
import { groupByRepo, releaseAfterLastInstance } from '../../src/run/repo-release.ts';
import { goldPaths } from '../../src/dataset/gold.ts';
import { selectionPath, type RetrieveOutput, type StageSelection } from './artifacts.ts';
import { resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from './options.ts';
import { defaultQueries, type QueryPreset, type RetrievalQuery } from './query.ts';
import { retrieveFiles, type RetrievalIndex } from './retriever.ts';

export interface RetrievalRunDeps {
  snapshot(repo: string, commit: string): Promise<RepoSnapshot>;
  /** the (possibly incrementally updated) index of one snapshot, and what building it took */
  openIndex(snapshot: RepoSnapshot): Promise<{ index: RetrievalIndex; stats?: Record<string, unknown> }>;
  /** called when the run moves on from a repository's last instance: drop what only it needed in memory */
  releaseRepo?(repo: string): void;
}

export interface RetrievalRunSettings {
  runDir: string;
  dataset: string;
  embedderId: string;
  options?: DeepPartial<RetrievalOptions>;
  /** which model-free queries to build from the issue; ignored for instances `queriesFor` answers */
  queryPreset?: QueryPreset;
  /** 'drop' (default) searches the issue without its `pip list` / show_versions tables; 'keep' as written */
  environmentReports?: 'drop' | 'keep';
  /** externally supplied queries (e.g. an LLM stage's T0/T1) */
  queriesFor?: (instance: SweInstance) => RetrievalQuery[] | undefined;
  onEvent?: (event: StageEvent) => void;
  stage?: string;
}

/** Retrieval for one instance: snapshot, index, queries, ranking. Throws on failure. */
export async function retrieveForInstance(
  inst: SweInstance,
  deps: RetrievalRunDeps,
  settings: { embedderId: string; options: RetrievalOptions; queries: RetrievalQuery[] },
): Promise<RetrieveOutput> {
  const t0 = performance.now();
  const snapshot = await deps.snapshot(inst.repo, inst.base_commit);
  const { index, stats } = await deps.openIndex(snapshot);
  const tIndex = performance.now() - t0;
  const result = await retrieveFiles(index, settings.queries, settings.options);
  return {
    repo: inst.repo,
    base_commit: snapshot.commit,
    embedder: settings.embedderId,
    options: settings.options,
    ...result,
    timingsMs: { ...result.timingsMs, index: Math.round(tIndex), retrieve: Math.round(performance.now() - t0 - tIndex) },
    ...(stats ? { indexStats: stats } : {}),
  };
}

export async function runRetrieval(
  instances: readonly SweInstance[],
  deps: RetrievalRunDeps,
  settings: RetrievalRunSettings,
): Promise<Array<StageArtifact<RetrieveOutput>>> {
  const stage = settings.stage ?? 'retrieve';
  const options = resolveRetrievalOptions(settings.options);
  const ordered = groupByRepo(instances);
  const gold: Record<string, string[]> = {};
  for (const inst of ordered) {
    try {
      if (inst.patch) gold[inst.instance_id] = goldPaths(inst.patch);
    } catch {
      // an unreadable gold patch only matters to metrics; eval-loc reports the instance as without gold
    }
  }
  const selection: StageSelection = {
    stage,
    dataset: settings.dataset,
    instances: ordered.map((i) => i.instance_id),
    gold,
    createdAt: new Date().toISOString(),
    settings: {
      embedder: settings.embedderId,
      queryPreset: settings.queryPreset ?? 'raw+structural',
      environmentReports: settings.environmentReports ?? 'drop',
      options,
    },
  };
  await writeJsonAtomic(selectionPath(settings.runDir, stage), selection);

  return runStage<RetrieveOutput>({
    layout: new RunLayout(settings.runDir),
    stage,
    instances: ordered,
    concurrency: 1,
    onEvent: settings.onEvent,
    onInstanceDone: deps.releaseRepo ? releaseAfterLastInstance(ordered, (repo) => deps.releaseRepo!(repo)) : undefined,
    work: (inst) =>
      retrieveForInstance(inst, deps, {
        embedderId: settings.embedderId,
        options,
        queries:
          settings.queriesFor?.(inst) ??
          defaultQueries(inst.problem_statement, settings.queryPreset, { environmentReports: settings.environmentReports }),
      }),
  });
}
