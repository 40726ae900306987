import { createDefaultFileParser } from '../../src/index/default-parser.ts';
/**
 * buildRepoIndex on two commits of a small in-memory repository, with the real tree-sitter parser and a
 * real Chroma server: filtering, chunks, definitions, BM25, dense search restricted to the commit, and
 * reuse (the second commit embeds only chunks whose text changed; a new process embeds nothing).
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Embedder } from '../../src/embedding/types.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { startChromaServer, type ChromaServer } from '../../src/vectorstore/chroma-server.ts';
import { ChromaVectorStore } from '../../src/vectorstore/chroma.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import { collectionNameFor } from '../../src/index/channels/dense.ts';
import { IndexMemo } from '../../src/index/index-memo.ts';
import type { RepoIndex } from '../../src/index/types.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

class CountingEmbedder implements Embedder {
  readonly inner = new LexicalEmbedder({ dims: 256 });
  readonly id = this.inner.id;
  embedded: string[] = [];
  async embedDocuments(texts: readonly string[]): Promise<number[][]> {
    this.embedded.push(...texts);
    return this.inner.embedDocuments(texts);
  }
  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }
}

const bigFunction = (name: string, n: number): string =>
  `def ${name}(value):\n` + Array.from({ length: n }, (_, i) => `    value = value + ${i}  # step ${name} ${i}\n`).join('') + '    return value\n';

const models = `"""Models."""
import itertools


class QuerySet:
    """A lazy database lookup."""

    def __init__(self, model):
        self.model = model

    def bulk_create(self, objs, batch_size=None):
        if batch_size is not None and batch_size <= 0:
            raise ValueError("batch_size must be positive")
        return [self.model(o) for o in objs]

    @property
    def ordered(self):
        return False


${bigFunction('accumulate_models', 60)}`;

const utilsA = `import re


def slugify(value):
    value = re.sub(r"[^\\w\\s-]", "", value).strip().lower()
    return re.sub(r"[-\\s]+", "-", value)


${bigFunction('pad_numbers', 60)}`;

const utilsB =
  utilsA.replace('def slugify(value):', 'def slugify(value, allow_unicode=False):') +
  `

def camel_case_to_spaces(value):
    return re.sub(r"(?<=[a-z])([A-Z])", r" \\1", value).lower()
`;

const commitA = {
  'pkg/__init__.py': 'from .models import QuerySet\n',
  'pkg/models.py': models,
  'pkg/utils.py': utilsA,
  'tests/test_models.py': 'from pkg.models import QuerySet\n\ndef test_bulk_create():\n    assert QuerySet(int).bulk_create([1]) == [1]\n',
  'pkg/test_utils.py': 'def test_slugify():\n    pass\n',
  'README.md': '# pkg\nbulk_create docs\n',
};
const commitB = {
  ...commitA,
  'pkg/utils.py': utilsB,
  'pkg/forms.py':
    'class ModelFormMetaclass(type):\n    """Builds form fields from a model."""\n\n    def __new__(mcs, name, bases, attrs):\n        return super().__new__(mcs, name, bases, attrs)\n',
};

let server: ChromaServer;
let store: ChromaVectorStore;
let cacheDir = '';
const embedder = new CountingEmbedder();
const memo = new IndexMemo();
let indexA: RepoIndex;
let indexB: RepoIndex;
let embeddedForA: string[] = [];
let embeddedForB: string[] = [];

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-index-'));
  server = await startChromaServer({ dataDir: path.join(cacheDir, 'chroma') });
  store = new ChromaVectorStore({ url: server.url });
  indexA = await buildRepoIndex(new MemorySnapshot('acme/pkg', 'a'.repeat(40), commitA), { embedder, vectorStore: store, cacheDir, memo });
  embeddedForA = embedder.embedded;
  embedder.embedded = [];
  indexB = await buildRepoIndex(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), { embedder, vectorStore: store, cacheDir, memo });
  embeddedForB = embedder.embedded;
  embedder.embedded = [];
});

afterAll(async () => {
  await server?.stop();
});

describe('repo index', () => {
  it('indexes Python sources without tests', () => {
    expect(indexA.filePaths).toEqual(['pkg/__init__.py', 'pkg/models.py', 'pkg/utils.py']);
    expect(indexB.filePaths).toEqual(['pkg/__init__.py', 'pkg/forms.py', 'pkg/models.py', 'pkg/utils.py']);
    expect(indexA.hasFile('tests/test_models.py')).toBe(false);
  });

  it('keeps the chunks of each file, path-augmented and line-ordered', () => {
    const chunks = indexA.chunksOfFile('pkg/models.py');
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.text.split('\n')[0]).toContain('pkg/models.py');
      expect(c.blob).toBe(indexA.files.find((f) => f.path === 'pkg/models.py')!.blob);
    }
    for (let i = 1; i < chunks.length; i++) expect(chunks[i].startLine).toBeGreaterThan(chunks[i - 1].endLine);
    expect(new Set(indexA.chunks.map((c) => c.id)).size).toBe(indexA.chunks.length);
    expect(indexA.chunksOfFile('nope.py')).toEqual([]);
  });

  it('answers which files define a name', () => {
    const defs = indexA.definitionsOf('bulk_create');
    expect(defs).toHaveLength(1);
    expect(defs[0]).toMatchObject({ path: 'pkg/models.py', qualifiedName: 'QuerySet.bulk_create', kind: 'method', startLine: 11 });
    expect(indexA.definitionsByQualifiedName('QuerySet.ordered')[0].startLine).toBe(16); // decorator included
    expect(indexA.definingFileCount('slugify')).toBe(1);
    expect(indexA.definitionsOf('camel_case_to_spaces')).toEqual([]);
    expect(indexB.definitionsOf('camel_case_to_spaces')[0].path).toBe('pkg/utils.py');
    expect(indexB.definitionsInFile('pkg/forms.py').map((d) => d.qualifiedName)).toEqual(['ModelFormMetaclass', 'ModelFormMetaclass.__new__']);
  });

  it('ranks files and chunks with BM25', async () => {
    const files = await indexA.searchFilesBm25('slugify strips non-word characters', 10);
    expect(files[0].path).toBe('pkg/utils.py');
    const chunks = await indexA.searchChunksBm25('QuerySet.bulk_create batch_size ValueError', 3);
    expect(chunks[0].chunk.path).toBe('pkg/models.py');
    expect(chunks[0].chunk.text).toContain('def bulk_create');
    expect(chunks[0].score).toBeGreaterThan(chunks[chunks.length - 1].score - 1e-9);
  });

  it('searches dense vectors only among the commit’s own chunks', async () => {
    const query = 'ModelFormMetaclass builds form fields from a model';
    const hitsA = await indexA.searchDense(query, 50);
    expect(hitsA.length).toBe(indexA.chunks.length);
    expect(hitsA.some((h) => h.chunk.path === 'pkg/forms.py')).toBe(false);
    const idsA = new Set(indexA.chunks.map((c) => c.id));
    expect(hitsA.every((h) => idsA.has(h.chunk.id))).toBe(true);
    const hitsB = await indexB.searchDense(query, 3);
    expect(hitsB[0].chunk.path).toBe('pkg/forms.py');
    for (let i = 1; i < hitsB.length; i++) expect(hitsB[i].score).toBeLessThanOrEqual(hitsB[i - 1].score + 1e-6);
    // the slugify chunk changed between the commits: each commit sees its own version
    const a = (await indexA.searchDense('slugify value', 1))[0].chunk;
    const b = (await indexB.searchDense('slugify value', 1))[0].chunk;
    expect(a.text).not.toContain('allow_unicode');
    expect(b.text).toContain('allow_unicode');
  });

  it('gives the same dense results with the over-fetch strategy', async () => {
    const over = await buildRepoIndex(new MemorySnapshot('acme/pkg', 'a'.repeat(40), commitA), {
      embedder,
      vectorStore: store,
      cacheDir,
      memo,
      denseFilter: 'overfetch',
    });
    const q = 'accumulate models value step';
    expect((await over.searchDense(q, 5)).map((h) => h.chunk.id)).toEqual((await indexA.searchDense(q, 5)).map((h) => h.chunk.id));
  });

  it('embeds each chunk text once: the second commit only what changed', () => {
    expect(indexA.timings.cold).toBe(true);
    expect(indexA.timings.filesParsed).toBe(3);
    expect(indexA.timings.filesRestored).toBe(0);
    expect(embeddedForA.length).toBe(new Set(indexA.chunks.map((c) => c.text)).size);
    const textsA = new Set(indexA.chunks.map((c) => c.text));
    const changed = [...new Set(indexB.chunks.map((c) => c.text))].filter((t) => !textsA.has(t));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(indexB.chunks.length);
    expect([...embeddedForB].sort()).toEqual(changed.sort());
    expect(indexB.timings.cold).toBe(false);
    expect(indexB.timings.filesReused).toBe(2); // __init__.py and models.py
    expect(indexB.timings.filesParsed).toBe(2); // utils.py changed, forms.py new
    expect(indexB.timings.textsEmbedded).toBe(changed.length);
  });

  it('reuses stored vectors and the on-disk embedding cache in a new process', async () => {
    const fresh = new CountingEmbedder();
    const again = await buildRepoIndex(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), {
      embedder: fresh,
      vectorStore: store,
      cacheDir,
      memo: new IndexMemo(),
    });
    expect(fresh.embedded).toEqual([]);
    expect(again.timings.chunksUpserted).toBe(0);
    // parsed files come from the on-disk record store, with identical chunks and definitions
    expect(again.timings.filesParsed).toBe(0);
    expect(again.timings.filesRestored).toBe(4);
    expect(again.chunks).toEqual(indexB.chunks);
    expect(again.definitionsInFile('pkg/models.py')).toEqual(indexB.definitionsInFile('pkg/models.py'));
    expect(again.chunks.map((c) => c.id)).toEqual(indexB.chunks.map((c) => c.id));

    // vector store emptied: vectors come back from the persisted embedding cache, not the embedder
    await store.deleteCollection(collectionNameFor('acme/pkg', fresh.id, (await createDefaultFileParser()).id));
    const rebuilt = await buildRepoIndex(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), {
      embedder: fresh,
      vectorStore: store,
      cacheDir,
      memo: new IndexMemo(),
      persistEmbeddings: true,
    });
    expect(rebuilt.timings.chunksUpserted).toBe(rebuilt.chunks.length);
    const reembedded = fresh.embedded.length;
    expect(reembedded).toBe(new Set(rebuilt.chunks.map((c) => c.text)).size);
    const third = new CountingEmbedder();
    await store.deleteCollection(collectionNameFor('acme/pkg', third.id, 'tree-sitter-chunks:v1:1500'));
    await buildRepoIndex(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), {
      embedder: third,
      vectorStore: store,
      cacheDir,
      memo: new IndexMemo(),
      persistEmbeddings: true,
    });
    expect(third.embedded).toEqual([]);
  });

  it('keeps a file the parser rejects, as line windows', async () => {
    const failing = {
      id: 'failing:v1',
      parse(p: string): never {
        throw new Error(`cannot parse ${p}`);
      },
    };
    const idx = await buildRepoIndex(new MemorySnapshot('acme/broken', 'c'.repeat(40), { 'm.py': 'alpha = 1\nbeta = 2\n' }), {
      embedder,
      vectorStore: store,
      cacheDir,
      memo,
      parser: failing,
    });
    expect(idx.files[0].parseError).toBe('cannot parse m.py');
    expect(idx.chunks).toHaveLength(1);
    expect(idx.chunks[0]).toMatchObject({ startLine: 1, endLine: 2, kind: 'lines' });
    expect((await idx.searchFilesBm25('beta', 5)).map((h) => h.path)).toEqual(['m.py']);
  });
});

describe('vectors named by their bytes (the lexical embedder)', () => {
  it('stores a reformatted chunk’s vector once, and searches find the new commit’s own chunks', async () => {
    const lexical = new LexicalEmbedder({ dims: 256 });
    const vmemo = new IndexMemo();
    // the same code laid out differently: quotes, spacing inside calls, a blank line (which shifts every
    // later chunk by a line). A layout change that moves where a long function is split would change
    // those chunks' token bags, and their vectors would be stored anew.
    const reformatted = {
      ...commitA,
      'pkg/utils.py': utilsA.replace(/"/g, "'").replace('.strip().lower()', '.strip( ).lower( )').replace('import re\n', 'import re\n\n'),
    };
    const first = await buildRepoIndex(new MemorySnapshot('acme/fmt', 'a'.repeat(40), commitA), {
      embedder: lexical,
      vectorStore: store,
      cacheDir,
      memo: vmemo,
    });
    expect(first.timings.chunksUpserted).toBe(new Set(first.chunks.map((c) => c.id)).size);
    const second = await buildRepoIndex(new MemorySnapshot('acme/fmt', 'c'.repeat(40), reformatted), {
      embedder: lexical,
      vectorStore: store,
      cacheDir,
      memo: vmemo,
    });
    // the chunks whose text changed are embedded, but their vectors are all stored already
    const firstTexts = new Set(first.chunks.map((c) => c.text));
    const changed = second.chunksOfFile('pkg/utils.py').filter((c) => !firstTexts.has(c.text));
    expect(changed.map((c) => [c.startLine, c.endLine])).toEqual([[1, 7]]);
    expect(second.timings.textsEmbedded).toBe(1);
    expect(second.timings.chunksUpserted).toBe(0);
    const hit = (await second.searchDense('slugify strip lower', 1))[0]!.chunk;
    expect(hit.path).toBe('pkg/utils.py');
    expect(hit.text).toContain('.strip( ).lower( )');
    expect(hit.startLine).toBe(1);
    const padded = (await second.searchDense('pad numbers value step', 1))[0]!.chunk;
    expect(padded.startLine).toBe(first.chunksOfFile('pkg/utils.py').find((c) => c.text === padded.text)!.startLine + 1);
    // and the first commit still finds its own version
    expect((await first.searchDense('slugify strip lower', 1))[0]!.chunk.text).toContain('.strip().lower()');
    // a new process (empty memo) embeds again but stores nothing: the vectors are found by name
    const third = await buildRepoIndex(new MemorySnapshot('acme/fmt', 'c'.repeat(40), reformatted), {
      embedder: lexical,
      vectorStore: store,
      cacheDir,
      memo: new IndexMemo(),
    });
    expect(third.timings.chunksUpserted).toBe(0);
    expect((await third.searchDense('slugify strip lower', 1))[0]!.chunk.text).toContain('.strip( ).lower( )');
  });

  it('keeps the two namings in separate collections', () => {
    expect(collectionNameFor('acme/fmt', 'lexical:256', 'p')).not.toBe(collectionNameFor('acme/fmt', 'lexical:256', 'p', 'vector'));
  });
});
