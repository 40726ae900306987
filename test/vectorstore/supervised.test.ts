/** The death of the local Chroma server mid-run: restarted on the same folder (bounded), the operation retried. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chromaHeartbeat, startChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { openChromaStore, SupervisedChromaStore } from '../../src/vectorstore/supervised.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-chroma-supervised-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SIGKILLs the server recorded for `cacheDir`, as the OOM killer would, and waits until it is gone. */
async function killServer(stateFile: string): Promise<void> {
  const { pid, port } = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; port: number };
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && (await chromaHeartbeat(`http://127.0.0.1:${port}`, 200)); i++) await new Promise((r) => setTimeout(r, 100));
}

const vec = (i: number) => Array.from({ length: 8 }, (_, j) => (j === i % 8 ? 1 : 0.01));

describe('SupervisedChromaStore', () => {
  it('a server killed between operations is restarted on the same data, and the operation succeeds', { timeout: 120_000 }, async () => {
    const cacheDir = path.join(dir, 'a');
    const restarts: string[] = [];
    const { store, close } = await openChromaStore({ cacheDir, onRestart: (e) => restarts.push(`${e.restart}/${e.maxRestarts}`) });
    try {
      const collection = await store.collection('docs-a');
      await collection.upsert([0, 1, 2].map((i) => ({ id: `r${i}`, embedding: vec(i), metadata: { path: `f${i}.py` } })));
      await killServer(path.join(cacheDir, 'chroma-server.json'));

      // the handle taken before the kill still works: the server is back, with what it had acknowledged
      const hits = await collection.query(vec(1), 2, { includeMetadata: true });
      expect(hits[0]).toMatchObject({ id: 'r1', metadata: { path: 'f1.py' } });
      expect(await collection.count()).toBe(3);
      expect(restarts).toEqual(['1/3']);
      // an error that is not the server's death is not retried, and restarts nothing
      await expect(store.collection('x')).rejects.toThrow(/invalid vector collection name/);
      expect(restarts).toEqual(['1/3']);
    } finally {
      await close();
    }
  });

  it('gives up after maxRestarts with a message naming the folder and the log, and then fails at once', { timeout: 120_000 }, async () => {
    const dataDir = path.join(dir, 'b', 'chroma');
    const stateFile = path.join(dir, 'b', 'chroma-server.json');
    const store = await SupervisedChromaStore.open({ start: () => startChromaServer({ dataDir }), maxRestarts: 1 });
    try {
      const collection = await store.collection('docs-b');
      await collection.upsert([{ id: 'x', embedding: vec(0) }]);
      await killServer(stateFile);
      expect(await collection.count()).toBe(1); // restart 1 of 1
      await killServer(stateFile);
      const err = (await collection.count().catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(
        new RegExp(
          `the local Chroma server for ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} stopped answering 2 times in this run .*not restarting it again\\. See .*chroma-server\\.log`,
        ),
      );
      const started = Date.now();
      await expect(collection.count()).rejects.toBe(err);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      await store.close();
    }
  });
});
