/**
 * The model-free function level as a pipeline stage (`functionLevel: {"localizer": "retrieval"}`): it writes the
 * artifact the model's function level writes (localizer/hierarchy/stage.ts), so the line level and every later
 * stage run unchanged, with one model stage less. The first `elements` of the ranking are handed on as Agentless
 * location lines (`function: Class.method`, `class: Class`); the whole ranking is kept in the artifact for the
 * function-level metrics.
 */
import { DEFAULT_TOP_FILES, type FileLocalization, type Handoff } from '../../src/artifacts/localization.ts';
import { STAGE, type PipelineStage } from '../../src/run/stage.ts';
import { historyExpansion } from '../../src/index/word-associations.ts';
import type { HierarchyServices } from '../hierarchy/stage.ts';
import { handedFiles, type FunctionStageOutput } from '../hierarchy/stage.ts';
import { candidateFiles } from './candidates.ts';
import { elementKey } from './elements.ts';
import type { FunctionRankingOptions } from './options.ts';
import { rankElements, type RankedElement } from './rank.ts';

export const FUNCTION_RANKING_LOCALIZER = 'retrieval';

/** What the stage keeps beside the model stage's fields: the ranking the handed elements are the head of. */
export interface FunctionRankingOutput extends FunctionStageOutput {
  /** every element of the handed files, best first, with its score and channels */
  ranking: Array<{ key: string; score: number; channels: RankedElement['channels'] }>;
  functionLocalizer: typeof FUNCTION_RANKING_LOCALIZER;
  /** why the history-meaning channel was left out for this instance (its history could not be read) */
  historyError?: string;
}

const NO_USAGE = { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 };

function locationLine(e: RankedElement): string {
  return `${e.kind === 'class' ? 'class' : 'function'}: ${e.name}`;
}

export function functionRankingStage(
  services: Pick<HierarchyServices, 'snapshot'>,
  options: FunctionRankingOptions & { topFiles?: number; handoff?: Handoff },
): PipelineStage<FunctionRankingOutput> {
  const topFiles = options.topFiles ?? DEFAULT_TOP_FILES;
  const handoff = options.handoff ?? 'top';
  return {
    name: STAGE.functions,
    usesModel: false,
    run: async (input) => {
      const t0 = performance.now();
      const files = await input.output<FileLocalization>(STAGE.files);
      const snapshot = await services.snapshot(input.instance.repo, input.instance.base_commit);
      // the handed files, as the line level will see them; a soft handoff lets it look further (the first
      // `files`), and the line level follows the places it names there
      const handed = handedFiles(files, handoff, topFiles);
      const rankedFiles = handoff === 'soft' ? files.files.slice(0, Math.max(options.files, handed.length)).map((f) => f.path) : handed;
      const candidates = await candidateFiles(snapshot, rankedFiles, rankedFiles.length);
      const expansion = await historyExpansion(snapshot, input.instance.problem_statement, options.historyCommits);
      const ranked = rankElements(input.instance.problem_statement, candidates.files, options.weights, {
        expansion: expansion.text,
        changes: expansion.changes,
      });
      const head = ranked.slice(0, options.elements);
      const locations: Record<string, string[]> = {};
      for (const e of head) (locations[e.path] ??= []).push(locationLine(e));
      // places outside the handed files: a soft handoff follows them, as it follows a model's
      const beyond = [...new Set(head.map((e) => e.path))].filter((p) => !handed.includes(p));
      return {
        fileLocalizer: files.localizer,
        functionLocalizer: FUNCTION_RANKING_LOCALIZER,
        handoff,
        handed,
        files: candidates.files.map((f) => f.path),
        locations,
        elements: head.map((e) => ({ path: e.path, kind: e.kind, raw: locationLine(e), name: e.name, range: { start: e.startLine, end: e.endLine } })),
        codeElements: head.map((e) => ({ path: e.path, name: e.name })),
        unresolved: [],
        ignored: [],
        attempts: 0,
        rawOutputs: [],
        missingFiles: candidates.missing,
        ...(beyond.length ? { beyond } : {}),
        ...(expansion.error ? { historyError: expansion.error } : {}),
        trace: [],
        usage: NO_USAGE,
        timingsMs: { total: performance.now() - t0 },
        ranking: ranked.map((e) => ({ key: elementKey(e.path, e.name), score: e.score, channels: e.channels })),
      };
    },
  };
}
