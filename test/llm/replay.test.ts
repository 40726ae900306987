/**
 * Finding a recording's model identity: a run folder's manifest (through the transport the run built), a
 * cache with recording.json, a cache of one model, and the refusals (two models, no model, nothing there).
 * The end-to-end replay of a whole run is in test/e2e/cascade.test.ts and test/e2e/demo.test.ts.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import { openRecording } from '../../src/llm/replay.ts';

const noTransport = () => {
  throw new Error('not a run folder');
};

async function cacheWith(requests: Array<{ provider: string; baseURL: string; model: string }>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-replay-'));
  for (const [i, r] of requests.entries()) {
    const key = `${String(i).padStart(2, '0')}key${i}`;
    await mkdir(path.join(dir, 'llm', key.slice(0, 2), key), { recursive: true });
    await writeFile(path.join(dir, 'llm', key.slice(0, 2), key, 'request.json'), JSON.stringify({ ...r, messages: [], options: {} }));
  }
  return dir;
}

describe('replay recordings', () => {
  it('a cache of one model is replayed as that model; two models need recording.json', async () => {
    const one = await cacheWith([{ provider: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm' }]);
    expect(openRecording(one, noTransport)).toMatchObject({ provider: 'openai', model: 'm', cacheDir: one });
    const two = await cacheWith([
      { provider: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm' },
      { provider: 'ollama', baseURL: 'http://127.0.0.1:11434', model: 'n' },
    ]);
    expect(() => openRecording(two, noTransport)).toThrow(/more than one model .* write recording\.json/);
    await writeFile(path.join(two, 'recording.json'), JSON.stringify({ provider: 'ollama', baseURL: 'http://127.0.0.1:11434', model: 'n' }));
    expect(openRecording(two, noTransport)).toMatchObject({ provider: 'ollama', model: 'n' });
    const empty = await cacheWith([]);
    expect(() => openRecording(empty, noTransport)).toThrow(/holds no recorded answers/);
    expect(() => openRecording('/nonexistent/locfix-recording', noTransport)).toThrow(/does not exist/);
  });

  it("a run folder is replayed as the transport its manifest's model config builds", async () => {
    const run = await mkdtemp(path.join(os.tmpdir(), 'locfix-replay-run-'));
    await writeFile(
      path.join(run, 'manifest.json'),
      JSON.stringify({ config: { llm: { model: 'ollama:qwen@http://10.1.2.3:11434', numCtx: 8192 }, cacheDir: '/c' } }),
    );
    const model = createChatModel(`replay:${run}`);
    expect(model.id).toBe('ollama:qwen');
    await writeFile(path.join(run, 'manifest.json'), JSON.stringify({ config: { cacheDir: '/c' } }));
    expect(() => createChatModel(`replay:${run}`)).toThrow(/used no model/);
  });
});
