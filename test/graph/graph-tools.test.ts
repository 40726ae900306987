/**
 * The graph tools in LocAgent's formats: TraverseGraph's indented tree (direction, hops, type filters,
 * `-by` for upstream edges, repeated nodes not expanded, tests left out), entity lookup by name, and
 * RetrieveEntity's numbered content.
 */
import { describe, expect, it } from 'vitest';
import { buildCodeGraph } from '../../src/index/graph/build.ts';
import { entityContent, EntityIndex } from '../../src/index/graph/entities.ts';
import { fileFacts } from '../../src/index/graph/file-facts.ts';
import { traverseTree } from '../../src/index/graph/traverse.ts';

const files: Record<string, string> = {
  'app/core.py': [
    'from app.util import helper',
    '',
    'class Engine:',
    '    def run(self):',
    '        return helper()',
    '',
    'def start():',
    '    return Engine().run()',
    '',
  ].join('\n'),
  'app/util.py': 'def helper():\n    return 1\n',
  'tests/test_core.py': 'from app.core import start\n\ndef test_start():\n    start()\n',
};
const { graph } = buildCodeGraph(Object.entries(files).map(([p, s]) => fileFacts(p, s)));

describe('TraverseGraph', () => {
  it('prints a downstream tree with edge types, two hops by default', () => {
    expect(traverseTree(graph, 'app/core.py')).toBe(
      [
        'app/core.py',
        '├── contains ── app/core.py:Engine',
        '│               └── contains ── app/core.py:Engine.run',
        '├── contains ── app/core.py:start',
        '│               ├── invokes ── app/core.py:Engine',
        '│               └── invokes ── app/core.py:Engine.run',
        '└── imports ── app/util.py',
        '               └── contains ── app/util.py:helper',
      ].join('\n'),
    );
  });

  it('goes upstream with `-by` labels and leaves test files out; filters by edge and node type', () => {
    expect(traverseTree(graph, 'app/util.py:helper', { direction: 'upstream', hops: 3, edgeTypes: ['invokes'] })).toBe(
      ['app/util.py:helper', '└── invokes-by ── app/core.py:Engine.run', '                  └── invokes-by ── app/core.py:start'].join('\n'),
    );
    expect(traverseTree(graph, 'app/core.py:start', { direction: 'both', hops: 1, nodeTypes: ['class'] })).toBe(
      ['app/core.py:start', '└── invokes ── app/core.py:Engine'].join('\n'),
    );
    expect(traverseTree(graph, 'no/such.py')).toBe('');
  });
});

describe('entity lookup and content', () => {
  const index = new EntityIndex(graph);
  it('finds entities by id, by name and ignoring case; test files are not found by name', () => {
    expect(index.findEntities('app/core.py:Engine.run').map((n) => n.id)).toEqual(['app/core.py:Engine.run']);
    expect(index.findEntities('run').map((n) => n.id)).toEqual(['app/core.py:Engine.run']);
    expect(index.findEntities('engine').map((n) => n.id)).toEqual(['app/core.py:Engine']);
    expect(index.findEntities('util').map((n) => n.id)).toEqual(['app/util.py']);
    expect(index.findEntities('test_start')).toEqual([]);
  });
  it('shows the entity lines numbered', () => {
    expect(entityContent(graph.node('app/core.py:Engine')!, files['app/core.py']!)).toBe(
      '```\n3 | class Engine:\n4 |     def run(self):\n5 |         return helper()\n```',
    );
    expect(entityContent(graph.node('app')!, '')).toBeUndefined();
  });
});
