import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import { UsageMeter, costOf, findPrice } from '../../src/llm/usage.ts';
import { countChatTokens, countTokens } from '../../src/llm/tokens.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

describe('prices and cost', () => {
  const prices = {
    'gpt-4o*': { input: 2.5, output: 10 },
    'gpt-4o-mini*': { input: 0.15, output: 0.6 },
    'openai:gpt-4o-2024-05-13': { input: 5, output: 15 },
    'ollama:*': { input: 0, output: 0 },
  };

  it('prefers exact ids, then the most specific glob', () => {
    expect(findPrice(prices, 'openai:gpt-4o-2024-05-13')).toEqual({ input: 5, output: 15 });
    expect(findPrice(prices, 'openai:gpt-4o-2024-08-06')).toEqual({ input: 2.5, output: 10 });
    expect(findPrice(prices, 'openai:gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(findPrice(prices, 'ollama:gpt-oss:120b')).toEqual({ input: 0, output: 0 });
    expect(findPrice(prices, 'openai:Qwen/Qwen2.5-Coder-32B')).toBeUndefined();
  });

  it('computes USD per 1M tokens', () => {
    expect(costOf({ input: 5, output: 15 }, 1_000_000, 0)).toBe(5);
    expect(costOf({ input: 5, output: 15 }, 2_000, 1_000)).toBeCloseTo(0.025, 12);
    expect(costOf(undefined, 1_000, 1_000)).toBe(0);
  });
});

describe('usage meter over real calls', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({ rules: [{ respond: 'a short answer' }] });
  });
  afterAll(() => server.stop());

  it('sums paid usage and cost per purpose and per stage', async () => {
    const meter = new UsageMeter();
    const model = createChatModel(`openai:gpt-4o-2024-05-13@${server.openaiURL}`, { meter });
    const messages = [{ role: 'user' as const, content: 'localize the bug' }];
    await model.chat({ messages, purpose: 'blagent.phase1' });
    await model.chat({ messages, purpose: 'blagent.phase2', n: 2, temperature: 0.5 });
    await model.chat({ messages, purpose: 'repair' });

    const prompt = countChatTokens(messages);
    const completion = countTokens('a short answer');
    const byPurpose = meter.byPurpose();
    expect(byPurpose['blagent.phase1']!.paid).toMatchObject({ calls: 1, samples: 1, promptTokens: prompt, completionTokens: completion });
    // native n: the prompt is paid once
    expect(byPurpose['blagent.phase2']!.paid).toMatchObject({ calls: 1, samples: 2, promptTokens: prompt, completionTokens: 2 * completion });
    const stages = meter.byStage();
    expect(Object.keys(stages)).toEqual(['blagent', 'repair']);
    expect(stages.blagent!.paid.promptTokens).toBe(2 * prompt);
    const total = meter.total();
    expect(total.paid.promptTokens).toBe(3 * prompt);
    expect(total.paid.cost).toBeCloseTo((3 * prompt * 5 + 4 * completion * 15) / 1e6, 12);
    expect(total.cached.samples).toBe(0);

    const merged = new UsageMeter();
    merged.merge(meter);
    merged.merge(meter);
    expect(merged.total().paid.promptTokens).toBe(6 * prompt);
    expect(JSON.parse(JSON.stringify(meter)).total.paid.calls).toBe(3);
  });
});
