/**
 * The pure parts of the Agentless localizer and the hierarchy: tree rendering, combination order, answer
 * parsing tolerance, and resolution of every location kind to exact line ranges.
 */
import { describe, expect, it } from 'vitest';
import { agentlessTree } from '../../localizer/agentless/tree.ts';
import { combineFileLists } from '../../localizer/agentless/combine.ts';
import { parseFileList, parseIrrelevantFolders, splitByIrrelevant } from '../../localizer/agentless/answers.ts';
import { agentlessChunks, agentlessChunkHeader } from '../../localizer/agentless/retrieval.ts';
import { extractCodeBlocks, mergeRanges, parseLocations, resolveLocations } from '../../localizer/hierarchy/locations.ts';
import { numberedContext, sampleToLocationSet } from '../../localizer/hierarchy/edit-locations.ts';
import { sourceView } from '../../localizer/hierarchy/files.ts';
import { toCodeElements } from '../../localizer/hierarchy/related-elements.ts';
import { countTokens } from '../../src/llm/tokens.ts';

describe('agentless tree', () => {
  const paths = [
    'setup.py',
    'README.md',
    'pkg/__init__.py',
    'pkg/core.py',
    'pkg/data.json',
    'pkg/sub/deep.py',
    'pkg/tests/test_core.py',
    'pkg/testing.py',
    'pkg/onlytests/test_a.py',
    'docs/conf.py',
    'docs/index.rst',
    'assets/logo.png',
    '.github/ci.py',
    'tests/test_x.py',
  ];

  it('renders Python files only, tests excluded, 4-space indentation, folders with /', () => {
    const tree = agentlessTree(paths);
    expect(tree.text).toBe(
      [
        'setup.py',
        'docs/',
        '    conf.py',
        'pkg/',
        '    __init__.py',
        '    core.py',
        // a folder that held only test files stays, empty (non-Python filtering runs first in Agentless)
        '    onlytests/',
        '    sub/',
        '        deep.py',
      ].join('\n'),
    );
    // dot-folders are not shown but their files still count as files of the repository (as in Agentless)
    expect(tree.files).toEqual(['setup.py', '.github/ci.py', 'docs/conf.py', 'pkg/__init__.py', 'pkg/core.py', 'pkg/sub/deep.py']);
  });

  it("reproduces Agentless' root-folder quirk on request", () => {
    const tree = agentlessTree(['setup.py', 'pkg/a.py', 'other/b.py'], { rootFolder: 'pkg' });
    expect(tree.text).toBe(['pkg/', '    setup.py', '    a.py', 'other/', '    b.py'].join('\n'));
  });
});

describe('combine (Agentless 1.5 combine.py)', () => {
  it('counts the top 3 of each list; ties keep model order, then retrieval order', () => {
    const combined = combineFileLists(['a.py', 'b.py', 'c.py', 'd.py'], ['c.py', 'e.py', 'a.py', 'b.py'], 3);
    expect(combined.map((c) => [c.path, c.count])).toEqual([
      ['a.py', 2],
      ['c.py', 2],
      ['b.py', 1],
      ['e.py', 1],
    ]);
    expect(combined[1]).toMatchObject({ llmRank: 3, retrievalRank: 1 });
  });

  it('works with one list empty', () => {
    expect(combineFileLists([], ['x.py', 'y.py', 'z.py', 'w.py']).map((c) => c.path)).toEqual(['x.py', 'y.py', 'z.py']);
    expect(combineFileLists(['x.py'], []).map((c) => c.path)).toEqual(['x.py']);
  });
});

describe('file-level answers', () => {
  const candidates = ['pkg/core.py', 'pkg/sub/deep.py', 'setup.py'];
  it('keeps exact candidate paths in model order, tolerating markers, numbering, backticks and ./', () => {
    const answer = 'Here you go:\n```\n1. `pkg/sub/deep.py`\n- ./pkg/core.py\n  pkg/core.py\nnot/there.py\nREADME.md\n```';
    expect(parseFileList(answer, candidates)).toEqual({ files: ['pkg/sub/deep.py', 'pkg/core.py'], dropped: ['not/there.py'] });
  });
  it('irrelevant folders: lines ending in / or .py; files under them are left out', () => {
    const folders = parseIrrelevantFolders('```\ndocs/\n  pkg/sub/\nsomething else\nsetup.py\n```');
    expect(folders).toEqual(['docs/', 'pkg/sub/', 'setup.py']);
    expect(splitByIrrelevant(['docs/conf.py', 'pkg/core.py', 'pkg/sub/deep.py', 'setup.py'], folders)).toEqual({
      kept: ['pkg/core.py'],
      filtered: ['docs/conf.py', 'pkg/sub/deep.py', 'setup.py'],
    });
  });
});

