/**
 * The artifacts that localization stages hand downstream and that analysis reads back: the ranked files of
 * any file localizer, the trace of how they were found, and code elements as the failure analysis names
 * them. They live below every stage so that localizers, repair, validation and analysis share one shape
 * without importing each other.
 */
import type { ChatTrace, Usage } from '../llm/types.ts';
import { rankedFilesOfOutput } from '../util/legacy.ts';
import type { ConfidenceSignals } from './confidence.ts';

/** Files handed from file localization to the function level when the run says nothing (Agentless: 3). */
export const DEFAULT_TOP_FILES = 3;

export interface LocalizedFile {
  /** repository-relative path at the base commit */
  path: string;
  /** higher is better; scale is the localizer's own (retrieval score, 0–10 agent score, rank-derived …) */
  score: number;
  /** localizer-specific evidence: best chunks, agent rationale, which list it came from … */
  evidence?: Record<string, unknown>;
}

/** One step of a localizer's trace: an LLM call, a tool call, or a note (fallbacks, dropped paths …). */
export type TraceEvent =
  | { type: 'llm'; step: string; trace: ChatTrace }
  | { type: 'tool'; step: string; tool: string; input: unknown; output: string; durationMs: number }
  | { type: 'note'; step: string; message: string; data?: unknown };

export interface FileLocalization {
  localizer: string;
  /** ranked, best first; downstream stages take the first `topN` (3 by default) */
  files: LocalizedFile[];
  /** true for localizers that look at the answer (oracle): reports label them as upper bounds */
  upperBound?: boolean;
  trace: TraceEvent[];
  usage: Usage & { calls: number };
  timingsMs: Record<string, number>;
  /** function-level results when the localizer produces them (BLAgent §3.7 variant) */
  functions?: Array<{ path: string; name: string; score?: number }>;
  /** localizer-specific facts about the run of this instance (retrieval: commit, options, per-query rankings, index stats) */
  details?: Record<string, unknown>;
  /**
   * the localizer's own final file set, when it emits one (the explorer's answer): the explorer study's F1
   * and exact match score it, and a hard-gate handoff passes exactly it downstream. Absent: the first
   * files of `files` stand for it.
   */
  predicted?: string[];
  /** an agent localizer's run: steps, commands, reads, how it stopped (the runner metrics read it) */
  agent?: AgentRunStats;
  /** how sure the localizer is of its first file (src/artifacts/confidence.ts names the signals); a cascade escalates on them */
  confidence?: ConfidenceSignals;
  /** why this answer deserves less trust than its status says (nothing indexable, a language locfix does not parse) */
  warnings?: string[];
}

export interface AgentRunStats {
  stop: string;
  steps: number;
  /** shell commands or tool calls run */
  commands: number;
  /** of those, the ones that read file content */
  reads: number;
  /** attempted writes that ran (0 for read-only localizers; refused attempts are in `refused`) */
  writes: number;
  refused?: number;
  formatErrors?: number;
  elapsedMs: number;
  [key: string]: unknown;
}

/**
 * Ranked paths of a file-localization StageArtifact with status "ok", undefined for errors and unreadable
 * shapes. Older run folders' shape is read too (util/legacy.ts), so they still score.
 */
export function rankedPathsOf(artifact: unknown): string[] | undefined {
  if (!artifact || typeof artifact !== 'object') return undefined;
  const a = artifact as { status?: unknown; output?: { files?: unknown; ranking?: unknown } };
  if (a.status !== 'ok') return undefined;
  const ranking = rankedFilesOfOutput(a.output);
  if (!Array.isArray(ranking)) return undefined;
  return ranking.map((r: unknown) => (typeof r === 'string' ? r : String((r as { path?: unknown }).path)));
}

/** Sums the usage of the LLM calls in a trace (cached samples included: they are what the answer cost). */
export function usageOfTrace(trace: readonly TraceEvent[]): FileLocalization['usage'] {
  const total = { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 };
  for (const event of trace) {
    if (event.type !== 'llm' || !event.trace.response) continue;
    total.promptTokens += event.trace.response.usage.promptTokens;
    total.completionTokens += event.trace.response.usage.completionTokens;
    total.cost += event.trace.response.usage.cost;
    total.calls += 1;
  }
  return total;
}

/** A code element: `name` is "func", "Class" or "Class.method" (dotted for nesting), or "<module>". */
export interface CodeElement {
  path: string;
  name: string;
}

/** The element name of module-level code (variables, imports, statements outside any definition). */
export const MODULE_LEVEL = '<module>';

/**
 * How file localization hands files to the later stages: the first topFiles (`top`, Agentless' way), those plus
 * places the function level names elsewhere (`soft`), or only the localizer's predicted set (`hard`).
 */
export const HANDOFFS = ['top', 'soft', 'hard'] as const;
export type Handoff = (typeof HANDOFFS)[number];
