/**
 * The file-localization stage: runs one FileLocalizer over a selection of instances through the shared stage
 * runner (one artifact per instance under runs/<id>/<stage>/, resumable, failure-isolated) and writes the
 * selection file that `eval-loc` scores against.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import { runStage, type StageArtifact, type StageEvent } from '../src/run/stage-runner.ts';
import { RunLayout } from '../src/run/run-layout.ts';
import type { Services } from '../src/services.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import { groupByRepo, releaseAfterLastInstance } from '../src/run/repo-release.ts';
import { selectionPath, type StageSelection } from './retrieval/artifacts.ts';
import type { FileLocalizer } from './types.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';

export const FILE_STAGE = 'localize-files';

export interface LocalizationStageSettings {
  runDir: string;
  dataset: string;
  stage?: string;
  /** instances localized at once (LLM-bound localizers benefit; indexing is CPU-bound) */
  concurrency?: number;
  retryErrors?: boolean;
  onEvent?: (event: StageEvent) => void;
}

export async function writeSelection(runDir: string, stage: string, dataset: string, instances: readonly SweInstance[], settings: Record<string, unknown>): Promise<void> {
  const gold: Record<string, string[]> = {};
  for (const inst of instances) if (inst.patch) gold[inst.instance_id] = goldPaths(inst.patch);
  const selection: StageSelection = {
    stage,
    dataset,
    instances: instances.map((i) => i.instance_id),
    gold,
    createdAt: new Date().toISOString(),
    settings,
  };
  await writeJsonAtomic(selectionPath(runDir, stage), selection);
}

export async function runFileLocalization(
  instances: readonly SweInstance[],
  localizer: FileLocalizer,
  services: Services,
  settings: LocalizationStageSettings,
): Promise<Array<StageArtifact<FileLocalization>>> {
  const stage = settings.stage ?? FILE_STAGE;
  // Consecutive instances of one repository reuse its index caches.
  const ordered = groupByRepo(instances);
  await writeSelection(settings.runDir, stage, settings.dataset, ordered, { localizer: localizer.name, embedder: services.embedder.id });
  return runStage<FileLocalization>({
    layout: new RunLayout(settings.runDir),
    stage,
    instances: ordered,
    concurrency: settings.concurrency ?? 1,
    retryErrors: settings.retryErrors,
    onEvent: settings.onEvent,
    // the last instance of a repository done: its indexes and parse memo are not needed any more
    onInstanceDone: releaseAfterLastInstance(ordered, (repo) => services.releaseRepo(repo)),
    work: async (instance) => {
      const snapshot = await services.snapshot(instance.repo, instance.base_commit);
      return localizer.localize({ instance, snapshot, index: (parser) => services.index(snapshot, parser), llm: services.llm });
    },
  });
}
