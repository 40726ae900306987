import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Ollama } from 'ollama';
import { createOllamaChatModel } from '../../src/llm/ollama.ts';
import { createChatModel } from '../../src/llm/factory.ts';
import { countChatTokens, countTokens } from '../../src/llm/tokens.ts';
import { startScriptedModelServer, hashEmbedding, type ScriptedModelServer } from '../support/scripted-model-server.ts';

describe('ollama transport through the scripted server', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      models: ['gpt-oss:120b', 'nomic-embed-text'],
      rules: [
        { name: 'thinker', match: 'think first', respond: { content: '{"a.py": 9}', reasoning: 'The parser lives in a.py.' } },
        { name: 'samples', match: 'sample', respond: (_req, i) => `sample ${i}` },
        { name: 'echo', respond: (req) => `you said: ${req.lastUser}` },
      ],
    });
  });
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it('chats non-streaming with options temperature, num_predict, stop, seed, num_ctx', async () => {
    const model = createOllamaChatModel({ model: 'gpt-oss:120b', baseURL: server.url, numCtx: 32768 });
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'hello' },
    ];
    const response = await model.chat({ messages, temperature: 0.2, maxTokens: 64, stop: ['###'], seed: 3 });
    expect(response.choices[0]!.content).toBe('you said: hello');
    expect(response.model).toBe('ollama:gpt-oss:120b');
    const body = server.chatRequests()[0]!.body as Record<string, unknown>;
    expect(body.stream).toBe(false);
    expect(body.options).toEqual({ temperature: 0.2, num_predict: 64, stop: ['###'], seed: 3, num_ctx: 32768 });
    expect(response.usage.promptTokens).toBe(countChatTokens(messages));
    expect(response.usage.completionTokens).toBe(countTokens('you said: hello'));
  });

  it('keeps the thinking field out of the answer', async () => {
    const model = createChatModel(`ollama:gpt-oss:120b@${server.url}`, { think: 'high' });
    const response = await model.chat({ messages: [{ role: 'user', content: 'think first, then score' }] });
    expect(response.choices[0]!.content).toBe('{"a.py": 9}');
    expect(response.choices[0]!.reasoning).toBe('The parser lives in a.py.');
    expect((server.chatRequests()[0]!.body as { think?: unknown }).think).toBe('high');
  });

  it('samples n by repeated calls, varying the seed', async () => {
    const model = createOllamaChatModel({ model: 'gpt-oss:120b', baseURL: server.url });
    const response = await model.chat({ messages: [{ role: 'user', content: 'one sample please' }], n: 3, temperature: 0.8, seed: 10 });
    expect(response.choices.map((c) => c.content).sort()).toEqual(['sample 0', 'sample 1', 'sample 2']);
    const seeds = server.chatRequests().map((r) => (r.body as { options: { seed: number } }).options.seed);
    expect(seeds.sort()).toEqual([10, 11, 12]);
    expect(response.requests).toBe(3);
  });

  it('serves the official client: streaming chat, embed, legacy embeddings, tags', async () => {
    const client = new Ollama({ host: server.url });
    const stream = await client.chat({ model: 'gpt-oss:120b', messages: [{ role: 'user', content: 'think first' }], stream: true });
    let content = '';
    let thinking = '';
    let last: { done?: boolean; eval_count?: number } = {};
    for await (const part of stream) {
      content += part.message.content;
      thinking += part.message.thinking ?? '';
      last = part;
    }
    expect(content).toBe('{"a.py": 9}');
    expect(thinking).toBe('The parser lives in a.py.');
    expect(last.done).toBe(true);
    expect(last.eval_count).toBeGreaterThan(0);

    const embedded = await client.embed({ model: 'nomic-embed-text', input: ['search_query: parse url', 'x'] });
    expect(embedded.embeddings).toEqual([hashEmbedding('search_query: parse url'), hashEmbedding('x')]);
    const legacy = await client.embeddings({ model: 'nomic-embed-text', prompt: 'x' });
    expect(legacy.embedding).toEqual(hashEmbedding('x'));
    const tags = await client.list();
    expect(tags.models.map((m) => m.name)).toEqual(['gpt-oss:120b', 'nomic-embed-text']);
  });
});
