/**
 * The agent core the model-driven localizers share, mini-swe-agent's loop: the message list is the trajectory,
 * each step is one model call, and a protocol (the localizer's own: shell commands, graph tools, skeleton reads)
 * turns each reply into the next user message or the end of the run. The core owns what every loop repeated:
 *
 * - the step budget: before the last step the model is told it is its last (`lastStep`);
 * - the token budget: once spent, the next observation says so (`tokensSpent`) and one more step is allowed;
 * - the deadline: no step starts after it, and the call in flight is cancelled at it (the run ends with 'time');
 * - the trajectory: returned with the run, and attached to an error (`details.trajectory`) when the run fails,
 *   so the stage's error artifact shows how far the agent got.
 *
 * Transport and spend-cap errors propagate: the stage records the instance as failed.
 */
import type { TraceEvent } from '../../src/artifacts/localization.ts';
import { LlmError } from '../../src/llm/errors.ts';
import type { ChatMessage, ChatModel } from '../../src/llm/types.ts';

/** Why the core ended a run; a protocol ends it with its own answer ('done'). */
export type AgentStop = 'done' | 'max-steps' | 'tokens' | 'time';

export interface AgentLimits {
  maxSteps: number;
  /** prompt + completion tokens over all steps; undefined: no token budget */
  tokenBudget?: number;
  /** epoch ms after which no step starts, and the call in flight is cancelled */
  deadline?: number;
}

export interface AgentPrompts {
  /** sent as a user message before the last step (undefined: the protocol says it itself) */
  lastStep?: string;
  /** appended to the observation after the step that spent the token budget */
  tokensSpent?: string;
}

/** One model call's settings, as the localizer's options give them. */
export interface AgentCallSettings {
  temperature: number;
  maxTokens?: number;
  seed?: number;
  stop?: string[];
  /** the call's purpose in the usage meter, e.g. "explorer.step" */
  purpose: string;
  /** the trace step the calls are recorded under */
  traceStep: string;
}

export interface AgentState {
  /** the trajectory so far, ending with this reply (a protocol may condense older observations in place) */
  readonly messages: ChatMessage[];
  readonly steps: number;
  readonly tokens: number;
  /** this step spent the token budget: the core asks for the answer after it (a protocol may skip its tool) */
  readonly budgetSpent: boolean;
  /** why the model has been asked for its answer, if it has */
  readonly asked?: 'max-steps' | 'tokens';
}

/**
 * What one reply leads to: the end of the run with the protocol's answer, or the next user message. `assistant`
 * replaces the reply in the history (a reply cut at its action, a call with its closing tag put back).
 */
export type AgentStep<Answer> = { end: Answer; assistant?: string } | { next?: string; assistant?: string };

export interface AgentRun<Answer> {
  stop: AgentStop;
  /** the protocol's answer when stop is 'done' */
  answer?: Answer;
  asked?: 'max-steps' | 'tokens';
  steps: number;
  tokens: number;
  /** the trajectory: system, task, then assistant / observation turns */
  messages: ChatMessage[];
}

export interface AgentSpec<Answer> {
  llm: ChatModel;
  trace: TraceEvent[];
  signal?: AbortSignal;
  call: AgentCallSettings;
  limits: AgentLimits;
  prompts?: AgentPrompts;
  /** the localizer's protocol: what a reply leads to */
  onReply(reply: string, state: AgentState): Promise<AgentStep<Answer>>;
}

/** The usual options of a localizer's agent, as the core's call settings and limits. */
export function agentBudget(
  settings: { temperature: number; maxTokens?: number; seed?: number; maxSteps: number; tokenBudget?: number; deadline?: number },
  call: { purpose: string; traceStep: string; stop?: string[] },
): { call: AgentCallSettings; limits: AgentLimits } {
  return {
    call: {
      temperature: settings.temperature,
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      ...(call.stop ? { stop: call.stop } : {}),
      purpose: call.purpose,
      traceStep: call.traceStep,
    },
    limits: {
      maxSteps: settings.maxSteps,
      ...(settings.tokenBudget !== undefined ? { tokenBudget: settings.tokenBudget } : {}),
      ...(settings.deadline !== undefined ? { deadline: settings.deadline } : {}),
    },
  };
}