describe('agentless retrieval chunks', () => {
  it('whole-line windows of at most 512 tokens behind the metadata header', () => {
    const body = Array.from({ length: 400 }, (_, i) => `value_${i} = compute(${i}, "some text to take tokens")`).join('\n') + '\n';
    const defs = [
      { path: 'a.py', name: 'A', qualifiedName: 'A', kind: 'class' as const, startLine: 1, endLine: 2 },
      { path: 'a.py', name: 'f', qualifiedName: 'f', kind: 'function' as const, startLine: 3, endLine: 4 },
      { path: 'a.py', name: 'm', qualifiedName: 'A.m', kind: 'method' as const, startLine: 2, endLine: 2 },
    ];
    const header = agentlessChunkHeader('a.py', defs);
    expect(header).toBe('Metadata:\n### File Name: a.py\n### Classes: A\n### Functions: f\n-----\nCode:\n');
    const chunks = agentlessChunks('a.py', body, defs);
    expect(chunks.length).toBeGreaterThan(5);
    let next = 1;
    for (const c of chunks) {
      expect(c.text.startsWith(header)).toBe(true);
      expect(countTokens(c.text)).toBeLessThanOrEqual(512 + 2);
      expect(c.startLine).toBe(next);
      next = c.endLine + 1;
    }
    expect(next).toBe(401);
  });
});

const SOURCE = [
  '"""A fixture module."""', // 1
  'import functools', // 2
  '', // 3
  'LIMIT = 10', // 4
  'TABLE = {', // 5
  '    "a": 1,', // 6
  '}', // 7
  'x, y = 1, 2', // 8
  '', // 9
  '', // 10
  'def helper(value):', // 11
  '    return value + LIMIT', // 12
  '', // 13
  '', // 14
  'class Widget:', // 15
  '    """A widget."""', // 16
  '', // 17
  '    def __init__(self, size):', // 18
  '        self.size = size', // 19
  '', // 20
  '    @functools.lru_cache()', // 21
  '    def render(self):', // 22
  '        return helper(self.size)', // 23
  '', // 24
  '    class Inner:', // 25
  '        def render(self):', // 26
  '            return 1', // 27
  '', // 28
  '', // 29
  'class Gadget(Widget):', // 30
  '    def spin(self):', // 31
  '        return 2', // 32
  '', // 33
].join('\n');

describe('location parsing', () => {
  const shown = ['pkg/widgets.py', 'pkg/other.py'];
  it('code blocks: fenced with or without a language, unclosed, or none at all', () => {
    expect(extractCodeBlocks('x\n```\na\nb\n```\ny\n```text\nc\n```')).toEqual(['a\nb', 'c']);
    expect(extractCodeBlocks('intro\n```python\na\nb')).toEqual(['a\nb']);
    expect(extractCodeBlocks('a\nb')).toEqual(['a\nb']);
  });

  it('tolerates indentation, list markers, headers in several spellings, and drops unknown files', () => {
    const answer = [
      'Sure.',
      '```',
      '### pkg/widgets.py',
      '    function: Widget.render',
      '  - class: Gadget',
      'unknown/file.py',
      'function: lost',
      'other.py:',
      '`variable: LIMIT`',
      'Method: spin',
      '```',
    ].join('\n');
    const parsed = parseLocations(answer, shown);
    expect(Object.fromEntries(parsed.byFile)).toEqual({
      'pkg/widgets.py': ['function: Widget.render', 'class: Gadget'],
      'pkg/other.py': ['variable: LIMIT', 'function: spin'],
    });
    expect(parsed.ignored).toEqual(['unknown/file.py', 'function: lost']);
  });

  it('answers without fences parse the same', () => {
    const parsed = parseLocations('pkg/widgets.py\nline: 12\n', shown);
    expect(parsed.byFile.get('pkg/widgets.py')).toEqual(['line: 12']);
    expect(parsed.byFile.get('pkg/other.py')).toEqual([]);
  });
});

