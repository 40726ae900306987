/** The tolerant readers of model answers: JSON extraction and repair, path mapping, scores, rankings, entities, the ReAct protocol. */
import { beforeAll, describe, expect, it } from 'vitest';
import { CandidateMatcher, cleanPath, extractJson, parseEntities, parseRanking, parseScores, repairJson } from '../../localizer/blagent/scoring-parse.ts';
import { outlineOfSkeleton, parseAgentReply } from '../../localizer/blagent/react.ts';
import { blagentSkeleton } from '../../src/parsing/blagent-skeleton.ts';
import { countTokens } from '../../src/llm/tokens.ts';
import { cleanQueryAnswer } from '../../localizer/blagent/queries.ts';
import { finalRanking, fittedSkeleton } from '../../localizer/blagent/index.ts';
import { resolveBlagentOptions } from '../../localizer/blagent/options.ts';

const CANDIDATES = ['django/db/models/query.py', 'django/db/models/sql/query.py', 'django/utils/text.py', 'setup.py'];
const matcher = new CandidateMatcher(CANDIDATES);

describe('extractJson / repairJson', () => {
  it('takes the last fenced block that parses, else the last bare region', () => {
    const text = 'Example: ```json\n{"a.py": 1}\n```\nMine:\n```json\n{"b.py": 2}\n```';
    expect(extractJson(text)).toMatchObject({ ok: true, value: { 'b.py': 2 } });
    expect(extractJson('I think {"x": 1} then [1, 2] final')).toMatchObject({ ok: true, value: [1, 2] });
    expect(extractJson('I think {"x": 1} then [1, 2] final', 'object')).toMatchObject({ ok: true, value: { x: 1 } });
  });
  it('repairs trailing commas, single quotes, comments and Python literals without touching strings', () => {
    expect(JSON.parse(repairJson("{'a.py': 8, 'b': [True, None,],} // done"))).toEqual({ 'a.py': 8, b: [true, null] });
    expect(JSON.parse(repairJson(`{"its": "say \\"hi\\", True", 'k': 'don\\'t'}`))).toEqual({ its: 'say "hi", True', k: "don't" });
    expect(extractJson('```\n{"a": 1,\n "b": 2,\n}\n```')).toMatchObject({ ok: true, value: { a: 1, b: 2 } });
  });
  it('says what is missing', () => {
    expect(extractJson('no json here')).toEqual({ ok: false, reason: 'no JSON value in the answer' });
    expect(extractJson('{broken: [}')).toMatchObject({ ok: false });
  });
});

describe('CandidateMatcher', () => {
  it('maps relative, absolute, repo-prefixed, dotted and decorated paths; refuses ambiguous and foreign ones', () => {
    expect(matcher.resolve('django/utils/text.py')).toBe('django/utils/text.py');
    expect(matcher.resolve('./django/utils/text.py')).toBe('django/utils/text.py');
    expect(matcher.resolve('/testbed/django/utils/text.py')).toBe('django/utils/text.py');
    expect(matcher.resolve('django__django/django/utils/text.py:120')).toBe('django/utils/text.py');
    expect(matcher.resolve('`utils/text.py`')).toBe('django/utils/text.py');
    expect(matcher.resolve('django.utils.text')).toBe('django/utils/text.py');
    expect(matcher.resolve('django\\utils\\text.py')).toBe('django/utils/text.py');
    expect(matcher.resolve('query.py')).toBeUndefined(); // two candidates end with it
    expect(matcher.resolve('sql/query.py')).toBe('django/db/models/sql/query.py');
    expect(matcher.resolve('django/forms/fields.py')).toBeUndefined();
    expect(cleanPath('"a/b.py#L10-20",')).toBe('a/b.py');
  });
});

describe('parseScores', () => {
  it('reads objects, lists of objects and pairs; drops and records foreign paths; clamps', () => {
    const a = parseScores('Final:\n```json\n{"django/utils/text.py": 9, "django/forms/fields.py": 7, "setup.py": "2", }\n```', matcher);
    expect([...a.scores]).toEqual([
      ['django/utils/text.py', 9],
      ['setup.py', 2],
    ]);
    expect(a.dropped).toEqual([{ entry: 'django/forms/fields.py', reason: 'not a candidate' }]);
    const b = parseScores(`[{'file': 'utils/text.py', 'score': 12}, ["setup.py", 1]]`, matcher);
    expect([...b.scores]).toEqual([
      ['django/utils/text.py', 10],
      ['setup.py', 1],
    ]);
    expect(b.dropped[0]!.reason).toMatch(/clamped to 10/);
    expect([...parseScores('{"scores": {"setup.py": "7/10"}}', matcher).scores]).toEqual([['setup.py', 7]]);
  });
  it('throws a message for the retry prompt when nothing usable is there', () => {
    expect(() => parseScores('I would say text.py', matcher)).toThrow(/no JSON/);
    expect(() => parseScores('{"nowhere.py": 5}', matcher)).toThrow(/no scored path is a candidate \(nowhere.py\)/);
    expect(() => parseScores('{"setup.py": "high"}', matcher)).toThrow(/no scored path/);
  });
});

