/**
 * One LLM call of a BLAgent phase, recorded in the localizer trace with its full ChatTrace (prompts,
 * raw answer, reasoning, usage, retries, errors). Transport failures (the server down, timeouts after the
 * model layer's retries) propagate: the stage records the instance as failed and `--retry-errors` reruns it,
 * instead of a silent fall back that would look like a model decision.
 */
import type { ChatMessage, ChatModel, ChatResponse } from '../../src/llm/types.ts';
import type { TraceEvent } from '../../src/artifacts/localization.ts';

export interface PhaseCallSettings {
  temperature: number;
  /** undefined: the server's default */
  maxTokens?: number;
  seed?: number;
}

export interface CallContext {
  llm: ChatModel;
  trace: TraceEvent[];
  settings: PhaseCallSettings;
  signal?: AbortSignal;
}

export async function callModel(
  ctx: CallContext,
  step: string,
  messages: ChatMessage[],
  stop?: string[],
): Promise<{ content: string; response: ChatResponse }> {
  const response = await ctx.llm.chat({
    messages,
    temperature: ctx.settings.temperature,
    ...(ctx.settings.maxTokens !== undefined ? { maxTokens: ctx.settings.maxTokens } : {}),
    ...(ctx.settings.seed !== undefined ? { seed: ctx.settings.seed } : {}),
    ...(stop ? { stop } : {}),
    purpose: `blagent.${step}`,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    trace: (t) => ctx.trace.push({ type: 'llm', step, trace: t }),
  });
  return { content: response.choices[0]?.content ?? '', response };
}

/** Model time of the LLM events of a trace whose step starts with one of `steps` (all steps when omitted). */
export function modelTimeMs(trace: readonly TraceEvent[], steps?: readonly string[]): number {
  let total = 0;
  for (const e of trace) {
    if (e.type !== 'llm') continue;
    if (steps && !steps.some((s) => e.step === s || e.step.startsWith(`${s}.`))) continue;
    total += e.trace.latencyMs;
  }
  return total;
}