describe('location resolution', () => {
  const view = () => sourceView('pkg/widgets.py', SOURCE + '\n');

  it('resolves every kind to exact line ranges', () => {
    const r = resolveLocations(view(), [
      'class: Widget',
      'function: Widget.render',
      'function: helper',
      'function: __init__', // method of the class named just before
      'function: spin', // unique method name in the file
      'variable: LIMIT',
      'variable: TABLE',
      'variable: y',
      'line: 23',
      'line: 5-7',
      'function: Widget.Inner.render',
      'function: Inner.render',
      'class: Widget.Inner',
    ]);
    expect(r.unresolved).toEqual([]);
    expect(r.resolved.map((x) => [x.kind, x.name, x.range.start, x.range.end])).toEqual([
      ['class', 'Widget', 15, 27],
      ['function', 'Widget.render', 21, 23],
      ['function', 'helper', 11, 12],
      ['function', 'Widget.__init__', 18, 19],
      ['function', 'Gadget.spin', 31, 32],
      ['variable', 'LIMIT', 4, 4],
      ['variable', 'TABLE', 5, 7],
      ['variable', 'y', 8, 8],
      ['line', '<line 23>', 23, 23],
      ['line', '<lines 5-7>', 5, 7],
      ['function', 'Widget.Inner.render', 26, 27],
      ['function', 'Widget.Inner.render', 26, 27],
      ['class', 'Widget.Inner', 25, 27],
    ]);
    expect(toCodeElements(r.resolved)).toEqual([
      { path: 'pkg/widgets.py', name: 'Widget' },
      { path: 'pkg/widgets.py', name: 'Widget.render' },
      { path: 'pkg/widgets.py', name: 'helper' },
      { path: 'pkg/widgets.py', name: 'Widget.__init__' },
      { path: 'pkg/widgets.py', name: 'Gadget.spin' },
      { path: 'pkg/widgets.py', name: '<module>' },
      { path: 'pkg/widgets.py', name: 'Widget.Inner.render' },
      { path: 'pkg/widgets.py', name: 'Widget.Inner' },
    ]);
  });

  it('reports unknown names, ambiguous bare names and out-of-range lines instead of guessing', () => {
    const r = resolveLocations(view(), [
      'function: nowhere',
      'class: Missing',
      'function: render',
      'function: Gadget.render',
      'variable: nothing',
      'line: 0',
      'line: 34',
      'line: abc',
    ]);
    expect(r.resolved).toEqual([]);
    expect(r.unresolved.map((u) => u.reason)).toEqual([
      'no function of that name',
      'no class of that name',
      'ambiguous: Widget.render, Widget.Inner.render',
      'no method of that name in that class',
      'no module-level assignment of that name',
      'line out of range (file has 33 lines)',
      'line out of range (file has 33 lines)',
      'no line number',
    ]);
  });
});

describe('line-level context and samples', () => {
  it('numbers lines around each range (±window), merges overlaps, marks omitted code with ...', () => {
    const content = Array.from({ length: 60 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const ctx = numberedContext(
      content,
      [
        { start: 12, end: 13 },
        { start: 20, end: 20 },
        { start: 50, end: 50 },
      ],
      3,
    );
    expect(ctx.intervals).toEqual([
      { start: 9, end: 16 },
      { start: 17, end: 23 },
      { start: 47, end: 53 },
    ]);
    const lines = ctx.text.split('\n');
    expect(lines[0]).toBe('...');
    expect(lines[1]).toBe('9|l9');
    expect(lines).toContain('53|l53');
    expect(lines[lines.length - 1]).toBe('...');
    // an interval starting at the top of the file has no leading ...; overlapping ones merge
    const top = numberedContext(
      content,
      [
        { start: 2, end: 2 },
        { start: 6, end: 6 },
      ],
      3,
    );
    expect(top.intervals).toEqual([{ start: 1, end: 9 }]);
    expect(top.text.split('\n')[0]).toBe('1|l1');
  });

  it('one sample becomes one location set with merged ranges and the element lines kept', () => {
    const source = sourceView('pkg/widgets.py', SOURCE + '\n');
    const { set, sample } = sampleToLocationSet('```\npkg/widgets.py\nfunction: Widget.render\nline: 22\nline: 99\nclass: Gadget\n```', [source]);
    expect(set).toEqual({
      files: [
        {
          path: 'pkg/widgets.py',
          ranges: [
            { start: 21, end: 23 },
            { start: 30, end: 32 },
          ],
          elements: ['function: Widget.render', 'line: 22', 'class: Gadget'],
        },
      ],
    });
    expect(sample.unresolved.map((u) => u.raw)).toEqual(['line: 99']);
    expect(
      mergeRanges([
        { start: 5, end: 6 },
        { start: 7, end: 8 },
      ]),
    ).toEqual([
      { start: 5, end: 6 },
      { start: 7, end: 8 },
    ]);
  });
});
