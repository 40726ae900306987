/**
 * One LocAgent sample: a tool-calling loop in which the message list is the trajectory (mini-swe-agent's
 * shape). Each step is one model call; a reply with a tool call gets the tool's result, a reply without
 * one is asked to go on (LocAgent's fake user message), a repeated reply is told so, and a reply that calls
 * `finish` ends the sample with the text before the call as the answer. Budgets: steps (the last step asks
 * for the final answer, as LocAgent does at max_iteration_num), tokens (when spent, one more call asks for
 * the answer) and the instance's deadline (the call in flight is cancelled). Transport and spend-cap errors
 * propagate: the stage records the instance as failed, rather than passing off a truncated search as an
 * answer.
 */
import type { TraceEvent } from '../../src/artifacts/localization.ts';
import type { GraphTools } from '../../src/index/graph/tools.ts';
import { LlmError } from '../../src/llm/errors.ts';
import { countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';
import type { ChatMessage, ChatModel } from '../../src/llm/types.ts';
import { STOP_WORDS, coerceArgs, observation, parseReply, type ToolSpec } from './fn-call.ts';
import { FINISH, runTool } from './tools.ts';

export const CONTINUE_MESSAGE =
  'Go on with the next step, calling one of the tools. When you know the locations, write them in the required format and call `finish`.';
export const REPEAT_MESSAGE = 'Your reply repeats the previous one. Try another search or another part of the graph.';
export const LAST_STEP_MESSAGE = 'This is your last step. Write your final answer in the required format now, then call `finish`.';
export const TOKENS_SPENT_MESSAGE = 'The token budget of this search is spent. Write your final answer in the required format now, then call `finish`.';

export type StopReason = 'finish' | 'max-steps' | 'tokens' | 'time';

export interface SampleSettings {
  maxSteps: number;
  tokenBudget: number;
  observationTokens: number;
  temperature: number;
  maxTokens?: number;
  seed?: number;
  /** epoch ms after which the sample stops (the instance's time limit) */
  deadline?: number;
}

export interface SampleRun {
  /** the answer text (before `finish`, or the last reply when the loop ended without one) */
  answer: string;
  /** 'finish': the agent ended on its own; 'max-steps' / 'tokens': it was asked to (or ran out); 'time': cut */
  stopReason: StopReason;
  steps: number;
  toolCalls: number;
  /** replies whose tool call could not be used (unknown tool, bad arguments, no call at all) */
  invalidReplies: number;
  /** the trajectory: system, task, then assistant / observation turns */
  messages: ChatMessage[];
}

export interface SampleContext {
  llm: ChatModel;
  tools: GraphTools;
  specs: readonly ToolSpec[];
  trace: TraceEvent[];
  /** trace step label of this sample ("sample1" …) */
  label: string;
  signal?: AbortSignal;
}

export async function runSample(ctx: SampleContext, system: string, task: string, settings: SampleSettings): Promise<SampleRun> {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: task },
  ];
  const run: SampleRun = { answer: '', stopReason: 'max-steps', steps: 0, toolCalls: 0, invalidReplies: 0, messages };
  let tokens = 0;
  let last: string | undefined;
  /** why the agent was asked for its answer before it finished on its own */
  let asked: 'max-steps' | 'tokens' | undefined;
  const specs = new Map(ctx.specs.map((s) => [s.name, s]));

  while (run.steps < settings.maxSteps) {
    if (settings.deadline !== undefined && Date.now() >= settings.deadline) {
      run.stopReason = 'time';
      break;
    }
    if (run.steps === settings.maxSteps - 1 && !asked) {
      messages.push({ role: 'user', content: LAST_STEP_MESSAGE });
      asked = 'max-steps';
    }
    const reply = await call(ctx, messages, settings);
    if (reply === undefined) {
      run.stopReason = 'time';
      break;
    }
    run.steps++;
    tokens += reply.tokens;
    const parsed = parseReply(reply.content);
    // the stop word cuts the closing tag: put it back so the history shows well-formed calls
    const content = parsed.call && !/<\/function\s*>/.test(reply.content) ? `${reply.content.trimEnd()}\n</function>` : reply.content;
    messages.push({ role: 'assistant', content });
    run.answer = parsed.thought || run.answer;

    if (parsed.call?.name === FINISH) {
      run.stopReason = asked ?? 'finish';
      return run;
    }
    if (tokens >= settings.tokenBudget && !asked) {
      // the budget is spent: one more call for the answer
      messages.push({ role: 'user', content: TOKENS_SPENT_MESSAGE });
      asked = 'tokens';
      settings = { ...settings, maxSteps: run.steps + 1 };
      continue;
    }
    let next: string;
    if (!parsed.call) {
      run.invalidReplies++;
      next = parsed.malformed
        ? `Your function call could not be read (${parsed.malformed}). ${CONTINUE_MESSAGE}`
        : reply.content.trim() === last
          ? REPEAT_MESSAGE
          : CONTINUE_MESSAGE;
    } else {
      next = await execute(ctx, parsed.call.name, parsed.call.params, specs, settings.observationTokens, run);
    }
    last = reply.content.trim();
    messages.push({ role: 'user', content: next });
  }
  if (run.stopReason !== 'time') run.stopReason = asked ?? 'max-steps';
  return run;
}

