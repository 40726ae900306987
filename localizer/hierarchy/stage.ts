/**
 * The function-level (`localize-functions`) and line-level (`localize-lines`) stages, as `locfix run` and
 * `locfix localize-functions|lines` run them. They take the top files of any file localizer's ranking, so
 * Agentless' hierarchy runs the same after `blagent`, `agentless`, `retrieval` or `oracle`.
 */
import { DEFAULT_TOP_FILES, type FileLocalization, type Handoff } from '../../src/artifacts/localization.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { STAGE, type PipelineStage } from '../../src/run/stage.ts';
import { localizeEditLocations, type EditLocationsOptions, type EditLocationsOutput } from './edit-locations.ts';
import { localizeRelatedElements, type RelatedElementsOptions, type RelatedElementsOutput } from './related-elements.ts';

export { DEFAULT_TOP_FILES };

export interface FunctionStageOutput extends RelatedElementsOutput {
  /** the file localizer whose ranking was used (absent in artifacts written before it was recorded) */
  fileLocalizer?: string;
  /** the handoff contract the stage ran under (absent in older artifacts: top) */
  handoff?: Handoff;
  /** the files the file localizer handed over */
  handed?: string[];
  /** filled from the gold patch (localizer/oracle/stages.ts): an upper bound, not a result */
  oracle?: true;
}

/**
 * top: the first topFiles, nothing else (the Agentless hierarchy; the default). soft: the same as ranked
 * candidates, and places the model names in other existing files are followed. hard: only the localizer's
 * predicted set (the explorer's answer), whole.
 */
export type { Handoff };

/**
 * The files a file localization hands to the hierarchy. A soft handoff takes the first `topFiles` as ranked
 * candidates; later stages may look beyond them. A hard gate takes the localizer's predicted set (the
 * explorer's answer), or its first `topFiles` when it emits no set, and nothing else is visible.
 */
export function handedFiles(files: FileLocalization, handoff: Handoff, topFiles: number): string[] {
  if (handoff === 'hard' && files.predicted) return [...new Set(files.predicted)];
  return files.files.slice(0, topFiles).map((f) => f.path);
}

export interface LineStageOutput extends EditLocationsOutput {
  fileLocalizer?: string;
  handoff?: Handoff;
  /** the files the stage was given (top N of the ranking) */
  files: string[];
  /** filled from the gold patch (localizer/oracle/stages.ts): an upper bound, not a result */
  oracle?: true;
}

/** What the hierarchy needs from the run's services (app/services.ts provides it). */
export interface HierarchyServices {
  snapshot(repo: string, commit: string): Promise<RepoSnapshot>;
  requireLlm(purpose: string): ChatModel;
}

const snapshotOf = (services: HierarchyServices, instance: SweInstance) => services.snapshot(instance.repo, instance.base_commit);

export function functionLocalizationStage(services: HierarchyServices, options: RelatedElementsOptions = {}): PipelineStage<FunctionStageOutput> {
  const topFiles = options.topFiles ?? DEFAULT_TOP_FILES;
  const handoff = options.handoff ?? 'top';
  return {
    name: STAGE.functions,
    run: async (input) => {
      const files = await input.output<FileLocalization>(STAGE.files);
      const llm = services.requireLlm(STAGE.functions);
      const snapshot = await snapshotOf(services, input.instance);
      const top = handedFiles(files, handoff, topFiles);
      const out = await localizeRelatedElements({ instance: input.instance, snapshot, files: top }, { llm }, { ...options, topFiles: top.length, handoff });
      return { fileLocalizer: files.localizer, handoff, handed: top, ...out };
    },
  };
}

export function lineLocalizationStage(services: HierarchyServices, options: EditLocationsOptions & { handoff?: Handoff } = {}): PipelineStage<LineStageOutput> {
  const topFiles = options.topFiles ?? DEFAULT_TOP_FILES;
  const handoff = options.handoff ?? 'top';
  return {
    name: STAGE.lines,
    run: async (input) => {
      const files = await input.output<FileLocalization>(STAGE.files);
      const related = await input.output<FunctionStageOutput>(STAGE.functions);
      const llm = services.requireLlm(STAGE.lines);
      const snapshot = await snapshotOf(services, input.instance);
      // a soft handoff adds the files the function level followed beyond the handed ones
      const top = [...new Set([...handedFiles(files, handoff, topFiles), ...(handoff === 'soft' ? (related.beyond ?? []) : [])])];
      const { handoff: _, ...lineOptions } = options;
      const out = await localizeEditLocations(
        { instance: input.instance, snapshot, files: top, related: related.locations },
        { llm },
        { ...lineOptions, topFiles: top.length },
      );
      return { fileLocalizer: files.localizer, handoff, files: top, ...out };
    },
  };
}
