/**
 * Every failure has its true cause, from a typed error and never from what a library or a server put on it
 * (issue 52): a model server's error body cannot name a cause, a dead embedder or vector store is the
 * infrastructure's (not the localizer's empty patch), a missing image is not an ambiguous evaluation, a replay miss is
 * a recording's gap, and an embedder that does not answer stops a run before any instance.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Services } from '../../app/services.ts';
import { ImageBuildError } from '../../sandbox/common/image-recipe.ts';
import { OpenAIEmbedder } from '../../src/embedding/openai.ts';
import { causeOf } from '../../src/run/failure-cause.ts';
import { toStageError } from '../../src/run/stage-runner.ts';
import { withTypedFailures } from '../../src/vectorstore/failures.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import type { VectorStore } from '../../src/vectorstore/types.ts';

/** A server that fails every request with a body naming a cause of its choosing. */
let hostile: Server;
let hostileUrl = '';
/** A loopback port nothing listens on. */
let deadUrl = '';

beforeAll(async () => {
  hostile = createServer((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'disk-full', type: 'replay-miss', message: 'No space left on device' } }));
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  hostileUrl = `http://127.0.0.1:${(hostile.address() as { port: number }).port}/v1`;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  deadUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}/v1`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});
afterAll(() => new Promise<void>((resolve) => hostile.close(() => resolve())));

describe('causes from typed errors only (issue 52)', () => {
  it("a server's error body names no cause: the client copies its `code`, the stage does not record it", async () => {
    const client = new OpenAI({ baseURL: hostileUrl, apiKey: 'x', maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect((err as { code?: unknown }).code).toBe('disk-full'); // what the library put there
    const recorded = toStageError(err);
    expect(recorded.kind).toBeUndefined();
    expect(causeOf(recorded).cause).toBe('method');
    // a glued kind nobody declared is not read either
    expect(toStageError(Object.assign(new Error('x'), { kind: 'connection-ish' })).kind).toBeUndefined();
  });

  it("an embedding server that fails is the infrastructure's, not the localizer's empty patch", async () => {
    for (const url of [deadUrl, hostileUrl]) {
      const embedder = new OpenAIEmbedder({ model: 'e', baseURL: url, maxRetries: 0 });
      const err = await embedder.embedQuery('q').catch((e: unknown) => e);
      expect(causeOf(toStageError(err))).toEqual({ cause: 'embedder-unavailable', class: 'infrastructure' });
    }
  });

  it("a vector store that fails is the infrastructure's, in every call", async () => {
    const broken: VectorStore = {
      collection: async () => {
        throw new Error('fetch failed');
      },
      deleteCollection: async () => undefined,
    };
    const err = await withTypedFailures(broken, 'Chroma at test')
      .collection('abc')
      .catch((e: unknown) => e);
    expect(causeOf(toStageError(err))).toEqual({ cause: 'vector-store-unavailable', class: 'infrastructure' });
    expect((err as Error).message).toContain('Chroma at test');
    const memory = new MemoryVectorStore();
    const collection = await withTypedFailures(memory, 'memory').collection('abc');
    await collection.upsert([{ id: 'a', embedding: [1, 0] }]);
    expect((await collection.query([1, 0], 1)).map((h) => h.id)).toEqual(['a']);
  });

  it('an image that cannot be had is not an ambiguous evaluation, nor a repository error the method made', () => {
    const missing = toStageError(new ImageBuildError('base image locfix/base is missing', undefined, 'image-missing'));
    expect(causeOf(missing, 'evaluate')).toEqual({ cause: 'image-unavailable', class: 'infrastructure' });
    expect(causeOf(missing)).toEqual({ cause: 'image-unavailable', class: 'infrastructure' });
    expect(causeOf(toStageError(new ImageBuildError('setup exited with 1')), 'evaluate').cause).toBe('image-unbuildable');
    expect(causeOf({ kind: 'missing-commit' }, 'evaluate')).toEqual({ cause: 'repository-unavailable', class: 'infrastructure' });
    expect(causeOf({ kind: 'missing-repo' })).toEqual({ cause: 'mirror-missing', class: 'configuration' });
  });

  it('an embedder that does not answer stops the run before any instance, naming the fix', { timeout: 60_000 }, async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-causes-'));
    const services = new Services({ cacheDir, embedder: `openai:e@${deadUrl}` });
    try {
      const err = await services.checkConfiguration({ repos: [] }).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'embedder-failed' });
      expect((err as Error).message).toMatch(/the embedder openai:e.* does not answer, and every instance's index needs it.*--embedder/);
      await expect(new Services({ cacheDir, embedder: 'lexical' }).checkConfiguration({ repos: [] })).resolves.toBeUndefined();
    } finally {
      await services.close();
    }
  });
});
