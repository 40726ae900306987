/**
 * A recorded file-localization run as one tier of a cascade: per instance the ranked files, the confidence
 * signals and what the answer cost. Reads any run folder with a file-localization stage (a locfix run, a
 * `locfix retrieve` run, or an imported published run), so the calibration report and the cascade replay
 * treat them alike.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ConfidenceSignals } from '../src/artifacts/confidence.ts';
import type { FileLocalization } from '../src/artifacts/localization.ts';
import { rankedPathsOf } from '../src/artifacts/localization.ts';
import { RunLayout, type StageSelection } from '../src/run/run-layout.ts';
import { STAGE } from '../src/run/stage.ts';
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

/** Localizers that answer without a model. */
const MODEL_FREE = new Set(['retrieval', 'oracle']);

/** The stage to read: `localize-files`, or `retrieve` for runs made by `locfix retrieve`. */
function stageOf(dir: string): string {
  const layout = new RunLayout(dir);
  if (existsSync(layout.selectionPath(STAGE.files))) return STAGE.files;
  if (existsSync(layout.selectionPath('retrieve'))) return 'retrieve';
  throw new Error(`${dir}: no ${STAGE.files}.selection.json or retrieve.selection.json (not a file-localization run)`);
}

export async function loadTierRun(dir: string, name = path.basename(dir)): Promise<TierRun> {
  const stage = stageOf(dir);
  const layout = new RunLayout(dir);
  const selection = await readJsonIfExists<StageSelection>(layout.selectionPath(stage));
  if (!selection || !Array.isArray(selection.instances)) throw new Error(`${layout.selectionPath(stage)}: no "instances" list`);
  const localizer = String((selection.settings as { localizer?: unknown } | undefined)?.localizer ?? 'unknown');
  const answers = new Map<string, TierAnswer>();
  for (const id of selection.instances) {
    const artifact = await readJsonIfExists<{ status?: string; output?: FileLocalization }>(layout.artifactPath(stage, id)).catch(() => undefined);
    const files = rankedPathsOf(artifact);
    if (!files || !artifact?.output) continue;
    const out = artifact.output;
    const imported = (out.details as { imported?: { tokensRecorded?: boolean } } | undefined)?.imported;
    // a locfix answer used a model when it recorded calls (cached ones count: they are what it cost); an
    // imported one, unless a model-free localizer made it
    const usesLlm = imported ? !MODEL_FREE.has(localizer) : (out.usage?.calls ?? 0) > 0;
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
  return { name, dir, stage, localizer, instances: selection.instances, gold: selection.gold ?? {}, answers };
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
