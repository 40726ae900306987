/**
 * The file-localizer contract. Every localizer — `retrieval` (model-free), `blagent`, `agentless`,
 * `oracle`, and whatever comes next — takes one instance and hands the same artifact downstream, so the
 * function/line/repair stages and every report treat them alike.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RepoIndex } from '../src/index/types.ts';
import type { FileParser } from '../src/index/file-parser.ts';
import type { ChatModel } from '../src/llm/types.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import type { RepoGraph } from '../src/graph/repo-graph.ts';
import type { ReadOnlyWorkspace, ReadOnlyWorkspaceOptions } from '../src/sandbox/types.ts';

export interface LocalizerContext {
  instance: SweInstance;
  snapshot: RepoSnapshot;
  /**
   * the retrieval index of the snapshot (built on first use, shared across stages); with `parser`, an index
   * of the same snapshot chunked differently, through the same embedder, vector store and caches
   */
  index(parser?: FileParser): Promise<RepoIndex>;
  /** the code graph of the snapshot (facts cached next to the index); absent: the localizer builds one uncached */
  graph?(): Promise<RepoGraph>;
  /** a read-only sandbox holding the snapshot (the caller disposes it); absent: no sandbox backend configured */
  workspace?(options: Omit<ReadOnlyWorkspaceOptions, 'runId'>): Promise<ReadOnlyWorkspace>;
  /** undefined when no model is configured; LLM localizers then fail with a clear message or degrade */
  llm?: ChatModel;
  signal?: AbortSignal;
}

export interface FileLocalizer {
  readonly name: string;
  localize(ctx: LocalizerContext): Promise<FileLocalization>;
}
