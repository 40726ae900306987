/**
 * A recorded file-localization run as one tier of a cascade: per instance the ranked files, the confidence
 * signals and what the answer cost. Reads any run folder with a file-localization stage (a locfix run, a
 * `locfix retrieve` run, or an imported published run), so the calibration report and the cascade replay
 * treat them alike.
 */
import { localizerMayUseModel } from '../localizer/registry.ts';
import path from 'node:path';
import type { ConfidenceSignals } from '../src/artifacts/confidence.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import { rankedPathsOf } from '../src/artifacts/localization.ts';
import type { StageSelection } from '../src/run/run-layout.ts';
import { openRunFolder } from './run-folder.ts';
import { readJsonIfExists } from '../src/util/fsx.ts';

export interface TierAnswer {
  files: string[];
  confidence: ConfidenceSignals;
  /** LLM API calls recorded for the answer (0 for model-free localizers and for imports that do not record them) */
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** the localizer recorded token usage (model-free answers count as recorded: they used none) */
  tokensRecorded: boolean;
  /** the localizer used a model at all */
  usesLlm: boolean;
}

export interface TierRun {
  /** the run folder's name unless given */
  name: string;
  dir: string;
  stage: string;
  localizer: string;
  instances: string[];
  gold: Record<string, string[]>;
  /** instances with a usable answer (failed and unfinished ones are absent) */
  answers: Map<string, TierAnswer>;
}

/** Any run folder with a file-localization stage (localize-files, or retrieve for `locfix retrieve` runs). */
export async function loadTierRun(dir: string, name = path.basename(dir)): Promise<TierRun> {
  const folder = await openRunFolder(dir);
  const stage = folder.fileStage;
  if (!stage) throw new Error(`${dir}: no file localization (localize-files or retrieve); it has ${folder.stages.join(', ') || 'no stage'}`);
  const layout = folder.layout;
  const selection = await readJsonIfExists<StageSelection>(layout.selectionPath(stage));
  const instances = selection?.instances ?? folder.instances.map((i) => i.id);
  const gold = Object.fromEntries(folder.instances.map((i) => [i.id, i.goldFiles]));
  const localizer = folder.arm.localizer;
  const answers = new Map<string, TierAnswer>();
  for (const id of instances) {
    const artifact = await readJsonIfExists<{ status?: string; output?: FileLocalization }>(layout.artifactPath(stage, id)).catch(() => undefined);
    const files = rankedPathsOf(artifact);
    if (!files || !artifact?.output) continue;
    const out = artifact.output;
    const imported = (out.details as { imported?: { tokensRecorded?: boolean } } | undefined)?.imported;
    // a locfix answer used a model when it recorded calls (cached ones count: they are what it cost); an
    // imported one, unless a model-free localizer made it
    const usesLlm = imported ? localizerMayUseModel(localizer) : (out.usage?.calls ?? 0) > 0;
    answers.set(id, {
      files,
      confidence: out.confidence ?? {},
      calls: out.usage?.calls ?? 0,
      promptTokens: out.usage?.promptTokens ?? 0,
      completionTokens: out.usage?.completionTokens ?? 0,
      tokensRecorded: imported ? !!imported.tokensRecorded : true,
      usesLlm,
    });
  }
  return { name, dir, stage, localizer, instances, gold, answers };
}

/** 1 when the first file is a gold file, else 0; undefined without gold. */
export function top1Hit(files: readonly string[] | undefined, gold: readonly string[] | undefined): number | undefined {
  if (!gold?.length) return undefined;
  return files?.[0] !== undefined && gold.includes(files[0]) ? 1 : 0;
}

/** 1 / rank of the first gold file (0 when none is ranked). */
export function reciprocalRank(files: readonly string[] | undefined, gold: readonly string[]): number {
  const i = (files ?? []).findIndex((f) => gold.includes(f));
  return i < 0 ? 0 : 1 / (i + 1);
}
