/**
 * The tree-sitter parser in a worker thread: same id and same chunks/definitions as the in-thread parser,
 * parse errors per file, and an index built with it equal to one built in-thread.
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultFileParser } from '../../src/index/default-parser.ts';
import { createWorkerFileParser, WorkerParserError, type WorkerFileParser } from '../../src/index/worker-parser.ts';
import type { FileParser } from '../../src/index/file-parser.ts';
import { buildRepoIndex, IndexMemo } from '../../src/index/repo-index.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

const FILES: Record<string, string> = {
  'pkg/__init__.py': 'from .core import Engine\n',
  'pkg/core.py': [
    'import functools',
    '',
    '',
    'class Engine:',
    '    """Runs things."""',
    '',
    '    @functools.lru_cache()',
    '    def start(self, speed=1):',
    '        return speed * 2',
    '',
    '    class Part:',
    '        def turn(self):',
    '            return "turn"',
    '',
    '',
    ...Array.from({ length: 120 }, (_, i) => `def helper_${i}(x):\n    return x + ${i}\n`),
  ].join('\n'),
  'pkg/broken.py': 'def oops(:\n    pass\n\nclass Fine:\n    x = 1\n',
};


let inThread: FileParser;
let worker: WorkerFileParser;

beforeAll(async () => {
  inThread = await createDefaultFileParser();
  worker = await createWorkerFileParser();
});

afterAll(async () => {
  await worker?.close();
});

describe('worker file parser', () => {
  it('has the in-thread parser id and returns the same chunks and definitions', async () => {
    expect(worker.id).toBe(inThread.id);
    expect(worker.parallel).toBe(true);
    const all = await Promise.all(Object.entries(FILES).map(([p, text]) => worker.parse(p, text)));
    Object.entries(FILES).forEach(([p, text], i) => expect(all[i]).toEqual(inThread.parse(p, text)));
    expect(all[1].chunks.length).toBeGreaterThan(3);
  });

  it('builds the same index as the in-thread parser', async () => {
    const build = async (parser: FileParser) =>
      buildRepoIndex(new MemorySnapshot('acme/worker', 'c1', FILES), {
        embedder: new LexicalEmbedder({ dims: 64 }),
        vectorStore: new MemoryVectorStore(),
        cacheDir: await mkdtemp(path.join(os.tmpdir(), 'locfix-wp-')),
        parser,
        memo: new IndexMemo(),
        persistParsedFiles: false,
      });
    const a = await build(inThread);
    const b = await build(worker);
    expect(b.timings.filesParsed).toBe(3);
    expect(b.chunks).toEqual(a.chunks);
    expect(b.files).toEqual(a.files);
    expect(b.definitionsOf('turn')).toEqual(a.definitionsOf('turn'));
    expect(await b.searchChunksBm25('helper_7 Engine', 5)).toEqual(await a.searchChunksBm25('helper_7 Engine', 5));
  });

  it('rejects requests after close with a WorkerParserError', async () => {
    const w = await createWorkerFileParser();
    await w.close();
    await expect(w.parse('a.py', 'x = 1\n')).rejects.toBeInstanceOf(WorkerParserError);
  });
});
