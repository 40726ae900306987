import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import { fitPromptBudget } from '../../src/llm/prompt-budget.ts';
import { countChatTokens } from '../../src/llm/tokens.ts';
import type { ChatTrace } from '../../src/llm/types.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

/** an issue of about `words` words with a recognisable start and end */
const hugeIssue = (words: number) => `HEAD: the report starts here.\n${'lorem ipsum dolor sit amet '.repeat(words / 5)}\nTAIL: Traceback ends in pkg/core.py`;

describe('fitPromptBudget', () => {
  it('leaves a prompt within budget alone', () => {
    const messages = [{ role: 'user' as const, content: 'short issue' }];
    expect(fitPromptBudget(messages, 1_000)).toEqual({ messages });
  });

  it('cuts the middle of the longest message to the budget, keeping its head and tail and saying so', () => {
    const messages = [
      { role: 'system' as const, content: 'You localize bugs.' },
      { role: 'user' as const, content: hugeIssue(50_000) },
    ];
    const before = countChatTokens(messages);
    expect(before).toBeGreaterThan(40_000);
    for (const budget of [500, 4_000]) {
      const { messages: fitted, cut } = fitPromptBudget(messages, budget);
      expect(countChatTokens(fitted)).toBeLessThanOrEqual(budget);
      expect(fitted[0]).toEqual(messages[0]);
      expect(fitted[1]!.content.startsWith('HEAD: the report starts here.')).toBe(true);
      expect(fitted[1]!.content.endsWith('TAIL: Traceback ends in pkg/core.py')).toBe(true);
      expect(fitted[1]!.content).toMatch(/\[… \d+ tokens left out here by locfix: the prompt was over its token budget …\]/);
      expect(cut).toMatchObject({ message: 1, promptBefore: before });
      expect(cut!.promptAfter).toBeLessThanOrEqual(budget);
    }
    // multi-byte text cut through a character still fits
    const cjk = [{ role: 'user' as const, content: '錯誤報告：'.repeat(20_000) }];
    expect(countChatTokens(fitPromptBudget(cjk, 777).messages)).toBeLessThanOrEqual(777);
  });
});

describe('the budget on real calls', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ rules: [{ name: 'any', match: '', respond: 'ok' }] });
  });
  afterAll(() => server.stop());

  it('a 5 MB issue is sent within the budget and the trace records the cut', async () => {
    const traces: ChatTrace[] = [];
    const model = createChatModel({ model: `openai:m@${server.openaiURL}`, maxPromptTokens: 8_000 }, { trace: (t) => traces.push(t) });
    const issue = hugeIssue(1_000_000);
    expect(issue.length).toBeGreaterThan(5_000_000);
    await model.chat({ messages: [{ role: 'user', content: `Find the bug.\n${issue}` }], purpose: 'test' });
    const sent = (server.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages;
    expect(countChatTokens(sent.map((m) => ({ role: 'user' as const, content: m.content })))).toBeLessThanOrEqual(8_000);
    expect(sent[0]!.content).toContain('TAIL: Traceback ends in pkg/core.py');
    expect(traces[0]!.promptCut).toMatchObject({ message: 0 });
    expect(traces[0]!.promptCut!.promptBefore).toBeGreaterThan(1_000_000);
    expect(traces[0]!.response!.usage.promptTokens).toBeLessThanOrEqual(8_000);
  });
});
