/**
 * The graph channel on a real code graph: an issue naming `Engine.run` brings in the file of what it
 * calls and the file of its caller (one step along `invokes`), not tests, with the seed's weight spread
 * over those files; with weight 0 (the default) or without a graph nothing changes; a recording replays it.
 */
import { describe, expect, it } from 'vitest';
import { graphScores } from '../../localizer/retrieval/graph-expansion.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';
import { RecordingIndex, ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { retrieveFiles, type RetrievalIndex } from '../../localizer/retrieval/retriever.ts';
import { buildCodeGraph } from '../../src/index/graph/build.ts';
import { fileFacts } from '../../src/index/graph/file-facts.ts';
import { entityNeighbors } from '../../src/index/graph/neighbors.ts';

const files: Record<string, string> = {
  'app/core.py': 'from app.util import helper\n\nclass Engine:\n    def run(self):\n        return helper()\n',
  'app/util.py': 'def helper():\n    return 1\n',
  'app/cli.py': 'from app.core import Engine\n\ndef main():\n    return Engine().run()\n',
  'app/other.py': 'def unrelated():\n    return 2\n',
  'tests/test_core.py': 'from app.core import Engine\n\ndef test_run():\n    Engine().run()\n',
};
const facts = Object.entries(files).map(([p, s]) => fileFacts(p, s));
const { graph } = buildCodeGraph(facts);
const definitions = facts.flatMap((f) => f.definitions);

function index(withGraph: boolean): RetrievalIndex {
  return {
    filePaths: Object.keys(files).filter((p) => !p.startsWith('tests/')),
    searchDense: async () => [],
    searchChunksBm25: async () => [],
    searchFilesBm25: async () => [],
    definitionsOf: (name) => definitions.filter((d) => d.name === name),
    ...(withGraph ? { graphNeighbors: async () => ({ neighborsOf: (id: string) => entityNeighbors(graph, id) }) } : {}),
  };
}

const issue = 'Calling `Engine.run` returns the wrong value.';

describe('the graph channel', () => {
  it('spreads a named entity’s weight over the files one call away, tests left out', () => {
    expect(
      entityNeighbors(graph, 'app/core.py:Engine.run')
        .map((n) => `${n.relation} ${n.id}`)
        .sort(),
    ).toEqual(['invoked-by app/cli.py:main', 'invokes app/util.py:helper']);
    const seed = { path: 'app/core.py', name: 'run', qualifiedName: 'Engine.run', startLine: 4, endLine: 5, weight: 1 };
    const { scores } = graphScores([seed], { neighborsOf: (id) => entityNeighbors(graph, id) }, { definitionSpreadExponent: 1, maxDefiningFiles: 30 });
    expect(Object.fromEntries(scores)).toEqual({ 'app/util.py': 0.5, 'app/cli.py': 0.5 });
  });

  it('ranks the neighbours’ files after the named one, only when its weight is on and a graph is there', async () => {
    const queries = defaultQueries(issue, 'raw+structural');
    // at half the definition boost's weight the named file stays first
    const on = await retrieveFiles(index(true), queries, { weights: { definitions: 1, graph: 0.5 } });
    expect(on.ranking[0]!.path).toBe('app/core.py');
    expect(
      on.ranking
        .slice(1, 3)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['app/cli.py', 'app/util.py']);
    expect(on.ranking.some((f) => f.path === 'app/other.py' || f.path.startsWith('tests/'))).toBe(false);
    // each file the graph brought in says which named entity led there and how
    expect(on.ranking.find((f) => f.path === 'app/util.py')!.graph).toEqual([
      expect.objectContaining({ from: 'app/core.py:Engine.run', to: expect.stringMatching(/^app\/util\.py:/), relation: 'invokes' }),
    ]);
    expect(on.ranking[0]!.graph).toBeUndefined();
    const off = await retrieveFiles(index(true), queries);
    const noGraph = await retrieveFiles(index(false), queries, { weights: { graph: 1 } });
    expect(off.ranking.map((f) => f.path)).toEqual(['app/core.py']);
    expect(noGraph.ranking.map((f) => f.path)).toEqual(['app/core.py']);
  });

  it('is recorded and replayed like the other searches', async () => {
    const queries = defaultQueries(issue, 'raw+structural');
    const recording = new RecordingIndex(index(true), { chunk: 300, file: 200 });
    const live = await retrieveFiles(recording, queries, { weights: { graph: 1 } });
    const replayed = await retrieveFiles(new ReplayIndex(JSON.parse(JSON.stringify(recording.recording()))), queries, { weights: { graph: 1 } });
    expect(replayed.ranking.map((f) => [f.path, f.score])).toEqual(live.ranking.map((f) => [f.path, f.score]));
  });
});
