import { describe, expect, it } from 'vitest';
import type { CodeChunk, Definition } from '../../src/parsing/types.ts';
import { fileScoresFromChunks, retrieveFiles, type ChunkHit, type FileHit, type RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import { defaultQueries, externalQuery, rawIssueQuery, structuralQuery } from '../../localizer/retrieval/query.ts';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { RepoPathMatcher } from '../../localizer/retrieval/path-match.ts';

/**
 * A tiny index with scripted search answers: the retriever's job is the aggregation and fusion, so its
 * tests control exactly what each search returns.
 */
function chunk(path: string, startLine: number, endLine: number, symbol?: string): CodeChunk {
  return { path, startLine, endLine, text: `${path}\n...`, kind: 'function_definition', ...(symbol ? { symbol } : {}) };
}

class ScriptedIndex implements RetrievalIndex {
  calls: string[] = [];
  constructor(
    readonly filePaths: string[],
    private readonly dense: (text: string) => ChunkHit[],
    private readonly chunkBm25: (text: string) => ChunkHit[],
    private readonly fileBm25: (text: string) => FileHit[],
    private readonly defs: Definition[],
  ) {}
  async searchDense(text: string, k: number): Promise<ChunkHit[]> {
    this.calls.push(`dense:${k}`);
    return this.dense(text).slice(0, k);
  }
  async searchChunksBm25(text: string, k: number): Promise<ChunkHit[]> {
    this.calls.push(`chunkBm25:${k}`);
    return this.chunkBm25(text).slice(0, k);
  }
  async searchFilesBm25(text: string, k: number): Promise<FileHit[]> {
    this.calls.push(`fileBm25:${k}`);
    return this.fileBm25(text).slice(0, k);
  }
  definitionsOf(name: string): readonly Definition[] {
    return this.defs.filter((d) => d.name === name);
  }
}

const FILES = ['pkg/a.py', 'pkg/b.py', 'pkg/c.py', 'pkg/sub/models.py', 'other/models.py'];
const def = (path: string, qualifiedName: string, kind: Definition['kind'] = 'function'): Definition => ({
  path,
  name: qualifiedName.split('.').at(-1)!,
  qualifiedName,
  kind,
  startLine: 1,
  endLine: 5,
});

describe('retrieveFiles', () => {
  it('scores a file by its best chunk, fuses channels with weights, and keeps evidence', async () => {
    const index = new ScriptedIndex(
      FILES,
      () => [
        { chunk: chunk('pkg/a.py', 1, 10, 'f'), score: 0.9 },
        { chunk: chunk('pkg/b.py', 1, 10), score: 0.8 },
        { chunk: chunk('pkg/b.py', 20, 30), score: 0.85 }, // b's best chunk, not the sum
        { chunk: chunk('pkg/a.py', 40, 50), score: 0.1 },
      ],
      () => [{ chunk: chunk('pkg/b.py', 20, 30), score: 4 }],
      () => [
        { path: 'pkg/c.py', score: 10 },
        { path: 'pkg/b.py', score: 5 },
      ],
      [],
    );
    const result = await retrieveFiles(index, [rawIssueQuery('anything')], { weights: { dense: 1, chunkBm25: 1, fileBm25: 1 }, chunkAggregation: { topN: 1 } });
    // a: 1 (dense); b: 0.85/0.9 + 1 + 0.5; c: 1 (fileBm25)
    expect(result.ranking.map((r) => r.path)).toEqual(['pkg/b.py', 'pkg/a.py', 'pkg/c.py']);
    expect(result.ranking[0].score).toBeCloseTo(0.85 / 0.9 + 1 + 0.5, 12);
    expect(result.ranking[0].channels).toEqual({ 'raw/dense': 0.9444, 'raw/chunkBm25': 1, 'raw/fileBm25': 0.5 });
    expect(result.ranking[0].chunks[0]).toMatchObject({ path: 'pkg/b.py', startLine: 20, endLine: 30, query: 'raw' });
    expect(result.ranking[1].chunks.map((c) => c.startLine)).toEqual([1, 40]);
    expect(result.ranking[1].chunks[0].symbol).toBe('f');
    expect(result.pool).toEqual(['pkg/b.py', 'pkg/a.py', 'pkg/c.py']);
  });

  it('top-n chunk aggregation adds damped further chunks', () => {
    const scores = fileScoresFromChunks(
      [
        { chunk: chunk('x.py', 1, 2), score: 0.8 },
        { chunk: chunk('x.py', 3, 4), score: 0.6 },
        { chunk: chunk('x.py', 5, 6), score: 0.4 },
        { chunk: chunk('y.py', 1, 2), score: 0.9 },
      ],
      2,
      0.5,
    );
    expect(scores.get('x.py')).toBeCloseTo(0.8 + 0.3, 12);
    expect(scores.get('y.py')).toBeCloseTo(0.9, 12);
    expect(
      fileScoresFromChunks([
        { chunk: chunk('x.py', 1, 2), score: 0.8 },
        { chunk: chunk('x.py', 3, 4), score: 0.6 },
      ]).get('x.py'),
    ).toBe(0.8);
  });

  it('structural signals boost defining files (spread over many definers) and traceback files', async () => {
    const issue = [
      'Calling `Widget.render` fails:',
      '```',
      'Traceback (most recent call last):',
      '  File "/venv/lib/site-packages/pkg/b.py", line 3, in render',
      '  File "/venv/lib/site-packages/pkg/c.py", line 9, in helper',
      'ValueError: boom',
      '```',
    ].join('\n');
    const index = new ScriptedIndex(
      FILES,
      () => [],
      () => [],
      (text) => (text.startsWith('Calling') ? [{ path: 'pkg/a.py', score: 3 }] : []),
      [def('pkg/a.py', 'Widget.render', 'method'), def('pkg/b.py', 'Other.render', 'method'), def('pkg/c.py', 'helper')],
    );
    const result = await retrieveFiles(index, defaultQueries(issue), { weights: { dense: 0, chunkBm25: 0, paths: 1, definitions: 1 } });
    const byPath = Object.fromEntries(result.ranking.map((r) => [r.path, r]));
    // the innermost repository frame (c.py) leads the path channel; b.py, one frame out, gets half
    expect(byPath['pkg/c.py'].pathSignals[0]).toMatchObject({ signal: 'frame', weight: 1 });
    expect(byPath['pkg/b.py'].pathSignals[0]).toMatchObject({ signal: 'frame', weight: 0.5 });
    // "render" is defined in two files: each gets half; Widget.render adds the qualified match to a.py only
    expect(byPath['pkg/a.py'].definitions.map((d) => d.qualifiedName)).toEqual(['Widget.render']);
    expect(byPath['pkg/a.py'].definitions[0].weight).toBeCloseTo(0.5 + 1, 12);
    expect(result.ranking[0].path).toBe('pkg/a.py');
    // the issue's first line is its title: a third query (text channels only)
    expect(result.perQuery.map((q) => q.label)).toEqual(['raw', 'structural', 'title']);
    // the structural query alone has no BM25 hit for a.py: its own ranking leads with the traceback file
    expect(result.perQuery[1].files.map((f) => f.path)).toEqual(['pkg/c.py', 'pkg/a.py', 'pkg/b.py']);
  });

  it('RRF fusion and pool cap are settings', async () => {
    const index = new ScriptedIndex(
      FILES,
      () => [],
      () => [],
      () => FILES.map((p, i) => ({ path: p, score: 10 - i })),
      [],
    );
    const result = await retrieveFiles(index, [rawIssueQuery('x'), externalQuery('T1', 'y')], { fusion: 'rrf', poolCap: 3, poolPerQuery: 2 });
    expect(result.ranking.map((r) => r.path)).toEqual(FILES);
    expect(result.ranking[0].score).toBeCloseTo(2 / 61, 12);
    expect(result.pool).toEqual(['pkg/a.py', 'pkg/b.py']);
    await expect(retrieveFiles(index, [rawIssueQuery('x')], { poolCap: 0 })).rejects.toThrow(/poolCap/);
  });

  it('replaying a recording gives the live result', async () => {
    const issue = 'QuerySet `bulk_create` in pkg/sub/models.py breaks';
    const live = new ScriptedIndex(
      FILES,
      (t) => [{ chunk: chunk('pkg/b.py', 1, 2), score: t.length / 100 }],
      () => [{ chunk: chunk('pkg/c.py', 3, 4), score: 2 }],
      (t) => (t.endsWith('breaks') ? [{ path: 'pkg/a.py', score: 1 }] : []),
      [def('pkg/sub/models.py', 'QuerySet.bulk_create', 'method')],
    );
    const recording = new RecordingIndex(live, { chunk: 300, file: 200 });
    const queries = [rawIssueQuery(issue), structuralQuery(issue)];
    // every text channel on, chunk BM25 too (off by default)
    const texts = { weights: { dense: 0.5, chunkBm25: 0.5 } };
    const a = await retrieveFiles(recording, queries, texts);
    await retrieveFiles(recording, queries, { ...texts, fusion: 'rrf' });
    expect(live.calls.length).toBe(6); // memoized: the second run asked nothing new
    const replayed = await retrieveFiles(new ReplayIndex(JSON.parse(JSON.stringify(recording.recording()))), queries, texts);
    expect(replayed.ranking.map((r) => [r.path, r.score])).toEqual(a.ranking.map((r) => [r.path, r.score]));
    expect(a.ranking[0].path).toBe('pkg/sub/models.py');
  });

  it('records and replays names every object inherits (`constructor`, `toString`)', async () => {
    // a JavaScript issue names them; the recording once skipped them and the replay found Object's own members
    const issue = 'The `constructor` of `Widget` calls `toString` twice';
    const live = new ScriptedIndex(
      FILES,
      () => [],
      () => [],
      () => [],
      [def('pkg/a.py', 'Widget.constructor', 'method'), def('pkg/b.py', 'toString')],
    );
    const recording = new RecordingIndex(live, { chunk: 300, file: 200 });
    const queries = [rawIssueQuery(issue), structuralQuery(issue)];
    const a = await retrieveFiles(recording, queries);
    const replayed = await retrieveFiles(new ReplayIndex(JSON.parse(JSON.stringify(recording.recording()))), queries);
    expect(replayed.ranking.map((r) => [r.path, r.score])).toEqual(a.ranking.map((r) => [r.path, r.score]));
    expect(a.ranking.map((r) => r.path)).toContain('pkg/a.py');
  });
});

describe('RepoPathMatcher', () => {
  const m = new RepoPathMatcher(['src/pkg/mod.py', 'pkg2/mod.py', 'pkg/__init__.py', 'pkg/sub/__init__.py', 'django/db/models/fields/__init__.py']);
  it('matches by longest common suffix; a lone file name matches all of that name', () => {
    expect(m.match('/home/u/site-packages/pkg/mod.py')).toEqual(['src/pkg/mod.py']);
    expect(m.match('mod.py')).toEqual(['src/pkg/mod.py', 'pkg2/mod.py']);
    expect(m.match('myproject/mod.py')).toEqual([]); // only the file name agrees
  });
  it('maps dotted modules to modules or packages, dropping attribute tails', () => {
    expect(m.matchModule('pkg.mod')).toEqual(['src/pkg/mod.py']);
    expect(m.matchModule('pkg.sub.Thing')).toEqual(['pkg/sub/__init__.py']);
    expect(m.matchModule('django.db.models.fields.Field')).toEqual(['django/db/models/fields/__init__.py']);
    expect(m.matchModule('r.text')).toEqual([]);
  });
});
