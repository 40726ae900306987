/**
 * The function-level (`localize-functions`) and line-level (`localize-lines`) stages: one artifact per
 * instance under runs/<id>/<stage>/, resumable like every stage. They read the file ranking of any file
 * localizer from runs/<id>/localize-files/<instance>.json (or another stage via `fileStage`) and take its
 * top files, so Agentless' hierarchy runs the same after `blagent`, `agentless`, `retrieval` or `oracle`.
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readArtifact, runStage, type StageArtifact, type StageEvent } from '../../src/run/stage-runner.ts';
import type { Services } from '../../src/services.ts';
import { groupByRepo } from '../../src/run/repo-release.ts';
import { FILE_STAGE } from '../stage.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { localizeEditLocations, type EditLocationsOptions, type EditLocationsOutput } from './edit-locations.ts';
import { localizeRelatedElements, type RelatedElementsOptions, type RelatedElementsOutput } from './related-elements.ts';

export const FUNCTION_STAGE = 'localize-functions';
export const LINE_STAGE = 'localize-lines';

export interface HierarchyStageSettings {
  runDir: string;
  /** where the ranked files come from (default localize-files) */
  fileStage?: string;
  /** where the related elements come from (line stage only; default localize-functions) */
  functionStage?: string;
  stage?: string;
  concurrency?: number;
  retryErrors?: boolean;
  force?: boolean;
  onEvent?: (event: StageEvent) => void;
}

export interface FunctionStageOutput extends RelatedElementsOutput {
  /** the file localizer whose ranking was used */
  fileLocalizer: string;
}

export interface LineStageOutput extends EditLocationsOutput {
  fileLocalizer: string;
  /** the files the stage was given (top N of the ranking) */
  files: string[];
}

async function okOutput<T>(layout: RunLayout, stage: string, instanceId: string): Promise<T> {
  const artifact = await readArtifact<T>(layout, stage, instanceId);
  if (!artifact) throw Object.assign(new Error(`no ${stage} artifact for ${instanceId} in ${layout.root} (run that stage first)`), { kind: 'missing-input' });
  if (artifact.status !== 'ok' || artifact.output === undefined) {
    throw Object.assign(new Error(`${stage} failed for ${instanceId}: ${artifact.error?.message ?? 'no output'}`), { kind: 'input-failed' });
  }
  return artifact.output;
}

function requireLlm(services: Services) {
  const llm = services.llm;
  if (!llm) throw new Error('the hierarchy stages need a chat model (--llm)');
  return llm;
}

/** One hierarchy stage over the instances (repository by repository), with the settings both stages share. */
function runHierarchyStage<T>(
  instances: readonly SweInstance[],
  settings: HierarchyStageSettings,
  defaultStage: string,
  work: (instance: SweInstance, layout: RunLayout) => Promise<T>,
): Promise<Array<StageArtifact<T>>> {
  const layout = new RunLayout(settings.runDir);
  return runStage<T>({
    layout,
    stage: settings.stage ?? defaultStage,
    instances: groupByRepo(instances),
    concurrency: settings.concurrency ?? 1,
    retryErrors: settings.retryErrors,
    force: settings.force,
    onEvent: settings.onEvent,
    work: (instance) => work(instance, layout),
  });
}

export async function runFunctionLocalization(
  instances: readonly SweInstance[],
  services: Services,
  settings: HierarchyStageSettings,
  options: RelatedElementsOptions = {},
): Promise<Array<StageArtifact<FunctionStageOutput>>> {
  const llm = requireLlm(services);
  const fileStage = settings.fileStage ?? FILE_STAGE;
  return runHierarchyStage(instances, settings, FUNCTION_STAGE, async (instance, layout) => {
    const files = await okOutput<FileLocalization>(layout, fileStage, instance.instance_id);
    const snapshot = await services.snapshot(instance.repo, instance.base_commit);
    const out = await localizeRelatedElements({ instance, snapshot, files: files.files.map((f) => f.path) }, { llm }, options);
    return { fileLocalizer: files.localizer, ...out };
  });
}

export async function runLineLocalization(
  instances: readonly SweInstance[],
  services: Services,
  settings: HierarchyStageSettings,
  options: EditLocationsOptions = {},
): Promise<Array<StageArtifact<LineStageOutput>>> {
  const llm = requireLlm(services);
  const fileStage = settings.fileStage ?? FILE_STAGE;
  const functionStage = settings.functionStage ?? FUNCTION_STAGE;
  return runHierarchyStage(instances, settings, LINE_STAGE, async (instance, layout) => {
    const files = await okOutput<FileLocalization>(layout, fileStage, instance.instance_id);
    const related = await okOutput<RelatedElementsOutput>(layout, functionStage, instance.instance_id);
    const snapshot = await services.snapshot(instance.repo, instance.base_commit);
    const top = files.files.slice(0, options.topFiles ?? 3).map((f) => f.path);
    const out = await localizeEditLocations({ instance, snapshot, files: top, related: related.locations }, { llm }, options);
    return { fileLocalizer: files.localizer, files: top, ...out };
  });
}
