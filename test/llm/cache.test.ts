import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOpenAIChatModel } from '../../src/llm/openai.ts';
import { createOllamaChatModel } from '../../src/llm/ollama.ts';
import { UsageMeter } from '../../src/llm/usage.ts';
import type { ChatTrace } from '../../src/llm/types.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const prices = { 'openai:m': { input: 2, output: 8 } };
const messages = [{ role: 'user' as const, content: 'repair this: <think>not reasoning, user text</think>' }];

describe('on-disk response cache', () => {
  let server: ScriptedModelServer;
  let cacheDir: string;
  beforeAll(async () => {
    server = await startScriptedModelServer({ rules: [{ respond: (_r, i) => `<think>why ${i}</think>patch ${i}` }] });
  });
  afterAll(() => server.stop());
  beforeEach(async () => {
    server.reset();
    cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-llm-cache-'));
    return () => rm(cacheDir, { recursive: true, force: true });
  });

  it('a second run reads every sample from the cache and sends nothing', async () => {
    const first = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { cacheDir, prices });
    const paid = await first.chat({ messages, n: 3, temperature: 0.8, maxTokens: 1024 });
    expect(paid.cached).toBe(false);
    expect(server.chatRequests()).toHaveLength(1);

    server.reset();
    const meter = new UsageMeter();
    const traces: ChatTrace[] = [];
    const second = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { cacheDir, prices, meter });
    const again = await second.chat({ messages, n: 3, temperature: 0.8, maxTokens: 1024, purpose: 'repair', trace: (t) => traces.push(t) });
    expect(server.requests).toHaveLength(0);
    expect(again.cached).toBe(true);
    expect(again.requests).toBe(0);
    expect(again.choices.map((c) => c.content)).toEqual(paid.choices.map((c) => c.content));
    expect(again.choices.map((c) => c.reasoning)).toEqual(['why 0', 'why 1', 'why 2']);
    expect(again.choices.map((c) => c.raw)).toEqual(paid.choices.map((c) => c.raw));
    // original usage is kept, and reported as cached, not paid
    expect(again.usage).toEqual(paid.usage);
    expect(again.paidUsage).toEqual({ promptTokens: 0, completionTokens: 0, cost: 0 });
    const record = meter.byPurpose().repair!;
    expect(record.cached.promptTokens).toBe(paid.usage.promptTokens);
    expect(record.cached.samples).toBe(3);
    expect(record.paid.samples).toBe(0);
    expect(traces[0]!.response!.cached).toBe(true);
  });

  it('a request for more samples fetches only the missing ones', async () => {
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { cacheDir });
    await model.chat({ messages, n: 4, temperature: 0.8 });
    // no server.reset(): the server keeps numbering samples of this conversation, 4..9 now
    const more = await model.chat({ messages, n: 10, temperature: 0.8 });
    const chats = server.chatRequests().slice(1);
    expect(chats).toHaveLength(1);
    expect((chats[0]!.body as { n: number }).n).toBe(6);
    expect(more.cached).toBe(false);
    expect(more.choices.map((c) => c.cached)).toEqual([true, true, true, true, false, false, false, false, false, false]);
    expect(more.choices.map((c) => c.content)).toEqual(Array.from({ length: 10 }, (_, i) => `patch ${i}`));
    expect(more.cachedUsage!.completionTokens + more.paidUsage!.completionTokens).toBe(more.usage.completionTokens);
  });

  it('repeated calls (no native n) fill the missing samples one by one', async () => {
    const model = createOllamaChatModel({ model: 'm', baseURL: server.url }, { cacheDir });
    await model.chat({ messages, n: 2, temperature: 0.8, seed: 1 });
    server.reset();
    const more = await model.chat({ messages, n: 5, temperature: 0.8, seed: 1 });
    const seeds = server.chatRequests().map((r) => (r.body as { options: { seed: number } }).options.seed);
    expect(seeds.sort()).toEqual([3, 4, 5]);
    expect(more.choices.filter((c) => c.cached)).toHaveLength(2);
  });

  it('any change of the request is a different entry; cache:false bypasses it', async () => {
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { cacheDir });
    await model.chat({ messages, temperature: 0 });
    await model.chat({ messages, temperature: 0 });
    expect(server.chatRequests()).toHaveLength(1);
    await model.chat({ messages, temperature: 0, maxTokens: 10 });
    await model.chat({ messages, temperature: 0, stop: ['x'] });
    await model.chat({ messages, temperature: 0, seed: 4 });
    await model.chat({ messages: [...messages, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }], temperature: 0 });
    await createOpenAIChatModel({ model: 'other', baseURL: server.openaiURL }, { cacheDir }).chat({ messages, temperature: 0 });
    expect(server.chatRequests()).toHaveLength(6);
    await model.chat({ messages, temperature: 0, cache: false });
    expect(server.chatRequests()).toHaveLength(7);
    // one folder per distinct request, one file per sample plus the request
    const shards = await readdir(path.join(cacheDir, 'llm'));
    let folders = 0;
    for (const shard of shards) folders += (await readdir(path.join(cacheDir, 'llm', shard))).length;
    expect(folders).toBe(6);
  });

  it('a torn or foreign cache entry is a miss and gets rewritten', async () => {
    const model = createOpenAIChatModel({ model: 'm', baseURL: server.openaiURL }, { cacheDir });
    await model.chat({ messages, n: 2, temperature: 0.8 });
    const files = (await readdir(path.join(cacheDir, 'llm'), { recursive: true })).filter((f) => /\/1\.json$/.test(f));
    expect(files).toHaveLength(1);
    await writeFile(path.join(cacheDir, 'llm', files[0]!), '{"version": 1, "raw": ');
    const again = await model.chat({ messages, n: 2, temperature: 0.8 });
    expect(again.choices.map((c) => c.cached)).toEqual([true, false]);
    const third = await model.chat({ messages, n: 2, temperature: 0.8 });
    expect(third.cached).toBe(true);
  });

  it('a failed call caches the samples that did arrive', async () => {
    const flaky = await startScriptedModelServer({ rules: [{ match: 'x', respond: (_r, i) => (i === 2 ? { status: 400 } : `ok ${i}`) }] });
    try {
      const model = createOllamaChatModel({ model: 'm', baseURL: flaky.url }, { cacheDir, concurrency: 1 });
      await expect(model.chat({ messages: [{ role: 'user', content: 'x' }], n: 3, temperature: 1 })).rejects.toMatchObject({ kind: 'http', status: 400 });
      const entries = await readdir(path.join(cacheDir, 'llm'), { recursive: true });
      expect(entries.filter((e) => /\/\d+\.json$/.test(e))).toHaveLength(2);
    } finally {
      await flaky.stop();
    }
  });
});
