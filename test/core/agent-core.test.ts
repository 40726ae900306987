/**
 * The agent core the explorer, LocAgent and BLAgent's Phase 1 share (localizer/agent/core.ts), over a model
 * that answers from a list: the last-step prompt, the token budget's one extra step, the deadline cancelling
 * the call in flight, a protocol's own end, and the trajectory that goes with an error into the stage's
 * error artifact. The three localizers' own suites check their protocols on top of it.
 */
import { describe, expect, it } from 'vitest';
import { type AgentStep, runAgent } from '../../localizer/agent/core.ts';
import { LlmError } from '../../src/llm/errors.ts';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/types.ts';
import { toStageError } from '../../src/run/stage-runner.ts';

/** Replies in order, each costing `tokens`; a function reply may wait or throw. */
function listModel(replies: Array<string | ((request: ChatRequest) => Promise<string>)>, tokens = 10): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    id: 'scripted:list',
    requests,
    async chat(request): Promise<ChatResponse> {
      requests.push(request);
      const next = replies.shift();
      if (next === undefined) throw new Error('the list model ran out of replies');
      const content = typeof next === 'string' ? next : await next(request);
      return {
        model: 'list',
        choices: [{ content } as ChatResponse['choices'][number]],
        usage: { promptTokens: tokens / 2, completionTokens: tokens / 2 },
        cached: false,
        latencyMs: 0,
      } as ChatResponse;
    },
  };
}

/** "answer X" ends the run with X; anything else gets an observation back */
const echo = async (reply: string): Promise<AgentStep<string>> => (reply.startsWith('answer ') ? { end: reply.slice(7) } : { next: `saw ${reply}` });
const spec = (llm: ChatModel, limits: { maxSteps: number; tokenBudget?: number; deadline?: number }) => ({
  llm,
  trace: [],
  call: { temperature: 0, purpose: 'test.step', traceStep: 'test' },
  limits,
  prompts: { lastStep: 'LAST STEP', tokensSpent: 'TOKENS SPENT' },
  onReply: echo,
});

describe('the agent core', () => {
  it('ends with the protocol’s answer; the message list is the trajectory', async () => {
    const run = await runAgent(spec(listModel(['look', 'answer a.py']), { maxSteps: 5 }), 'SYSTEM', 'TASK');
    expect(run).toMatchObject({ stop: 'done', answer: 'a.py', steps: 2, tokens: 20 });
    expect(run.messages.map((m) => `${m.role}:${m.content}`)).toEqual([
      'system:SYSTEM',
      'user:TASK',
      'assistant:look',
      'user:saw look',
      'assistant:answer a.py',
    ]);
  });

  it('asks for the answer before the last step, and stops at the step limit', async () => {
    const llm = listModel(['one', 'two', 'three']);
    const run = await runAgent(spec(llm, { maxSteps: 3 }), 'S', 'T');
    expect(run).toMatchObject({ stop: 'max-steps', asked: 'max-steps', steps: 3 });
    expect(llm.requests[2]!.messages.at(-1)!.content).toBe('LAST STEP');
  });

  it('once the token budget is spent, says so with the observation and allows one more step', async () => {
    const llm = listModel(['one', 'two', 'three', 'four']);
    const run = await runAgent(spec(llm, { maxSteps: 10, tokenBudget: 15 }), 'S', 'T');
    expect(run).toMatchObject({ stop: 'tokens', asked: 'tokens', steps: 3, tokens: 30 });
    expect(run.messages[5]!.content).toBe('saw two\n\nTOKENS SPENT');
  });

  it('cancels the call in flight at the deadline and ends with time, keeping what was done', async () => {
    const slow = (request: ChatRequest) =>
      new Promise<string>((_, reject) => request.signal!.addEventListener('abort', () => reject(new LlmError('aborted', 'cancelled'))));
    const run = await runAgent(spec(listModel(['look', slow]), { maxSteps: 5, deadline: Date.now() + 300 }), 'S', 'T');
    expect(run).toMatchObject({ stop: 'time', steps: 1 });
    expect(run.messages.at(-1)!.content).toBe('saw look');
  });

  it('a failed call takes the trajectory so far into the stage’s error artifact', async () => {
    const down = async (): Promise<string> => {
      throw new LlmError('connection', 'the model server is down');
    };
    const failed = await runAgent(spec(listModel(['look', down]), { maxSteps: 5 }), 'S', 'T').catch((err: unknown) => err);
    const recorded = toStageError(failed);
    expect(recorded.message).toMatch(/the model server is down/);
    expect((recorded.details!.trajectory as Array<{ content: string }>).map((m) => m.content)).toEqual(['S', 'T', 'look', 'saw look']);
  });
});
