/**
 * The file-localizer contract. Every localizer — `retrieval` (model-free), `blagent`, `agentless`,
 * `oracle`, and whatever comes next — takes one instance and hands the same artifact downstream, so the
 * function/line/repair stages and every report treat them alike.
 */
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RepoIndex } from '../src/index/repo-index.ts';
import type { FileParser } from '../src/index/file-parser.ts';
import type { ChatModel, ChatTrace, Usage } from '../src/llm/types.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';

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
}

export interface LocalizerContext {
  instance: SweInstance;
  snapshot: RepoSnapshot;
  /**
   * the retrieval index of the snapshot (built on first use, shared across stages); with `parser`, an index
   * of the same snapshot chunked differently, through the same embedder, vector store and caches
   */
  index(parser?: FileParser): Promise<RepoIndex>;
  /** undefined when no model is configured; LLM localizers then fail with a clear message or degrade */
  llm?: ChatModel;
  signal?: AbortSignal;
}

export interface FileLocalizer {
  readonly name: string;
  localize(ctx: LocalizerContext): Promise<FileLocalization>;
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