export async function runAgent<Answer>(spec: AgentSpec<Answer>, system: string, task: string): Promise<AgentRun<Answer>> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
  const run: AgentRun<Answer> = { stop: 'max-steps', steps: 0, tokens: 0, messages };
  let maxSteps = spec.limits.maxSteps;
  try {
    while (run.steps < maxSteps) {
      if (spec.limits.deadline !== undefined && Date.now() >= spec.limits.deadline) return { ...run, stop: 'time' };
      if (run.steps === maxSteps - 1 && !run.asked && spec.prompts?.lastStep) {
        messages.push({ role: 'user', content: spec.prompts.lastStep });
        run.asked = 'max-steps';
      }
      const reply = await query(spec, messages);
      if (reply === undefined) return { ...run, stop: 'time' };
      run.steps++;
      run.tokens += reply.tokens;
      const budgetSpent = spec.limits.tokenBudget !== undefined && run.tokens >= spec.limits.tokenBudget && !run.asked;
      messages.push({ role: 'assistant', content: reply.content });
      const step = await spec.onReply(reply.content, {
        messages,
        steps: run.steps,
        tokens: run.tokens,
        budgetSpent,
        ...(run.asked ? { asked: run.asked } : {}),
      });
      if (step.assistant !== undefined) messages[messages.length - 1] = { role: 'assistant', content: step.assistant };
      if ('end' in step) return { ...run, stop: 'done', answer: step.end };
      let next = step.next;
      if (budgetSpent && spec.prompts?.tokensSpent) {
        next = next ? `${next}\n\n${spec.prompts.tokensSpent}` : spec.prompts.tokensSpent;
        run.asked = 'tokens';
        maxSteps = run.steps + 1;
      }
      if (next !== undefined) messages.push({ role: 'user', content: next });
    }
    return { ...run, stop: run.asked ?? 'max-steps' };
  } catch (err) {
    // the trajectory so far goes with the error, into the stage's error artifact
    if (err instanceof Error) {
      const details = (err as { details?: Record<string, unknown> }).details;
      // an own property, so it also stands in for an error class's `details` getter (BudgetExhaustedError)
      Object.defineProperty(err, 'details', { value: { ...details, trajectory: [...messages] }, configurable: true, writable: true });
    }
    throw err;
  }
}

/** One model call, cancelled at the deadline; undefined when the deadline (not the caller's signal) cancelled it. */
async function query<Answer>(spec: AgentSpec<Answer>, messages: readonly ChatMessage[]): Promise<{ content: string; tokens: number } | undefined> {
  const { call, limits } = spec;
  const timeLeft = limits.deadline === undefined ? undefined : limits.deadline - Date.now();
  const deadline = timeLeft === undefined ? undefined : AbortSignal.timeout(Math.max(1, timeLeft));
  const signals = [spec.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  try {
    const response = await spec.llm.chat({
      messages: [...messages],
      temperature: call.temperature,
      ...(call.maxTokens !== undefined ? { maxTokens: call.maxTokens } : {}),
      ...(call.seed !== undefined ? { seed: call.seed } : {}),
      ...(call.stop ? { stop: call.stop } : {}),
      purpose: call.purpose,
      ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
      trace: (t) => spec.trace.push({ type: 'llm', step: call.traceStep, trace: t }),
    });
    return { content: response.choices[0]?.content ?? '', tokens: response.usage.promptTokens + response.usage.completionTokens };
  } catch (err) {
    if (err instanceof LlmError && err.kind === 'aborted' && deadline?.aborted && !spec.signal?.aborted) return undefined;
    throw err;
  }
}