describe('parseRanking', () => {
  it('reads lists and wrapped lists, dedupes, drops foreign paths', () => {
    const r = parseRanking('```json\n["django/utils/text.py", "x.py", "./django/utils/text.py", {"path": "setup.py"}]\n```', matcher);
    expect(r.ranking).toEqual(['django/utils/text.py', 'setup.py']);
    expect(r.dropped).toEqual([{ entry: 'x.py', reason: 'not a candidate' }]);
    expect(parseRanking('{"ranking": ["setup.py"]}', matcher).ranking).toEqual(['setup.py']);
    expect(() => parseRanking('["x.py"]', matcher)).toThrow(/no listed path/);
    expect(() => parseRanking('{"a": 1}', matcher)).toThrow(/JSON list/);
  });
});

describe('parseEntities', () => {
  const defs = (path: string): Set<string> =>
    new Set(path === 'django/utils/text.py' ? ['slugify', 'Truncator', 'Truncator.chars', 'Truncator.words'] : ['setup']);
  it('reads path::Class::method entries, checks them against the file, resolves a unique bare method', () => {
    const e = parseEntities(
      '["django/utils/text.py::Truncator::chars", "utils/text.py::slugify()", "django/utils/text.py::words", "django/utils/text.py::nope", "a.py::f", "django/utils/text.py::Truncator.chars"]',
      matcher,
      defs,
    );
    expect(e.entities).toEqual([
      { path: 'django/utils/text.py', name: 'Truncator.chars' },
      { path: 'django/utils/text.py', name: 'slugify' },
      { path: 'django/utils/text.py', name: 'Truncator.words' },
    ]);
    expect(e.dropped.map((d) => d.reason)).toEqual(['not defined in django/utils/text.py', 'file not shown']);
    expect(parseEntities('{"setup.py": ["setup"]}', matcher, defs).entities).toEqual([{ path: 'setup.py', name: 'setup' }]);
    expect(() => parseEntities('["a.py::f"]', matcher, defs)).toThrow(/no listed entity/);
  });
});

describe('parseAgentReply', () => {
  it('reads actions in bracket, paren and Action Input forms', () => {
    expect(parseAgentReply('Thought: check it\nAction: ReadFileSkeleton[django/utils/text.py]')).toMatchObject({
      kind: 'action',
      thought: 'check it',
      argument: 'django/utils/text.py',
    });
    expect(parseAgentReply('Thought: x\nAction: ReadFileSkeleton("a/b.py")')).toMatchObject({ kind: 'action', argument: 'a/b.py' });
    expect(parseAgentReply('Thought: x\nAction: ReadFileSkeleton\nAction Input: a/b.py')).toMatchObject({ kind: 'action', argument: 'a/b.py' });
    expect(parseAgentReply('**Action:** ReadFileSkeleton[a.py]')).toMatchObject({ kind: 'action', argument: 'a.py' });
  });
  it('cuts an invented observation and everything after it', () => {
    const r = parseAgentReply('Thought: t\nAction: ReadFileSkeleton[a.py]\nObservation: class A: ...\nFinal Answer: {"a.py": 10}');
    expect(r).toMatchObject({ kind: 'action', argument: 'a.py', text: 'Thought: t\nAction: ReadFileSkeleton[a.py]' });
  });
  it('reads final answers, labelled or bare JSON; the earlier of action and answer wins', () => {
    expect(parseAgentReply('Thought: done\nFinal Answer: {"a.py": 3}')).toMatchObject({ kind: 'final', answer: '{"a.py": 3}' });
    expect(parseAgentReply('```json\n{"a.py": 3}\n```')).toMatchObject({ kind: 'final' });
    expect(parseAgentReply('Final Answer: {"a.py": 3}\nAction: ReadFileSkeleton[b.py]')).toMatchObject({ kind: 'final' });
  });
  it('rejects other tools, empty arguments and prose', () => {
    expect(parseAgentReply('Action: OpenFile[a.py]')).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/unknown tool "OpenFile"/) });
    expect(parseAgentReply('Action: ReadFileSkeleton[]')).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/needs a path/) });
    expect(parseAgentReply('I think the bug is in text.py.')).toMatchObject({ kind: 'invalid' });
  });
});

