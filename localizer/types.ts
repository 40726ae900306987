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
import type { RepoGraph } from '../src/index/graph/repo-graph.ts';
import type { ReadOnlyWorkspace, ReadOnlyWorkspaceOptions } from '../src/sandbox/types.ts';
import type { PartStore } from '../src/run/part-store.ts';

/**
 * One instance as a localizer sees it: the instance, its snapshot and the repository index, which every
 * localizer has, and the capabilities (localizer/capabilities.ts) its registry entry declares. The assembly
 * hands a localizer only what it declared and checks before any instance that the run can supply what it
 * needs, so a declared need is present here.
 */
export interface LocalizerContext {
  instance: SweInstance;
  snapshot: RepoSnapshot;
  /**
   * the retrieval index of the snapshot (built on first use, shared across stages; its code-graph channel is
   * built on first use too); with `parser`, an index of the same snapshot chunked differently, through the
   * same embedder, vector store and caches
   */
  index(parser?: FileParser): Promise<RepoIndex>;
  /** `model`: the run's chat model */
  llm?: ChatModel;
  /** `graph`: the code graph alone, without building the index (absent: the localizer builds one uncached) */
  graph?(): Promise<RepoGraph>;
  /** `workspace`: a read-only sandbox holding the snapshot, from the execution backend (the caller disposes it) */
  workspace?(options: Omit<ReadOnlyWorkspaceOptions, 'runId'>): Promise<ReadOnlyWorkspace>;
  /** `parts`: this instance's parts of the stage (kept across resumes): a cascade keeps each tier's answer here */
  parts?: PartStore;
  signal?: AbortSignal;
}

/** What a localizer sees of the whole run before any instance is localized (`prepareRun`). */
export interface LocalizerRun {
  instances: readonly SweInstance[];
  context(instance: SweInstance): Promise<LocalizerContext>;
  /** the instance's parts, without opening its repository (what a resume finds kept) */
  partsOf?(instance: SweInstance): PartStore | undefined;
  /** runs work for one instance under that instance's and the run's spend caps */
  within<T>(instance: SweInstance, work: () => Promise<T>): Promise<T>;
  /** true once the run should stop (Ctrl-C, run spend cap): start nothing more */
  shouldStop(): boolean;
  /** run-level parts (a cascade's plan) */
  parts?: PartStore;
}

/** What each capability (capabilities.ts) puts into a localizer's context. */
export interface CapabilityMembers {
  model: { llm: ChatModel };
  graph: { graph(): Promise<RepoGraph> };
  workspace: { workspace(options: Omit<ReadOnlyWorkspaceOptions, 'runId'>): Promise<ReadOnlyWorkspace> };
  parts: { parts: PartStore };
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** A context in which what the capabilities `C` supply is present by type: a localizer that declared them reads them without checking. */
export type ContextWith<C extends keyof CapabilityMembers> = LocalizerContext & ([C] extends [never] ? unknown : UnionToIntersection<CapabilityMembers[C]>);

/**
 * A file localizer; `Needs` are the capabilities its registry entry declares as needed, so its `localize` sees them
 * present (the stage checks the run can supply them before any instance, and `withCapabilities` once per call).
 */
export interface FileLocalizer<Needs extends keyof CapabilityMembers = never> {
  readonly name: string;
  localize(ctx: ContextWith<Needs>): Promise<FileLocalization>;
  /**
   * Run-level work before any instance, for a localizer whose answer for one instance depends on the others
   * (a cascade that escalates the least confident share of the run). Its per-instance results must go to
   * parts, so `localize` and a resume find them.
   */
  prepareRun?(run: LocalizerRun): Promise<void>;
}
