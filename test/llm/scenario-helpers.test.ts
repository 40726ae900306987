import { describe, expect, it } from 'vitest';
import { byTurn, bySample, fenced, harmony, scriptedChatModel, thinking, useScriptedModelServer } from '../support/scenario-helpers.ts';

const ctx = useScriptedModelServer([
  {
    match: 'ReAct',
    respond: byTurn(['Thought: inspect a.py\nAction: ReadFileSkeleton(a.py)', harmony('a.py has the parser', `Final Answer: ${fenced({ 'a.py': 9 })}`)]),
  },
  { match: 'repair', respond: bySample([thinking('greedy', 'patch 0'), 'patch 1']) },
]);

describe('scenario helpers', () => {
  it('drives a two-turn ReAct exchange with byTurn', async () => {
    const model = scriptedChatModel(ctx.server, { provider: 'ollama' });
    const messages = [{ role: 'user' as const, content: 'ReAct: score the files' }];
    const step1 = await model.chat({ messages, stop: ['Observation:'] });
    expect(step1.choices[0]!.content).toBe('Thought: inspect a.py\nAction: ReadFileSkeleton(a.py)');
    const step2 = await model.chat({
      messages: [...messages, { role: 'assistant', content: step1.choices[0]!.content }, { role: 'user', content: 'Observation: class Parser' }],
    });
    expect(step2.choices[0]!.content).toBe('Final Answer: ```json\n{\n  "a.py": 9\n}\n```');
    expect(step2.choices[0]!.reasoning).toBe('a.py has the parser');
    expect(ctx.server.chatRequests()).toHaveLength(2);
  });

  it('serves samples by index with bySample', async () => {
    const model = scriptedChatModel(ctx.server);
    const response = await model.chat({ messages: [{ role: 'user', content: 'repair it' }], n: 3, temperature: 0.8 });
    expect(response.choices.map((c) => [c.content, c.reasoning])).toEqual([
      ['patch 0', 'greedy'],
      ['patch 1', undefined],
      ['patch 1', undefined],
    ]);
  });
});