describe('outlineOfSkeleton', () => {
  it('keeps class headers with bases and def names, drops signatures, decorators and docstrings', () => {
    const skeleton = [
      '"""Module."""',
      '@dataclass',
      'class Point(Base, metaclass=M):',
      '    """A point."""',
      '    def __init__(self, x: int = 1) -> None: ...',
      '    async def fetch(self):',
      '        """Fetch."""',
      'def helper(a, b): ...',
    ].join('\n');
    expect(outlineOfSkeleton(skeleton)).toBe(['class Point(Base, metaclass=M)', '    def __init__', '    def fetch', 'def helper'].join('\n'));
  });
});

describe('queries, options, final ranking', () => {
  it('cleans plain-text query answers', () => {
    expect(cleanQueryAnswer('Query: slugify strip')).toBe('slugify strip');
    expect(cleanQueryAnswer('```\nslugify strip\n```')).toBe('slugify strip');
    expect(cleanQueryAnswer('**Structural query:** "a b"')).toBe('a b');
    expect(cleanQueryAnswer('  ')).toBe('');
  });
  it('validates options with clear messages and feeds m / cap / anchors to retrieval', () => {
    const o = resolveBlagentOptions({ m: 8, poolCap: 20, anchorChunks: 7 });
    expect(o.retrieval).toMatchObject({ poolPerQuery: 8, poolCap: 20, evidencePerFile: 7 });
    expect(o).toMatchObject({ earFiles: 5, maxSteps: 15, maxRetries: 5, level: 'file' });
    expect(() => resolveBlagentOptions({ M: 10 })).toThrow(/unknown option\(s\) M/);
    expect(() => resolveBlagentOptions({ earFiles: 0 })).toThrow(/earFiles must be a positive integer/);
    expect(() => resolveBlagentOptions({ level: 'line' })).toThrow(/level must be "file" or "function"/);
  });
  it('orders EAR, then Phase 1, then pool, then retrieval, each file once', () => {
    expect(
      finalRanking({
        earOrder: ['c', 'a'],
        phase1Order: ['a', 'b', 'c', 'd'],
        pool: ['a', 'b', 'c', 'd', 'e'],
        ranking: ['a', 'x', 'e', 'y'].map((path) => ({ path })),
      }),
    ).toEqual(['c', 'a', 'b', 'd', 'e', 'x', 'y']);
  });
});

describe('fittedSkeleton', () => {
  const method = (i: number): string =>
    `    def method_${i}(self, first_argument, second_argument=None, *args, **kwargs):\n        """Does step ${i} of the long computation, carefully and slowly."""\n        return ${i}\n`;
  const source = `"""Module doc."""\n\nclass Big(Base):\n    """A big class."""\n${Array.from({ length: 40 }, (_, i) => method(i)).join('')}\ndef helper(x):\n    return x\n`;
  let full: string;
  beforeAll(() => {
    full = blagentSkeleton(source);
  });

  it('keeps the full skeleton when it fits', () => {
    expect(fittedSkeleton(source, countTokens(full))).toBe(full);
  });

  it('sheds docstrings first, then parameter lists, then the tail; and says so', () => {
    const noDocs = blagentSkeleton(source, undefined, { docstrings: false });
    const withoutDocs = fittedSkeleton(source, countTokens(noDocs) + 40);
    expect(withoutDocs).toContain('def method_39(self, first_argument, second_argument=None, *args, **kwargs)');
    expect(withoutDocs).not.toContain('Does step');
    expect(withoutDocs).toMatch(/\(docstrings left out: the full skeleton is over \d+ tokens\)\n$/);
    const names = fittedSkeleton(source, countTokens(noDocs) - 50);
    expect(names).toContain('    def method_39\n');
    expect(names).not.toContain('first_argument');
    expect(names).toMatch(/names only, signatures and docstrings left out/);
    expect(names.split('\n')[0]).toBe('class Big(Base)');
    const cut = fittedSkeleton(source, 60);
    expect(countTokens(cut)).toBeLessThanOrEqual(60);
    expect(cut).toMatch(/^class Big\(Base\)\n {4}def method_0\n/);
    expect(cut).toMatch(/\.\.\. \(names only and cut at 60 tokens: the file is very large\)\n$/);
    expect(fittedSkeleton('X = 1\nY = 2\n', 100)).toBe('(no classes or functions; 3 lines of module-level code)');
  });
});
