/**
 * The file-localization stage: one FileLocalizer over one instance, as `locfix run` and `locfix localize`
 * (and, with the retrieval localizer, `locfix retrieve`) run it. `runFileLocalization` runs it on its own over
 * a selection (one artifact per instance under runs/<id>/<stage>/, resumable, failure-isolated) and writes
 * the selection file that `eval-loc` scores against.
 */
import type { RetryErrors } from '../src/run/stage-runner.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { goldPaths } from '../src/dataset/gold.ts';
import type { FileParser } from '../src/index/file-parser.ts';
import type { RepoIndex } from '../src/index/types.ts';
import type { ChatModel } from '../src/llm/types.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import type { RepoGraph } from '../src/index/graph/repo-graph.ts';
import type { ReadOnlyWorkspace, ReadOnlyWorkspaceOptions } from '../src/sandbox/types.ts';
import { groupByRepo, releaseAfterLastInstance } from '../src/run/repo-release.ts';
import { RunLayout, type StageSelection } from '../src/run/run-layout.ts';
import { partStoreOf } from '../src/run/part-store.ts';
import { recordStageRun } from '../src/run/manifest.ts';
import { STAGE, runStageOver, type PipelineStage } from '../src/run/stage.ts';
import type { StageArtifact, StageEvent } from '../src/run/stage-runner.ts';
import { readJsonIfExists, writeJsonAtomic } from '../src/util/fsx.ts';
import { settingsChanges } from '../src/util/settings-diff.ts';
import path from 'node:path';
import { declares, missingCapabilities, withCapabilities, type Capability, type CapabilitySupply, type LocalizerNeeds } from './capabilities.ts';
import { KindedError } from '../src/run/kinded-error.ts';
import { ERROR_KINDS } from '../src/util/error-kinds.ts';
import type { FileLocalizer, LocalizerContext } from './types.ts';

/** What file localization needs from the run's services (app/services.ts provides it). */
export interface LocalizationServices {
  snapshot(repo: string, commit: string): Promise<RepoSnapshot>;
  index(snapshot: RepoSnapshot, parser?: FileParser): Promise<RepoIndex>;
  /** the code graph alone (the `graph` capability) */
  graph?(snapshot: RepoSnapshot): Promise<RepoGraph>;
  releaseRepo(repo: string): void;
  readonly llm: ChatModel | undefined;
}

/** Where read-only workspaces come from (the `workspace` capability): the run's execution backend. */
export interface WorkspaceProvider {
  openWorkspace?(snapshot: RepoSnapshot, options: ReadOnlyWorkspaceOptions): Promise<ReadOnlyWorkspace>;
}

export interface FileStageOptions {
  /** artifact folder (default localize-files; `locfix retrieve` writes retrieve/) */
  name?: string;
  /** the run folder: localizers keep parts of their work under <run>/<stage>.parts/ (a cascade's tiers) */
  runDir?: string;
  /** limits index builds (CPU- and memory-heavy) when instances run concurrently */
  limitIndexing?: <T>(build: () => Promise<T>) => Promise<T>;
  /**
   * what the localizer declared (registry.ts `localizerNeeds`): only these capabilities reach its context. A
   * localizer built by hand (tests, benchmarks) declares nothing and is given whatever these services have.
   */
  capabilities?: LocalizerNeeds;
  /** opens the workspaces of the `workspace` capability */
  workspaces?: WorkspaceProvider;
}

/** What this stage can supply of each capability, or why not: checked against a localizer's needs before any instance. */
export function capabilitySupply(services: LocalizationServices, options: FileStageOptions): CapabilitySupply {
  return {
    model: services.llm ? true : 'a chat model: pass --llm (e.g. ollama:gpt-oss:120b, openai:MODEL@URL) or set "llm" in the config',
    graph: services.graph ? true : 'a code graph, and these services build none',
    workspace: options.workspaces?.openWorkspace ? true : 'read-only workspaces, which need a Docker execution backend (sandbox.backend local or docker-pool)',
    parts: options.runDir ? true : 'a run folder to keep its parts in',
  };
}

/**
 * Stops before any instance, naming each missing capability and its fix, when the run cannot supply what the
 * localizer needs: the one check `run` and `localize` both make.
 */
export function assertCapabilities(localizer: { name: string; needs: LocalizerNeeds }, services: LocalizationServices, options: FileStageOptions): void {
  const missing = missingCapabilities(localizer.name, localizer.needs.needs, capabilitySupply(services, options));
  if (missing) throw new KindedError(ERROR_KINDS.configuration, missing);
}

