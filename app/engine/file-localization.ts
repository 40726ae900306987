/**
 * File localization assembled once, for `run`, `localize` and `retrieve` alike: the localizer made from its
 * resolved registry entry, the capabilities it declared, where its read-only workspaces come from (only a
 * localizer that declares `workspace` gets a sandbox backend), the check before any instance that the run can
 * supply what it needs, and the sweep of the workspaces a killed invocation left. Before, each command wired
 * these itself, and `retrieve` built its localizer by hand.
 */
import path from 'node:path';
import { declares } from '../../localizer/capabilities.ts';
import type { ResolvedLocalizer } from '../../localizer/registry.ts';
import { assertCapabilities, type FileStageOptions, type LocalizationServices, type LocalizationStageSettings } from '../../localizer/stage.ts';
import type { FileLocalizer } from '../../localizer/types.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';

export interface FileLocalizationAssembly {
  /** the localizer, made once (a rejection is reported by whoever awaits it) */
  readonly localizer: Promise<FileLocalizer>;
  readonly resolved: ResolvedLocalizer;
  /** what fileLocalizationStage / runFileLocalization take: run folder, declared capabilities, workspaces */
  readonly stageOptions: FileStageOptions & { runDir: string };
  /** the backend its workspaces come from, when it declares `workspace` */
  readonly workspaces?: ExecutionBackend;
  /** what runFileLocalization takes of it when the stage runs on its own (`localize`, `retrieve`) */
  readonly runSettings: Pick<LocalizationStageSettings, 'runDir' | 'stage' | 'capabilities' | 'workspaces' | 'localizerOptions'>;
  /** before any instance: stops naming each capability the run cannot supply, and its fix */
  assertReady(): void;
  /** removes the workspace sandboxes this run's killed invocations and gone locfix processes left; how many */
  sweepWorkspaces(): Promise<number>;
}

export interface FileLocalizationSetup {
  runDir: string;
  /** the artifact folder (default localize-files; `retrieve` writes retrieve/) */
  stage?: string;
  seed?: number;
  /** the sandbox backend, asked for only when the localizer declares `workspace` */
  sandbox?: () => ExecutionBackend;
  limitIndexing?: FileStageOptions['limitIndexing'];
}

export function assembleFileLocalization(resolved: ResolvedLocalizer, services: LocalizationServices, setup: FileLocalizationSetup): FileLocalizationAssembly {
  const localizer = resolved.create({ ...(setup.seed !== undefined ? { seed: setup.seed } : {}) });
  // a rejected localizer is reported by the stage that awaits it; this keeps it from counting as unhandled first
  localizer.catch(() => undefined);
  const workspaces = declares(resolved.needs, 'workspace') && setup.sandbox ? setup.sandbox() : undefined;
  const stageOptions = {
    runDir: setup.runDir,
    capabilities: resolved.needs,
    ...(setup.stage ? { name: setup.stage } : {}),
    ...(setup.limitIndexing ? { limitIndexing: setup.limitIndexing } : {}),
    ...(workspaces ? { workspaces } : {}),
  };
  return {
    localizer,
    resolved,
    stageOptions,
    ...(workspaces ? { workspaces } : {}),
    runSettings: {
      runDir: setup.runDir,
      capabilities: resolved.needs,
      localizerOptions: resolved.options,
      ...(setup.stage ? { stage: setup.stage } : {}),
      ...(workspaces ? { workspaces } : {}),
    },
    assertReady: () => assertCapabilities(resolved, services, stageOptions),
    sweepWorkspaces: async () => {
      if (!workspaces) return 0;
      const runId = path.basename(setup.runDir);
      return (await workspaces.sweep(runId).catch(() => 0)) + (await workspaces.sweepOrphans().catch(() => 0));
    },
  };
}
