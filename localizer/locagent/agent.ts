/**
 * One LocAgent sample: LocAgent's tool-calling protocol over the shared agent core (localizer/agent/core.ts,
 * mini-swe-agent's loop: the message list is the trajectory). Each step is one model call; a reply with a tool call gets the tool's result, a reply without
 * one is asked to go on (LocAgent's fake user message), a repeated reply is told so, and a reply that calls
 * `finish` ends the sample with the text before the call as the answer. Budgets: steps (the last step asks
 * for the final answer, as LocAgent does at max_iteration_num), tokens (when spent, one more call asks for
 * the answer) and the instance's deadline (the call in flight is cancelled). Transport and spend-cap errors
 * propagate: the stage records the instance as failed, rather than passing off a truncated search as an
 * answer.
 */
import type { TraceEvent } from '../../src/artifacts/localization.ts';
import type { GraphTools } from '../../src/index/graph/tools.ts';
import { countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';
import type { ChatMessage, ChatModel } from '../../src/llm/types.ts';
import { agentBudget, runAgent } from '../agent/core.ts';
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
  const specs = new Map(ctx.specs.map((s) => [s.name, s]));
  const counts = { toolCalls: 0, invalidReplies: 0 };
  let answer = '';
  let last: string | undefined;
  const agent = await runAgent<'finish'>(
    {
      llm: ctx.llm,
      trace: ctx.trace,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...agentBudget(settings, { purpose: 'locagent.step', traceStep: ctx.label, stop: STOP_WORDS }),
      prompts: { lastStep: LAST_STEP_MESSAGE, tokensSpent: TOKENS_SPENT_MESSAGE },
      onReply: async (reply, state) => {
        const parsed = parseReply(reply);
        // the stop word cuts the closing tag: put it back so the history shows well-formed calls
        const assistant = parsed.call && !/<\/function\s*>/.test(reply) ? `${reply.trimEnd()}\n</function>` : reply;
        answer = parsed.thought || answer;
        if (parsed.call?.name === FINISH) return { end: 'finish', assistant };
        // the budget is spent: no tool runs, the next call is for the answer (LocAgent's way)
        if (state.budgetSpent) return { assistant };
        let next: string;
        if (!parsed.call) {
          counts.invalidReplies++;
          next = parsed.malformed
            ? `Your function call could not be read (${parsed.malformed}). ${CONTINUE_MESSAGE}`
            : reply.trim() === last
              ? REPEAT_MESSAGE
              : CONTINUE_MESSAGE;
        } else {
          next = await execute(ctx, parsed.call.name, parsed.call.params, specs, settings.observationTokens, counts);
        }
        last = reply.trim();
        return { next, assistant };
      },
    },
    system,
    task,
  );
  // asked for its answer (last step, spent budget), the agent's finish still counts as being asked
  const stopReason: StopReason = agent.stop === 'done' ? (agent.asked ?? 'finish') : agent.stop;
  return { answer, stopReason, steps: agent.steps, ...counts, messages: agent.messages };
}

async function execute(
  ctx: SampleContext,
  name: string,
  params: Record<string, string>,
  specs: ReadonlyMap<string, ToolSpec>,
  observationTokens: number,
  run: Pick<SampleRun, 'toolCalls' | 'invalidReplies'>,
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
