/**
 * What produced a run, in one canonical form: the **arm**. Two runs are one arm exactly when their configurations
 * are equal once every default is written out, whatever was typed and whichever command ran them: `locfix run`
 * records `{localizer: {name, options}}` as the config gave it, `locfix localize` the options as parsed, `locfix
 * retrieve` its query preset and resolved retriever options under other names. Each is brought to the form
 * `canonicalLocalizerOptions` gives (the localizer's own defaults applied, nested tiers likewise) before the key is
 * made, so folders written by older versions join the arm they belong to as well.
 */
import { llmSection } from '../src/llm/config.ts';
import path from 'node:path';
import { artifactSettingsOfConfig } from '../src/config.ts';
import type { RunManifest } from '../src/run/manifest.ts';
import type { StageSelection } from '../src/run/run-layout.ts';
import { STAGE } from '../src/run/stage.ts';
import { stableJson } from '../src/util/settings-diff.ts';
import { canonicalLocalizerOptions, localizerMayUseModel } from '../localizer/registry.ts';

/** `locfix retrieve` writes its file rankings here instead of localize-files/ */
export const RETRIEVE_STAGE = 'retrieve';

export type RunFolderKind = 'pipeline' | 'stage' | 'imported' | 'merged';

/** What produced a run: runs of one arm differ by seed alone and are repeats of one another. */
export interface RunArm {
  localizer: string;
  model?: string;
  embedder?: string;
  dataset?: string;
  seed?: number;
  /** the canonical settings that decide the artifacts, seed left out (a stable JSON text); undefined when the
   * folder does not record them all (a stage folder of an older locfix): such a run is an arm of its own */
  key?: string;
  /** those settings (canonical where the folder records them), for the reports and `merge`'s refusals */
  settings?: Record<string, unknown>;
}

/** The key under which a stage folder's file localization is recorded, whichever command made it. */
const FILE_LOCALIZATION = 'file-localization';

function withoutSeed(settings: Record<string, unknown>): Record<string, unknown> {
  const { seed: _seed, ...rest } = settings;
  return rest;
}

/** A dataset file is named by its file name (one command records it as typed, another resolved); a Hub name as is. */
function datasetName(dataset: string | undefined): string | null {
  if (!dataset) return null;
  return /\.(jsonl?|parquet)$/i.test(dataset) ? path.basename(dataset) : dataset;
}

/** The localizer and its options in canonical form; options that no longer validate are kept as recorded. */
async function canonicalLocalizer(name: string, options: Record<string, unknown>): Promise<{ name: string; options: Record<string, unknown> }> {
  try {
    return { name, options: await canonicalLocalizerOptions(name, options) };
  } catch {
    return { name, options };
  }
}

/**
 * A stage command's record of file localization (`localize`: the localizer's name and parsed options; `retrieve`:
 * its query preset and resolved retriever options) in the form a `locfix run` records it. The model counts only
 * for a localizer that may call one: a model-free localizer run with `--llm` is the same configuration.
 */
async function canonicalFileStage(stage: string, recorded: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { localizer, localizerOptions, queryPreset, environmentReports, options, llm, ...rest } = recorded;
  const name = typeof localizer === 'string' ? localizer : 'unknown';
  const given =
    stage === RETRIEVE_STAGE ? { queries: queryPreset, environmentReports, retrieval: options } : ((localizerOptions ?? {}) as Record<string, unknown>);
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined && v !== null));
  return { ...rest, localizer: await canonicalLocalizer(name, defined), llm: localizerMayUseModel(name) ? (llm ?? null) : null };
}

/** A stage folder's settings, by stage, with file localization under one name in canonical form. */
async function canonicalStageSettings(settings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [stage, recorded] of Object.entries(settings)) {
    const fileStage = stage === STAGE.files || stage === RETRIEVE_STAGE;
    if (fileStage && recorded && typeof recorded === 'object') out[FILE_LOCALIZATION] = await canonicalFileStage(stage, recorded as Record<string, unknown>);
    else out[stage] = recorded;
  }
  return out;
}

/** The artifact settings a `locfix run` manifest records, or, for one written before they were, its config's. */
function recordedSettings(manifest: RunManifest): Record<string, unknown> | undefined {
  if (manifest.settings) return manifest.settings;
  // a config of an older schema gives none: the run is an arm of its own
  return manifest.kind === 'stage' || manifest.kind === 'imported' ? undefined : artifactSettingsOfConfig(manifest.config);
}

/** A pipeline run's settings with its localizer's options in canonical form. */
async function canonicalRunSettings(settings: Record<string, unknown>): Promise<Record<string, unknown>> {
  const localizer = settings.localizer as { name?: unknown; options?: unknown } | undefined;
  if (!localizer || typeof localizer.name !== 'string') return settings;
  return { ...settings, localizer: await canonicalLocalizer(localizer.name, (localizer.options ?? {}) as Record<string, unknown>) };
}

export async function armOf(kind: RunFolderKind, manifest: RunManifest | undefined, selections: Map<string, StageSelection>): Promise<RunArm> {
  const recorded = manifest ? recordedSettings(manifest) : undefined;
  if (manifest && recorded && (kind === 'pipeline' || kind === 'merged' || manifest.kind === 'stage')) {
    const config = manifest.config as { dataset?: string; llm?: string | { model: string } };
    const settings = manifest.kind === 'stage' ? await canonicalStageSettings(recorded) : await canonicalRunSettings(recorded);
    // a replayed run answers with the recorded model's identity: its label says it is a replay of it
    const llmSpec = llmSection(config.llm)?.model;
    const dataset = config.dataset ?? manifest.dataset;
    return {
      localizer: manifest.localizer,
      model: llmSpec?.startsWith('replay:') && manifest.models.llm ? `replay of ${manifest.models.llm}` : manifest.models.llm,
      embedder: manifest.models.embedder,
      dataset,
      seed: manifest.seed,
      key: stableJson({ ...withoutSeed(settings), dataset: datasetName(dataset) }),
      settings,
    };
  }
  const first = [...selections.values()][0];
  const selected = (first?.settings ?? {}) as Record<string, unknown>;
  const imported = kind === 'imported';
  return {
    localizer: String(selected.localizer ?? manifest?.localizer ?? 'unknown'),
    ...(manifest?.models.llm ? { model: manifest.models.llm } : {}),
    embedder: typeof selected.embedder === 'string' ? selected.embedder : undefined,
    dataset: first?.dataset,
    // an imported run is what its file holds; an older stage folder did not record its options
    ...(imported ? { key: stableJson({ ...selected, dataset: datasetName(first?.dataset) }) } : {}),
    settings: selected,
  };
}
