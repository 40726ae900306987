/**
 * The Ollama and OpenAI embedders against a loopback HTTP server that answers /api/embed and
 * /v1/embeddings and records every request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OllamaEmbedder } from '../../src/embedding/ollama.ts';
import { OpenAIEmbedder } from '../../src/embedding/openai.ts';
import { createEmbedder, parseEmbedderSpec } from '../../src/embedding/factory.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';

interface Recorded {
  path: string;
  body: { model: string; input: string | string[]; encoding_format?: string };
}

const vectorOf = (text: string): number[] => [text.length, text.charCodeAt(0) || 0, 1];

let server: http.Server;
let base = '';
let requests: Recorded[] = [];
let failNext = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as Recorded['body'];
      requests.push({ path: req.url ?? '', body });
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      res.setHeader('content-type', 'application/json');
      if (failNext > 0) {
        failNext--;
        res.statusCode = 400;
        res.end(JSON.stringify({ error: 'model "nope" not found' }));
        return;
      }
      if (req.url === '/api/embed') {
        res.end(JSON.stringify({ model: body.model, embeddings: inputs.map(vectorOf) }));
      } else if (req.url === '/v1/embeddings') {
        // answer out of order: the client must sort by index
        const data = inputs.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })).reverse();
        res.end(JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: 1, total_tokens: 1 } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  requests = [];
  failNext = 0;
});

describe('Ollama embedder', () => {
  it('adds nomic prefixes, batches documents and keeps order', async () => {
    const embedder = new OllamaEmbedder({ host: base, batchSize: 2 });
    expect(embedder.id).toBe('ollama:nomic-embed-text:nomicprefix');
    const vectors = await embedder.embedDocuments(['a', 'bb', 'ccc']);
    expect(vectors).toEqual(['a', 'bb', 'ccc'].map((t) => vectorOf(`search_document: ${t}`)));
    expect(requests.map((r) => r.path)).toEqual(['/api/embed', '/api/embed']);
    expect(requests.map((r) => r.body.input)).toEqual([['search_document: a', 'search_document: bb'], ['search_document: ccc']]);
    expect(requests[0].body.model).toBe('nomic-embed-text');
    await embedder.embedQuery('why');
    expect(requests[2].body.input).toEqual(['search_query: why']);
  });

  it('sends no prefixes for other models unless configured', async () => {
    await new OllamaEmbedder({ host: base, model: 'mxbai-embed-large' }).embedDocuments(['x']);
    expect(requests[0].body.input).toEqual(['x']);
    const custom = new OllamaEmbedder({ host: base, model: 'm', prefixes: { document: 'D:', query: 'Q:' } });
    await custom.embedQuery('x');
    expect(requests[1].body.input).toEqual(['Q:x']);
    expect(custom.id).toContain('prefix=');
  });

  it('names model and host when the server refuses', async () => {
    failNext = 1;
    await expect(new OllamaEmbedder({ host: base, model: 'nope' }).embedQuery('x')).rejects.toThrow(/model nope at http:\/\/127\.0\.0\.1/);
  });
});

describe('OpenAI-compatible embedder', () => {
  it('batches, asks for floats and reorders by index', async () => {
    const embedder = new OpenAIEmbedder({ baseURL: `${base}/v1`, apiKey: 'k', batchSize: 2, maxRetries: 0 });
    const vectors = await embedder.embedDocuments(['a', 'bb', 'ccc']);
    expect(vectors).toEqual(['a', 'bb', 'ccc'].map(vectorOf));
    expect(requests.map((r) => r.body.input)).toEqual([['a', 'bb'], ['ccc']]);
    expect(requests.every((r) => r.path === '/v1/embeddings' && r.body.encoding_format === 'float')).toBe(true);
    expect(requests[0].body.model).toBe('text-embedding-3-small');
  });

  it('applies configured prefixes (nomic served through /v1)', async () => {
    const embedder = new OpenAIEmbedder({
      baseURL: `${base}/v1`,
      apiKey: 'k',
      model: 'nomic-embed-text',
      prefixes: { document: 'search_document: ', query: 'search_query: ' },
      maxRetries: 0,
    });
    await embedder.embedQuery('q');
    expect(requests[0].body.input).toEqual(['search_query: q']);
  });

  it('fails clearly on a 4xx', async () => {
    failNext = 1;
    await expect(new OpenAIEmbedder({ baseURL: `${base}/v1`, apiKey: 'k', maxRetries: 0 }).embedQuery('x')).rejects.toThrow(
      /openai embeddings \(model text-embedding-3-small/,
    );
  });
});

describe('embedder specs', () => {
  it('parses providers, models and URLs', () => {
    expect(parseEmbedderSpec('lexical')).toEqual({ provider: 'lexical' });
    expect(parseEmbedderSpec('lexical:2048')).toEqual({ provider: 'lexical', dims: 2048 });
    expect(parseEmbedderSpec('ollama')).toEqual({ provider: 'ollama', model: 'nomic-embed-text', url: undefined });
    expect(parseEmbedderSpec('ollama:nomic-embed-text@http://host:11434')).toEqual({ provider: 'ollama', model: 'nomic-embed-text', url: 'http://host:11434' });
    expect(parseEmbedderSpec('openai:text-embedding-3-small@http://127.0.0.1:8000/v1')).toEqual({
      provider: 'openai',
      model: 'text-embedding-3-small',
      url: 'http://127.0.0.1:8000/v1',
    });
  });

  it('rejects bad specs with the reason', () => {
    expect(() => parseEmbedderSpec('bert')).toThrow(/unknown provider "bert"/);
    expect(() => parseEmbedderSpec('ollama:')).toThrow(/empty model name/);
    expect(() => parseEmbedderSpec('ollama:m@localhost')).toThrow(/must be an http\(s\) URL/);
    expect(() => parseEmbedderSpec('lexical:abc')).toThrow(/dims/);
  });

  it('creates working embedders', async () => {
    expect(createEmbedder('lexical:256')).toBeInstanceOf(LexicalEmbedder);
    const ollama = createEmbedder(`ollama:nomic-embed-text@${base}`);
    expect(await ollama.embedQuery('hi')).toEqual(vectorOf('search_query: hi'));
  });
});
