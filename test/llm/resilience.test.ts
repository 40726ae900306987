import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAIChatModel } from '../../src/llm/openai.ts';
import { createOllamaChatModel } from '../../src/llm/ollama.ts';
import { LlmError } from '../../src/llm/errors.ts';
import { UsageMeter } from '../../src/llm/usage.ts';
import type { ChatTrace } from '../../src/llm/types.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const fast = { retryBaseDelayMs: 5, retryMaxDelayMs: 20 };
const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(LlmError);
    return err as LlmError;
  }
  throw new Error('expected the call to fail');
}

describe('retries, timeouts and concurrency', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      rules: [
        { name: 'flaky', match: 'flaky', failures: [{ status: 429, headers: { 'retry-after': '0' } }, { status: 500 }, { status: 503 }], respond: 'finally' },
        { name: 'reset', match: 'reset', failures: [{ reset: true }, { reset: true }], respond: 'reconnected' },
        { name: 'garbled', match: 'garbled', failures: [{ raw: '{"choices": [' }], respond: 'clean' },
        { name: 'bad request', match: 'invalid', respond: { status: 400, body: { error: { message: 'context length exceeded' } } } },
        { name: 'always 500', match: 'broken', respond: { status: 500 } },
        { name: 'slow', match: 'slow', respond: { delayMs: 2_000, then: 'too late' } },
        { name: 'busy', match: 'busy', delayMs: 60, respond: 'done' },
      ],
    });
  });
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it('retries 429 and 5xx, then succeeds (openai)', async () => {
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, fast);
    const response = await model.chat(ask('flaky'));
    expect(response.choices[0]!.content).toBe('finally');
    expect(server.chatRequests().map((r) => r.status)).toEqual([429, 500, 503, 200]);
    expect(response.requests).toBe(4);
  });

  it('retries 429 and 5xx, then succeeds (ollama)', async () => {
    const model = createOllamaChatModel({ model: 'm', baseURL: server.url }, fast);
    const response = await model.chat(ask('flaky'));
    expect(response.choices[0]!.content).toBe('finally');
    expect(server.chatRequests()).toHaveLength(4);
  });

  it('retries connection resets and malformed JSON', async () => {
    const openai = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, fast);
    expect((await openai.chat(ask('reset'))).choices[0]!.content).toBe('reconnected');
    expect(server.chatRequests()).toHaveLength(3);
    expect((await openai.chat(ask('garbled'))).choices[0]!.content).toBe('clean');
    server.reset();
    const ollama = createOllamaChatModel({ model: 'm', baseURL: server.url }, fast);
    expect((await ollama.chat(ask('reset'))).choices[0]!.content).toBe('reconnected');
    expect((await ollama.chat(ask('garbled'))).choices[0]!.content).toBe('clean');
  });

  it('does not retry 400 and reports an http LlmError after one attempt', async () => {
    for (const model of [
      createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, fast),
      createOllamaChatModel({ model: 'm', baseURL: server.url }, fast),
    ]) {
      server.reset();
      const error = await rejection(model.chat(ask('invalid prompt')));
      expect(error.kind).toBe('http');
      expect(error.status).toBe(400);
      expect(error.attempts).toBe(1);
      expect(server.chatRequests()).toHaveLength(1);
    }
  });

  it('gives up after maxAttempts and records the failure in trace and meter', async () => {
    const meter = new UsageMeter();
    const traces: ChatTrace[] = [];
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { ...fast, maxAttempts: 3, meter, trace: (t) => traces.push(t) });
    const error = await rejection(model.chat({ ...ask('broken'), purpose: 'repair' }));
    expect(error).toMatchObject({ kind: 'http', status: 500, attempts: 3 });
    expect(server.chatRequests()).toHaveLength(3);
    expect(traces).toHaveLength(1);
    expect(traces[0]!.error).toMatchObject({ kind: 'http', status: 500, attempts: 3 });
    expect(traces[0]!.purpose).toBe('repair');
    expect(traces[0]!.retries!.map((r) => [r.attempt, r.kind, r.status])).toEqual([
      [1, 'http', 500],
      [2, 'http', 500],
    ]);
    expect(meter.byPurpose().repair!.failures).toBe(1);
  });

  it('times out a slow answer, retries, then throws a timeout LlmError', async () => {
    for (const model of [
      createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { ...fast, timeoutMs: 150, maxAttempts: 2 }),
      createOllamaChatModel({ model: 'm', baseURL: server.url }, { ...fast, timeoutMs: 150, maxAttempts: 2 }),
    ]) {
      server.reset();
      const started = Date.now();
      const error = await rejection(model.chat(ask('slow')));
      expect(error.kind).toBe('timeout');
      expect(error.attempts).toBe(2);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(server.chatRequests()).toHaveLength(2);
    }
  });

  it('reports connection failures when nothing listens', async () => {
    const dead = await startScriptedModelServer();
    const url = dead.openaiURL;
    await dead.stop();
    const model = createOpenAIChatModel({ model: 'm', baseURL: url }, { ...fast, maxAttempts: 2 });
    const error = await rejection(model.chat(ask('anyone?')));
    expect(error.kind).toBe('connection');
    expect(error.attempts).toBe(2);
  });

  it('aborts on the caller signal without retrying', async () => {
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, fast);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await rejection(model.chat({ ...ask('slow'), signal: controller.signal }));
    expect(error.kind).toBe('aborted');
    expect(server.chatRequests()).toHaveLength(1);
  });

  it('limits concurrent requests per endpoint, shared by all models on it', async () => {
    const busy = await startScriptedModelServer({ rules: [{ match: 'busy', delayMs: 50, respond: (_r, i) => `done ${i}` }] });
    try {
      const a = createOpenAIChatModel({ model: 'a', baseURL: busy.openaiURL, supportsN: false }, { concurrency: 3 });
      const b = createOpenAIChatModel({ model: 'b', baseURL: busy.openaiURL, supportsN: false }, { concurrency: 3 });
      const results = await Promise.all([a.chat({ ...ask('busy a'), n: 6, temperature: 1 }), b.chat({ ...ask('busy b'), n: 6, temperature: 1 })]);
      expect(results.flatMap((r) => r.choices)).toHaveLength(12);
      expect(busy.chatRequests()).toHaveLength(12);
      expect(busy.maxInFlight).toBe(3);
    } finally {
      await busy.stop();
    }
  });
});