async function call(ctx: SampleContext, messages: ChatMessage[], settings: SampleSettings): Promise<{ content: string; tokens: number } | undefined> {
  const timeLeft = settings.deadline === undefined ? undefined : settings.deadline - Date.now();
  const deadline = timeLeft === undefined ? undefined : AbortSignal.timeout(Math.max(1, timeLeft));
  const signals = [ctx.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  try {
    const response = await ctx.llm.chat({
      messages: [...messages],
      temperature: settings.temperature,
      ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      stop: STOP_WORDS,
      purpose: 'locagent.step',
      ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
      trace: (t) => ctx.trace.push({ type: 'llm', step: ctx.label, trace: t }),
    });
    return { content: response.choices[0]?.content ?? '', tokens: response.usage.promptTokens + response.usage.completionTokens };
  } catch (err) {
    // our deadline (not the caller's signal) cancelled the call: the sample ran out of time
    if (err instanceof LlmError && err.kind === 'aborted' && deadline?.aborted && !ctx.signal?.aborted) return undefined;
    throw err;
  }
}

async function execute(
  ctx: SampleContext,
  name: string,
  params: Record<string, string>,
  specs: ReadonlyMap<string, ToolSpec>,
  observationTokens: number,
  run: SampleRun,
): Promise<string> {
  const spec = specs.get(name);
  if (!spec) {
    run.invalidReplies++;
    return observation(name, `There is no function \`${name}\`. The functions are: ${[...specs.keys()].join(', ')}.`);
  }
  const coerced = coerceArgs(spec, params);
  if (!coerced.ok) {
    run.invalidReplies++;
    return observation(name, `Invalid call: ${coerced.error}.`);
  }
  const t0 = performance.now();
  let output: string;
  try {
    output = await runTool(ctx.tools, name, coerced.args);
  } catch (err) {
    output = `The function failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  run.toolCalls++;
  const shown = cut(output, observationTokens);
  ctx.trace.push({ type: 'tool', step: ctx.label, tool: name, input: coerced.args, output: shown, durationMs: performance.now() - t0 });
  return observation(name, shown);
}

/** the output's first `maxTokens` tokens, saying how much was left out */
function cut(output: string, maxTokens: number): string {
  if (output.length <= maxTokens * 2 || countTokens(output) <= maxTokens) return output;
  const tokens = encodeTokens(output);
  return `${decodeTokens(tokens.slice(0, maxTokens))}\n… [output cut: ${tokens.length - maxTokens} of ${tokens.length} tokens left out; ask for something narrower]`;
}
