import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import type { LlmError } from '../../src/llm/errors.ts';
import { BudgetExhaustedError, SpendBudget, SpendScope } from '../../src/llm/spend.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

describe('SpendBudget', () => {
  it('admits concurrent calls while their estimates fit, lets one start alone past the cap, then refuses all', async () => {
    const budget = new SpendBudget('run', 'r', { tokens: 100 });
    const scope = new SpendScope([budget]);
    let inFlight = 0;
    let maxInFlight = 0;
    const call = async (): Promise<'done' | 'refused'> => {
      let settle: Awaited<ReturnType<SpendScope['admit']>>;
      try {
        settle = await scope.admit({ promptTokens: 20, completionTokens: 10, samples: 1 });
      } catch (err) {
        expect(err).toBeInstanceOf(BudgetExhaustedError);
        return 'refused';
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      settle({ promptTokens: 20, completionTokens: 10, cost: 0 });
      return 'done';
    };
    const outcomes = await Promise.all(Array.from({ length: 10 }, call));
    // 3 × 30 fit under 100; the 4th would cross it, so it waits until nothing is in flight and runs alone
    expect(maxInFlight).toBe(3);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(4);
    expect(budget.spent).toEqual({ promptTokens: 80, completionTokens: 40, cost: 0, calls: 4 });
    expect(budget.exhausted).toBe(true);
    // the overshoot is the one call that ran alone: 120 - 100 < one call's 30
    expect(budget.spent.promptTokens + budget.spent.completionTokens - 100).toBeLessThan(30);
    expect(scope.refusal?.message).toMatch(/run budget of r is spent: 120 tokens of 100 in 4 call\(s\)/);
  });

  it('eight concurrent open-ended calls under a run cap overshoot it by one call at most', async () => {
    // Issue 32: `--concurrency 8 --max-run-tokens 20000`, each call 1,000 prompt + 5,000 completion tokens without
    // max_tokens. Before, every call reserved its prompt only, all eight passed, and the run spent 48,000.
    const budget = new SpendBudget('run', 'r', { tokens: 20_000 });
    const scope = new SpendScope([budget]);
    let inFlight = 0;
    let maxInFlight = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        let settle: Awaited<ReturnType<SpendScope['admit']>>;
        try {
          settle = await scope.admit({ promptTokens: 1_000, samples: 1 });
        } catch (err) {
          expect(err).toBeInstanceOf(BudgetExhaustedError);
          return;
        }
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        settle({ promptTokens: 1_000, completionTokens: 5_000, cost: 0 });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const spent = budget.spent.promptTokens + budget.spent.completionTokens;
    expect(spent).toBeGreaterThanOrEqual(20_000);
    expect(spent).toBeLessThanOrEqual(20_000 + 6_000);
    // an answer of open length could take all that is left: under a cap such calls run one at a time
    expect(maxInFlight).toBe(1);
  });

  it('an open-ended answer is estimated at the longest completion paid for so far, and runs alone under a cap', async () => {
    const budget = new SpendBudget('instance', 'i', { tokens: 200 });
    const scope = new SpendScope([budget]);
    const first = await scope.admit({ promptTokens: 10, samples: 2 });
    first({ promptTokens: 10, completionTokens: 80, cost: 0 }); // 40 per sample
    // 90 spent; a call of 10 prompt tokens + 2 × 40 fits (180 ≤ 200) and is admitted; a second one would not
    const second = await scope.admit({ promptTokens: 10, samples: 2 });
    let thirdStarted = false;
    const third = scope.admit({ promptTokens: 10, samples: 2 }).then((settle) => {
      thirdStarted = true;
      return settle;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(thirdStarted).toBe(false);
    second({ promptTokens: 10, completionTokens: 20, cost: 0 });
    // 120 spent, nothing in flight: the third starts (alone, as it may cross the cap)
    (await third)({ promptTokens: 10, completionTokens: 80, cost: 0 });
    expect(thirdStarted).toBe(true);
    expect(budget.spent.promptTokens + budget.spent.completionTokens).toBe(210);
    await expect(scope.admit({ promptTokens: 1, samples: 1 })).rejects.toBeInstanceOf(BudgetExhaustedError);
  });

  it('a refusal by a later budget releases the earlier ones unspent', async () => {
    const instance = new SpendBudget('instance', 'i', { tokens: 1_000 });
    const run = new SpendBudget('run', 'r', { dollars: 0.5 }, { promptTokens: 0, completionTokens: 0, cost: 0.5, calls: 3 });
    const scope = new SpendScope([instance, run]);
    const err = await scope.admit({ promptTokens: 10, samples: 1, price: { input: 1_000, output: 0 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    expect((err as BudgetExhaustedError).scope).toBe('run');
    expect((err as LlmError).retryable).toBe(false);
    expect(instance.spent.calls).toBe(0);
    // and the instance budget is free again: a call that fits is admitted at once
    const settle = await new SpendScope([instance]).admit({ promptTokens: 1_000, samples: 1 });
    settle({ promptTokens: 5, completionTokens: 5, cost: 0 });
    expect(instance.spent).toEqual({ promptTokens: 5, completionTokens: 5, cost: 0, calls: 1 });
  });
});

describe('chat calls under a spend scope', () => {
  let server: ScriptedModelServer;
  let cacheDir: string;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      rules: [
        { name: 'flaky', match: 'flaky', failures: [{ status: 500 }], respond: { content: 'ok', promptTokens: 100, completionTokens: 50 } },
        { name: 'any', respond: { content: 'answer', promptTokens: 100, completionTokens: 50 } },
      ],
    });
    cacheDir = await mkdtemp(path.join(tmpdir(), 'locfix-spend-'));
  });
  afterAll(async () => {
    await server.stop();
    await rm(cacheDir, { recursive: true, force: true });
  });

  it('counts every attempt (retries too), prices them, is never called once spent, and cache hits are free', async () => {
    const model = createChatModel({
      model: `openai:priced@${server.url}/v1`,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 2,
      cacheDir,
      prices: { priced: { input: 1_000, output: 2_000 } },
    });
    // $ per call: 100 × 1000/1M + 50 × 2000/1M = 0.2; a cap of 0.5 allows three answered calls
    const budget = new SpendBudget('instance', 'inst-1', { dollars: 0.5 });
    const scope = new SpendScope([budget]);
    const ask = (content: string) => scope.run(() => model.chat({ messages: [{ role: 'user', content }], cache: content !== 'cached' }));

    await ask('flaky');
    expect(budget.spent.calls).toBe(2); // the 500 and the retry
    expect(budget.spent.cost).toBeCloseTo(0.2, 10);
    await ask('cached');
    await ask('second');
    expect(budget.spent.cost).toBeCloseTo(0.6, 10); // the third answered call ran alone and crossed the cap
    const before = server.requests.filter((r) => r.kind === 'chat').length;
    const refused = await ask('third').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect((refused as LlmError).kind).toBe('budget-exhausted');
    expect(server.requests.filter((r) => r.kind === 'chat').length).toBe(before);
    expect(scope.refusal).toBeDefined();

    // a cached answer costs nothing, so a fresh budget is not drawn from
    const fresh = new SpendBudget('instance', 'inst-2', { tokens: 1 });
    const cachedModel = createChatModel({ model: `openai:priced@${server.url}/v1`, cacheDir });
    await new SpendScope([fresh]).run(() => cachedModel.chat({ messages: [{ role: 'user', content: 'second' }] }));
    expect(fresh.spent.calls).toBe(0);
  });

  it('outside any scope nothing is capped', async () => {
    const model = createChatModel({ model: `openai:free@${server.url}/v1` });
    const response = await model.chat({ messages: [{ role: 'user', content: 'hello' }] });
    expect(response.choices[0]?.content).toBe('answer');
  });
});