export function fileLocalizationStage(
  localizer: FileLocalizer | Promise<FileLocalizer>,
  services: LocalizationServices,
  options: FileStageOptions = {},
): PipelineStage<FileLocalization> {
  const limit = options.limitIndexing ?? ((build) => build());
  const name = options.name ?? STAGE.files;
  const granted = (c: Capability) => !options.capabilities || declares(options.capabilities, c);
  const graph = granted('graph') ? services.graph?.bind(services) : undefined;
  const openWorkspace = granted('workspace') ? options.workspaces?.openWorkspace?.bind(options.workspaces) : undefined;
  // workspaces carry the run's id, so the sandboxes of a killed invocation can be swept
  const runId = options.runDir ? path.basename(options.runDir) : undefined;
  const contextOf = async (instance: SweInstance, layout: RunLayout | undefined): Promise<LocalizerContext> => {
    const snapshot = await services.snapshot(instance.repo, instance.base_commit);
    return {
      instance,
      snapshot,
      index: (parser) => limit(() => services.index(snapshot, parser)),
      ...(graph ? { graph: () => limit(() => graph(snapshot)) } : {}),
      ...(openWorkspace ? { workspace: (o: Omit<ReadOnlyWorkspaceOptions, 'runId'>) => openWorkspace(snapshot, { ...o, ...(runId ? { runId } : {}) }) } : {}),
      ...(granted('model') && services.llm ? { llm: services.llm } : {}),
      ...(layout && granted('parts') ? { parts: partStoreOf(layout, name, instance.instance_id) } : {}),
    };
  };
  const runLayout = options.runDir ? new RunLayout(options.runDir) : undefined;
  return {
    name,
    run: async ({ instance }) => (await localizer).localize(withCapabilities(await contextOf(instance, runLayout), options.capabilities?.needs ?? [])),
    prepare: async (instances, hooks) => {
      const loaded = await localizer;
      if (!loaded.prepareRun) return;
      await loaded.prepareRun({
        instances,
        context: (instance) => contextOf(instance, hooks.layout),
        partsOf: (instance) => (granted('parts') ? partStoreOf(hooks.layout, name, instance.instance_id) : undefined),
        within: hooks.within,
        shouldStop: hooks.shouldStop,
        ...(granted('parts') ? { parts: partStoreOf(hooks.layout, name) } : {}),
      });
    },
  };
}

export interface LocalizationStageSettings {
  runDir: string;
  dataset: string;
  stage?: string;
  /** instances localized at once (LLM-bound localizers benefit; indexing is CPU-bound) */
  concurrency?: number;
  retryErrors?: RetryErrors;
  onEvent?: (event: StageEvent) => void;
  /** recorded in the selection file (what eval-loc and reports show about the run) */
  settings?: Record<string, unknown>;
  /** the localizer's options as resolved, recorded in the folder's manifest (two option sets are two arms) */
  localizerOptions?: unknown;
  /** what the localizer declared, and where its workspaces come from (FileStageOptions) */
  capabilities?: LocalizerNeeds;
  workspaces?: WorkspaceProvider;
}

/** runs/<id>/<stage>.selection.json: every selected instance in order, with its gold files. */
export async function writeSelection(
  runDir: string,
  stage: string,
  dataset: string,
  instances: readonly SweInstance[],
  settings: Record<string, unknown>,
): Promise<void> {
  const gold: Record<string, string[]> = {};
  for (const inst of instances) {
    try {
      if (inst.patch) gold[inst.instance_id] = goldPaths(inst.patch);
    } catch {
      // an unreadable gold patch only matters to metrics; eval-loc reports the instance as without gold
    }
  }
  // artifacts of this stage made under other settings must not be reused as if they were these
  const where = new RunLayout(runDir).selectionPath(stage);
  const previous = await readJsonIfExists<StageSelection>(where).catch(() => undefined);
  const changes = previous?.settings ? settingsChanges(previous.settings, settings) : [];
  if (changes.length) {
    throw new Error(
      `${path.join(runDir, stage)} was made with other settings, so its artifacts do not fit these:\n  ${changes.join('\n  ')}\n` +
        `use another --out for the new settings (or delete ${path.join(runDir, stage)} to start over)`,
    );
  }
  const selection: StageSelection = {
    stage,
    dataset,
    instances: instances.map((i) => i.instance_id),
    gold,
    createdAt: new Date().toISOString(),
    settings,
  };
  await writeJsonAtomic(where, selection);
}

export async function runFileLocalization(
  instances: readonly SweInstance[],
  localizer: FileLocalizer,
  services: LocalizationServices & { readonly embedder: { readonly id: string } },
  settings: LocalizationStageSettings,
): Promise<Array<StageArtifact<FileLocalization>>> {
  const stage = fileLocalizationStage(localizer, services, {
    name: settings.stage,
    runDir: settings.runDir,
    ...(settings.capabilities ? { capabilities: settings.capabilities } : {}),
    ...(settings.workspaces ? { workspaces: settings.workspaces } : {}),
  });
  // Consecutive instances of one repository reuse its index caches.
  const ordered = groupByRepo(instances);
  const selectionSettings = { localizer: localizer.name, embedder: services.embedder.id, ...settings.settings };
  await writeSelection(settings.runDir, stage.name, settings.dataset, ordered, selectionSettings);
  await recordStageRun(new RunLayout(settings.runDir), {
    kind: 'stage',
    stage: stage.name,
    localizer: localizer.name,
    models: { llm: services.llm?.id, embedder: services.embedder.id },
    dataset: settings.dataset,
    instances: ordered,
    settings: { ...selectionSettings, llm: services.llm?.id ?? null, localizerOptions: settings.localizerOptions ?? null },
  });
  return runStageOver(stage, ordered, {
    layout: new RunLayout(settings.runDir),
    concurrency: settings.concurrency ?? 1,
    retryErrors: settings.retryErrors,
    onEvent: settings.onEvent,
    // the last instance of a repository done: its indexes and parse memo are not needed any more
    onInstanceDone: releaseAfterLastInstance(ordered, (repo) => services.releaseRepo(repo)),
  });
}
