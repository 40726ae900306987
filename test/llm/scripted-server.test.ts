import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createOpenAIChatModel } from '../../src/llm/openai.ts';
import { createOllamaChatModel } from '../../src/llm/ollama.ts';
import type { LlmError } from '../../src/llm/errors.ts';
import { hashEmbedding, loadScenario, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const fast = { retryBaseDelayMs: 5, retryMaxDelayMs: 20 };
const user = (content: string) => [{ role: 'user' as const, content }];

describe('scripted model server', () => {
  describe('JSON scenario file', () => {
    let server: ScriptedModelServer;
    beforeAll(async () => {
      server = await startScriptedModelServer(await loadScenario('llm-smoke'));
    });
    afterAll(() => server.stop());

    it('matches regex rules and serves fenced answers', async () => {
      const model = createOpenAIChatModel({ model: 'scripted', baseURL: server.openaiURL });
      const response = await model.chat({ messages: user('Please SCORE the candidates now') });
      expect(response.choices[0]!.content).toContain('"src/app.py": 9');
      expect(server.requests.at(-1)!.servedBy).toBe('score');
    });

    it('injects failures before answering, then serves samples by index', async () => {
      const model = createOpenAIChatModel({ model: 'scripted', baseURL: server.openaiURL }, fast);
      const messages = user('repair with SEARCH/REPLACE edits');
      const greedy = await model.chat({ messages, temperature: 0 });
      expect(greedy.choices[0]!.content).toBe('greedy patch');
      expect(greedy.requests).toBe(2);
      const sampled = await model.chat({ messages, temperature: 0.8, n: 4 });
      // string[] responses clamp to the last element
      expect(sampled.choices.map((c) => c.content)).toEqual(['greedy patch', 'sample patch A', 'sample patch B', 'sample patch B']);
    });

    it('sends separate reasoning and malformed bodies', async () => {
      const ollama = createOllamaChatModel({ model: 'scripted', baseURL: server.url }, { ...fast, maxAttempts: 2 });
      const answer = await ollama.chat({ messages: user('why?') });
      expect(answer.choices[0]).toMatchObject({ content: 'because', reasoning: 'thought it through' });
      const openai = createOpenAIChatModel({ model: 'scripted', baseURL: server.openaiURL }, { ...fast, maxAttempts: 2 });
      await expect(openai.chat({ messages: user('garble me') })).rejects.toMatchObject({ kind: 'parse', attempts: 2 });
    });

    it('answers unmatched requests with a 400 that names the request', async () => {
      const model = createOpenAIChatModel({ model: 'scripted', baseURL: server.openaiURL }, fast);
      const error = (await model.chat({ messages: user('nothing matches this') }).catch((e: unknown) => e)) as LlmError;
      expect(error.kind).toBe('http');
      expect(error.status).toBe(400);
      expect(error.message).toContain('no rule matched');
      expect(error.message).toContain('nothing matches this');
      expect(server.requests.at(-1)!.servedBy).toBe('fallback');
    });
  });

  it('loads TypeScript scenarios', async () => {
    const server = await startScriptedModelServer(await loadScenario('llm-policy'));
    try {
      const model = createOllamaChatModel({ model: 'p', baseURL: server.url }, { ...fast, maxAttempts: 1 });
      const response = await model.chat({ messages: user('candidates: a/x.py, b/y.py, a/x.py') });
      expect(JSON.parse(response.choices[0]!.content)).toEqual({ 'a/x.py': 10, 'b/y.py': 9 });
      await expect(model.chat({ messages: user('no paths here') })).rejects.toMatchObject({ status: 400 });
    } finally {
      await server.stop();
    }
  });

  it('asks the policy when no rule matches, honours times, counts repeats', async () => {
    const server = await startScriptedModelServer({
      rules: [{ match: /^only once$/m, times: 1, respond: 'first time' }],
      policy: (req, i) => (req.lastUser.startsWith('policy') ? `policy ${req.repeat}/${i} T=${req.temperature ?? 'default'}` : undefined),
    });
    try {
      const model = createOpenAIChatModel({ model: 'p', baseURL: server.openaiURL }, { ...fast, maxAttempts: 1 });
      expect((await model.chat({ messages: user('only once') })).choices[0]!.content).toBe('first time');
      await expect(model.chat({ messages: user('only once') })).rejects.toMatchObject({ status: 400 });
      expect((await model.chat({ messages: user('policy a'), temperature: 0.5 })).choices[0]!.content).toBe('policy 0/0 T=0.5');
      expect((await model.chat({ messages: user('policy a'), temperature: 0.5 })).choices[0]!.content).toBe('policy 1/1 T=0.5');
      expect(server.requests.map((r) => r.servedBy)).toEqual(['rule 0', 'fallback', 'policy', 'policy']);
      server.reset();
      expect((await model.chat({ messages: user('policy a'), temperature: 0.5 })).choices[0]!.content).toBe('policy 0/0 T=0.5');
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]).toMatchObject({ api: 'openai', kind: 'chat', path: '/v1/chat/completions', status: 200, sampleIndices: [0] });
    } finally {
      await server.stop();
    }
  });

  it('a throwing scenario function answers 400 and is kept in scenarioErrors', async () => {
    const server = await startScriptedModelServer([
      {
        respond: () => {
          throw new Error('bug in the test scenario');
        },
      },
    ]);
    try {
      const model = createOllamaChatModel({ model: 'm', baseURL: server.url }, fast);
      await expect(model.chat({ messages: user('x') })).rejects.toMatchObject({ kind: 'http', status: 400, attempts: 1 });
      expect(server.scenarioErrors[0]).toContain('bug in the test scenario');
    } finally {
      await server.stop();
    }
  });

  it('rule delays and model filters', async () => {
    const server = await startScriptedModelServer([
      { model: 'fast', respond: 'quick' },
      { model: /^slow/, delayMs: 200, respond: 'eventually' },
    ]);
    try {
      const slow = createOllamaChatModel({ model: 'slow-1', baseURL: server.url });
      const started = Date.now();
      expect((await slow.chat({ messages: user('hi') })).choices[0]!.content).toBe('eventually');
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect((await createOllamaChatModel({ model: 'fast', baseURL: server.url }).chat({ messages: user('hi') })).choices[0]!.content).toBe('quick');
    } finally {
      await server.stop();
    }
  });

  it('embeddings are deterministic and word-overlap sensitive', async () => {
    const server = await startScriptedModelServer({ embeddingDim: 32 });
    try {
      const client = new OpenAI({ baseURL: server.openaiURL, apiKey: 'k' });
      const res = await client.embeddings.create({
        model: 'e',
        input: ['parse_url in requests/utils.py', 'parse url helpers', 'database migration'],
        encoding_format: 'float',
      });
      const [a, b, c] = res.data.map((d) => d.embedding);
      const cos = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * y[i]!, 0);
      expect(a).toHaveLength(32);
      expect(cos(a!, a!)).toBeCloseTo(1, 6);
      expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!));
      expect(hashEmbedding('parse_url in requests/utils.py', 32)).toEqual(a);
      expect(hashEmbedding('', 8)).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
      expect(server.requests[0]!.kind).toBe('embed');
    } finally {
      await server.stop();
    }
  });

  it('rejects malformed requests with 400 and unknown endpoints with 404', async () => {
    const server = await startScriptedModelServer([{ respond: 'x' }]);
    try {
      const notJson = await fetch(`${server.openaiURL}/chat/completions`, { method: 'POST', body: '{oops' });
      expect(notJson.status).toBe(400);
      const noMessages = await fetch(`${server.openaiURL}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [] }) });
      expect(noMessages.status).toBe(400);
      expect(((await noMessages.json()) as { error: { message: string } }).error.message).toMatch(/messages/);
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
