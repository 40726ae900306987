import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CircuitBreaker } from '../../src/llm/circuit-breaker.ts';
import { LlmError } from '../../src/llm/errors.ts';
import { createChatModel } from '../../src/llm/factory.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const down = () => Promise.reject(new LlmError('connection', 'ECONNREFUSED'));

describe('CircuitBreaker', () => {
  it('opens after `threshold` server-down failures in a row, fails fast, and closes after a successful probe', async () => {
    // the clock alone is faked (cockatiel reads Date.now)
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const setNow = (ms: number) => vi.setSystemTime(1_000_000 + ms);
    const breaker = new CircuitBreaker('http://model:1', { threshold: 2, coolDownMs: 1_000 });
    let calls = 0;
    const counted = (fn: () => Promise<string>) => () => {
      calls += 1;
      return fn();
    };
    await expect(breaker.run(counted(down), 'm')).rejects.toThrow('ECONNREFUSED');
    // a bad request or an unparseable answer says nothing about the server being down
    await expect(
      breaker.run(
        counted(() => Promise.reject(new LlmError('http', 'bad request', { status: 400 }))),
        'm',
      ),
    ).rejects.toThrow();
    expect(breaker.open).toBe(false);
    await expect(breaker.run(counted(down), 'm')).rejects.toThrow('ECONNREFUSED');
    await expect(breaker.run(counted(down), 'm')).rejects.toThrow('ECONNREFUSED');
    expect(breaker.open).toBe(true);
    expect(calls).toBe(4);

    const fast = await breaker.run(counted(down), 'm').catch((err: LlmError) => err);
    expect(fast).toBeInstanceOf(LlmError);
    expect((fast as LlmError).message).toMatch(/m: not called: the last 2 calls to http:\/\/model:1 failed \(ECONNREFUSED\); next try in 1 s/);
    expect(calls).toBe(4);

    setNow(1_001); // cool-down over: one probe; it fails, so the breaker stays open for another cool-down
    await expect(breaker.run(counted(down), 'm')).rejects.toThrow('ECONNREFUSED');
    expect(calls).toBe(5);
    await expect(
      breaker.run(
        counted(() => Promise.resolve('x')),
        'm',
      ),
    ).rejects.toThrow(/not called/);
    setNow(2_100);
    expect(
      await breaker.run(
        counted(() => Promise.resolve('back')),
        'm',
      ),
    ).toBe('back');
    expect(breaker.open).toBe(false);
    expect(
      await breaker.run(
        counted(() => Promise.resolve('again')),
        'm',
      ),
    ).toBe('again');
    vi.useRealTimers();
  });
});

describe('a model server that is down', () => {
  let deadURL: string;
  let server: ScriptedModelServer;
  beforeAll(async () => {
    // a port that was just free: connections to it are refused at once
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    deadURL = `http://127.0.0.1:${port}/v1`;
    server = await startScriptedModelServer({ rules: [{ name: 'any', match: '', respond: 'hello' }] });
  });
  afterAll(() => server.stop());

  it('costs the retries of `threshold` calls, then every further call fails at once with the reason', async () => {
    const model = createChatModel({ model: `openai:m@${deadURL}`, maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 2 });
    const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
    for (let i = 0; i < 3; i++) {
      const err = (await model.chat(ask).catch((e: unknown) => e)) as LlmError;
      expect(err.kind).toBe('connection');
      expect(err.attempts).toBe(3);
    }
    const started = Date.now();
    const fast = (await model.chat(ask).catch((e: unknown) => e)) as LlmError;
    expect(fast.message).toMatch(/not called: the last 3 calls to .* failed/);
    expect(fast.attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(500);

    // another server is not affected, and `circuitBreaker: false` turns it off
    const healthy = createChatModel({ model: `openai:m@${server.openaiURL}` });
    expect((await healthy.chat(ask)).choices[0]?.content).toContain('hello');
    const unguarded = createChatModel({ model: `openai:m@${deadURL}`, maxRetries: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 2, circuitBreaker: false });
    expect(((await unguarded.chat(ask).catch((e: unknown) => e)) as LlmError).attempts).toBe(2);
  });
});
