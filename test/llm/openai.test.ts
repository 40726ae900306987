import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createOpenAIChatModel } from '../../src/llm/openai.ts';
import { countChatTokens, countTokens } from '../../src/llm/tokens.ts';
import type { ChatTrace } from '../../src/llm/types.ts';
import { startScriptedModelServer, hashEmbedding, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const question = [{ role: 'user' as const, content: 'Which file defines the parser?' }];

describe('openai transport through the scripted server', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      models: ['scripted-coder'],
      rules: [
        { name: 'samples', match: 'Which file', respond: (_req, i) => `answer ${i}` },
        { name: 'stop', match: 'ReAct', respond: 'Thought: look\nAction: ReadFileSkeleton(a.py)\nObservation: fake' },
        { name: 'long', match: 'ramble', respond: 'one two three four five six seven eight nine ten eleven twelve' },
      ],
    });
  });
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it('serves n samples natively in one request, with usage split per sample', async () => {
    const model = createOpenAIChatModel({ model: 'scripted-coder', baseURL: server.openaiURL });
    const response = await model.chat({ messages: question, n: 3, temperature: 0.8 });
    expect(response.choices.map((c) => c.content)).toEqual(['answer 0', 'answer 1', 'answer 2']);
    const chats = server.chatRequests();
    expect(chats).toHaveLength(1);
    expect((chats[0]!.body as { n: number }).n).toBe(3);
    expect(response.usage.promptTokens).toBe(countChatTokens(question));
    expect(response.usage.completionTokens).toBe(3 * countTokens('answer 0'));
    expect(response.choices[0]!.usage!.promptTokens).toBe(countChatTokens(question));
    expect(response.choices[1]!.usage!.promptTokens).toBe(0);
    expect(response.cached).toBe(false);
    expect(response.requests).toBe(1);
    expect(response.model).toBe('openai:scripted-coder');
  });

  it('falls back to repeated calls without native n, with seed + i per sample', async () => {
    const model = createOpenAIChatModel({ model: 'scripted-coder', baseURL: server.openaiURL, supportsN: false });
    const response = await model.chat({ messages: question, n: 4, temperature: 0.8, seed: 100 });
    expect(response.choices.map((c) => c.content).sort()).toEqual(['answer 0', 'answer 1', 'answer 2', 'answer 3']);
    const chats = server.chatRequests();
    expect(chats).toHaveLength(4);
    expect(chats.map((r) => (r.body as { n?: number }).n)).toEqual([undefined, undefined, undefined, undefined]);
    expect(chats.map((r) => (r.body as { seed: number }).seed).sort()).toEqual([100, 101, 102, 103]);
    // every call paid its prompt
    expect(response.usage.promptTokens).toBe(4 * countChatTokens(question));
  });

  it('asks again when a server ignores n (Ollama /v1 style)', async () => {
    const ignoring = await startScriptedModelServer({ supportsN: false, rules: [{ respond: (_r, i) => `s${i}` }] });
    try {
      const model = createOpenAIChatModel({ model: 'm', baseURL: ignoring.openaiURL });
      const response = await model.chat({ messages: question, n: 3, temperature: 1 });
      expect(response.choices.map((c) => c.content).sort()).toEqual(['s0', 's1', 's2']);
      expect(ignoring.chatRequests().map((r) => (r.body as { n?: number }).n)).toEqual([3, undefined, undefined]);
      // the model remembers: the next call samples by repeated calls straight away
      ignoring.reset();
      await model.chat({ messages: question, n: 2, temperature: 0.5 });
      expect(ignoring.chatRequests().map((r) => (r.body as { n?: number }).n)).toEqual([undefined, undefined]);
    } finally {
      await ignoring.stop();
    }
  });

  it('passes temperature, max_tokens, stop and seed; the server honours stop and max tokens', async () => {
    const model = createOpenAIChatModel({ model: 'scripted-coder', baseURL: server.openaiURL });
    const stopped = await model.chat({
      messages: [{ role: 'user', content: 'ReAct please' }],
      stop: ['Observation:'],
      temperature: 0,
      seed: 7,
      maxTokens: 100,
    });
    expect(stopped.choices[0]!.content).toBe('Thought: look\nAction: ReadFileSkeleton(a.py)\n');
    expect(stopped.choices[0]!.finishReason).toBe('stop');
    const body = server.chatRequests()[0]!.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'scripted-coder', temperature: 0, seed: 7, max_tokens: 100, stop: ['Observation:'] });
    expect(body.n).toBeUndefined();

    const cut = await model.chat({ messages: [{ role: 'user', content: 'ramble on' }], maxTokens: 3 });
    expect(cut.choices[0]!.finishReason).toBe('length');
    expect(cut.usage.completionTokens).toBe(3);
    expect(cut.choices[0]!.content).toBe('one two three');
  });

  it('records a full trace of each call: prompt, raw answer with reasoning, parsed answer, usage, latency', async () => {
    const thinker = await startScriptedModelServer([{ respond: { content: '<think>inline</think>final text', reasoning: 'field reasoning' } }]);
    try {
      const modelTraces: ChatTrace[] = [];
      const callTraces: ChatTrace[] = [];
      const model = createOpenAIChatModel({ model: 'm', baseURL: thinker.openaiURL }, { trace: (t) => modelTraces.push(t) });
      const response = await model.chat({ messages: question, temperature: 0.3, purpose: 'blagent.t0', trace: (t) => callTraces.push(t) });
      expect(callTraces).toEqual(modelTraces);
      const trace = callTraces[0]!;
      expect(trace).toMatchObject({ modelId: 'openai:m', purpose: 'blagent.t0', request: { messages: question, temperature: 0.3, n: 1 } });
      expect(trace.response!.choices[0]).toMatchObject({
        content: 'final text',
        reasoning: 'field reasoning\n\ninline',
        raw: '<think>inline</think>final text',
        cached: false,
      });
      expect(trace.response!.usage).toEqual(response.usage);
      expect(trace.latencyMs).toBeGreaterThanOrEqual(0);
      expect(Date.parse(trace.startedAt)).not.toBeNaN();
      expect(trace.error).toBeUndefined();
    } finally {
      await thinker.stop();
    }
  });

  it('counts tokens locally when the server reports no usage', async () => {
    const silent = await startScriptedModelServer({ reportUsage: false, rules: [{ respond: 'forty two' }] });
    try {
      const model = createOpenAIChatModel({ model: 'm', baseURL: silent.openaiURL });
      const response = await model.chat({ messages: question });
      expect(response.usage).toEqual({ promptTokens: countChatTokens(question), completionTokens: countTokens('forty two'), cost: 0 });
    } finally {
      await silent.stop();
    }
  });

  it('speaks /v1/models, /v1/embeddings (float and base64) and streaming to the official client', async () => {
    const client = new OpenAI({ baseURL: server.openaiURL, apiKey: 'k', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-coder']);

    const floats = await client.embeddings.create({ model: 'e', input: ['alpha beta', 'gamma'], encoding_format: 'float' });
    expect(floats.data[0]!.embedding).toEqual(hashEmbedding('alpha beta'));
    const base64 = await client.embeddings.create({ model: 'e', input: 'gamma' }); // the client asks for base64 itself
    expect(base64.data[0]!.embedding.map((v) => Math.fround(v))).toEqual(hashEmbedding('gamma').map((v) => Math.fround(v)));

    const stream = await client.chat.completions.create({ model: 'scripted-coder', messages: question, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('answer 0');
    expect(usage).toMatchObject({ completion_tokens: countTokens('answer 0') });
  });
});
