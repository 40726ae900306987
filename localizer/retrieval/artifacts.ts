/**
 * On-disk layout of a retrieval run, on top of the shared run layout (src/orchestrator/run-layout.ts):
 *
 *   runs/<id>/<stage>.selection.json   the selected instances (in order) and their gold files
 *   runs/<id>/<stage>/<instance>.json  a StageArtifact whose `output` is a RetrieveOutput
 *
 * The selection file lists every selected instance, so metrics keep failed and never-finished instances
 * in the denominator.
 */
import path from 'node:path';
import type { RetrievalResult } from './retriever.ts';
import type { RetrievalOptions } from './options.ts';

export interface StageSelection {
  stage: string;
  dataset: string;
  /** every selected instance id, in processing order */
  instances: string[];
  /** gold files per instance, from the reference patch (absent when the dataset has no patch) */
  gold: Record<string, string[]>;
  createdAt: string;
  settings: Record<string, unknown>;
}

/** `output` of a retrieve StageArtifact. */
export interface RetrieveOutput extends RetrievalResult {
  repo: string;
  base_commit: string;
  embedder: string;
  options: RetrievalOptions;
  /** index build/update for this instance, then retrieval proper */
  timingsMs: RetrievalResult['timingsMs'] & { index: number; retrieve: number };
  indexStats?: Record<string, unknown>;
}

export function selectionPath(runDir: string, stage: string): string {
  return path.join(runDir, `${stage}.selection.json`);
}

/**
 * Ranked paths of a stage artifact with status "ok": `output.ranking` (or a top-level `ranking`) as
 * objects with `path` or as plain strings. undefined for errors and unreadable shapes.
 */
export function rankedPathsOf(artifact: unknown): string[] | undefined {
  if (!artifact || typeof artifact !== 'object') return undefined;
  const a = artifact as { status?: unknown; ranking?: unknown; output?: { ranking?: unknown; files?: unknown } };
  if (a.status !== 'ok') return undefined;
  // retrieval artifacts rank in `ranking`; file-localizer artifacts (localizer/types.ts) in `files`
  const ranking = a.output?.ranking ?? a.output?.files ?? a.ranking;
  if (!Array.isArray(ranking)) return undefined;
  return ranking.map((r: unknown) => (typeof r === 'string' ? r : String((r as { path?: unknown }).path)));
}
