/**
 * The model-free function level (localizer/function-ranking/): elements named as the papers' `edit_functions`,
 * LocAgent's Acc@k, the channels, and the stage writing the artifact the model's function level writes.
 */
import { describe, expect, it } from 'vitest';
import { candidateFiles } from '../../localizer/function-ranking/candidates.ts';
import { elementName, fileElements, goldElementKeys } from '../../localizer/function-ranking/elements.ts';
import { accAt, elementMetrics, reciprocalRank } from '../../localizer/function-ranking/metrics.ts';
import { DEFAULT_ELEMENT_WEIGHTS, FunctionRankingOptionsSchema } from '../../localizer/function-ranking/options.ts';
import { ELEMENT_CHANNELS, elementChannels, goldPlaces, orderByWeights, rankElements, type ElementWeights } from '../../localizer/function-ranking/rank.ts';
import { seededRandom } from '../../results/statistics.ts';
import { functionRankingStage } from '../../localizer/function-ranking/stage.ts';
import { parseFunctionLevel } from '../../localizer/hierarchy/options.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { stubRow } from '../support/rows.ts';

const SESSIONS = [
  'import os', //  1
  '', //  2
  'class Session:', //  3
  '    """A session keeps cookies and hooks."""', //  4
  '    retries = 3', //  5
  '', //  6
  '    def __init__(self):', //  7
  '        self.hooks = {}', //  8
  '', //  9
  '    def register_hook(self, event, hook):', // 10
  '        self.hooks.setdefault(event, []).append(hook)', // 11
  '        return merge_hooks(self.hooks)', // 12
  '', // 13
  '    def close(self):', // 14
  '        pass', // 15
  '', // 16
  'def merge_hooks(hooks):', // 17
  '    merged = {}', // 18
  '    for event, funcs in hooks.items():', // 19
  '        merged[event] = list(funcs)', // 20
  '    return merged', // 21
  '',
].join('\n');

const ADAPTERS = ['def send(request):', '    return request', '', 'def close():', '    pass', ''].join('\n');

function elementsOf(path: string, source: string) {
  return fileElements(path, source, extractDefinitions(path, source));
}

/** A snapshot over a few files, enough for candidateFiles and the stage. */
function snapshotOf(files: Record<string, string>): RepoSnapshot {
  return {
    listFiles: async () => Object.keys(files).map((path) => ({ path, blob: path, mode: '100644' })),
    readFiles: async (paths: readonly string[]) => new Map(paths.filter((p) => p in files).map((p) => [p, files[p]!])),
  } as unknown as RepoSnapshot;
}

describe('elements', () => {
  it('are functions, methods and classes; a constructor is its class, whose own lines keep __init__ but not other methods', () => {
    const elements = elementsOf('req/sessions.py', SESSIONS);
    expect(elements.map((e) => `${e.kind} ${e.name}`)).toEqual([
      'class Session',
      'function Session.register_hook',
      'function Session.close',
      'function merge_hooks',
    ]);
    const cls = elements[0]!;
    expect(cls.text).toContain('self.hooks = {}');
    expect(cls.text).toContain('retries = 3');
    expect(cls.text).not.toContain('setdefault');
    expect(elementName('Session.__init__')).toBe('Session');
  });

  it('the gold of a patch: module-level edits drop out, a constructor is its class, each once', () => {
    const gold = goldElementKeys([
      { path: 'a.py', name: '<module>' },
      { path: 'a.py', name: 'Session.__init__' },
      { path: 'a.py', name: 'Session' },
      { path: 'a.py', name: 'Session.close' },
    ]);
    expect(gold).toEqual(['a.py:Session', 'a.py:Session.close']);
  });
});

describe("LocAgent's metrics", () => {
  it('Acc@k needs every gold element in the top k, or k of them when there are more; MRR is the first hit', () => {
    expect(accAt(['a', 'b'], ['a', 'x', 'b'], 2)).toBe(false);
    expect(accAt(['a', 'b'], ['a', 'x', 'b'], 3)).toBe(true);
    // seven gold elements: Acc@5 asks for five of them in the first five
    const seven = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    expect(accAt(seven, ['a', 'b', 'c', 'd', 'e'], 5)).toBe(true);
    expect(accAt(seven, ['a', 'b', 'c', 'd', 'x'], 5)).toBe(false);
    expect(reciprocalRank(['b'], ['a', 'b'])).toBe(0.5);
    expect(reciprocalRank(['b'], undefined)).toBe(0);
  });

  it('an instance without gold elements is not counted; a failed one counts as a miss', () => {
    const m = elementMetrics([
      { instanceId: '1', gold: ['a'], ranking: ['a'] },
      { instanceId: '2', gold: ['b'], ranking: undefined },
      { instanceId: '3', gold: [], ranking: ['c'] },
    ]);
    expect(m.instances).toBe(2);
    expect(m.acc[1]).toBe(0.5);
    expect(m.mrr).toBe(0.5);
  });
});

describe('the channels', () => {
  const files = [
    { path: 'req/sessions.py', rank: 0, elements: elementsOf('req/sessions.py', SESSIONS) },
    { path: 'req/adapters.py', rank: 1, elements: elementsOf('req/adapters.py', ADAPTERS) },
  ];
  const only = (channel: (typeof ELEMENT_CHANNELS)[number]): ElementWeights =>
    Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, c === channel ? 1 : 0])) as ElementWeights;

  it('a qualified name in the issue is the strongest mention; a bare name is shared among the candidates that have it', () => {
    const channels = elementChannels('Calling `Session.register_hook` twice drops hooks; also close() leaks', files);
    const of = (name: string) => channels.find((e) => e.name === name)!.channels;
    expect(of('Session.register_hook').names).toBe(1);
    // close is defined twice among the candidates: its mention is split between them
    expect(of('Session.close').names).toBeCloseTo(of('close').names);
    expect(of('Session.close').names).toBeLessThan(0.5);
    // the method of a named class
    expect(of('Session.close').owner).toBeGreaterThan(0);
    expect(of('merge_hooks').owner).toBe(0);
  });

  it('a traceback frame inside an element, innermost first; the call graph passes evidence one hop', () => {
    const issue = [
      'Hooks are lost',
      'Traceback (most recent call last):',
      '  File "/site-packages/req/sessions.py", line 12, in register_hook',
      '  File "/site-packages/req/sessions.py", line 20, in merge_hooks',
      'KeyError: x',
    ].join('\n');
    const ranked = rankElements(issue, files, only('frames'));
    expect(ranked.slice(0, 2).map((e) => e.name)).toEqual(['merge_hooks', 'Session.register_hook']);
    const calls = elementChannels('the hooks of Session.register_hook are wrong', files);
    expect(calls.find((e) => e.name === 'merge_hooks')!.channels.calls).toBe(0.5);
    expect(calls.find((e) => e.name === 'send')!.channels.calls).toBe(0);
  });

  it('feedback (RM3) scores elements by the words the best lexical matches share that the issue did not say', () => {
    const source = [
      'def parse_header(raw):',
      '    return tokenize_header(raw)',
      '',
      'def tokenize_header(raw):',
      '    return raw.split(":")',
      '',
      'def render_footer():',
      '    return "bye"',
      '',
    ].join('\n');
    const channels = elementChannels('parse of a raw header is wrong', [{ path: 'h.py', rank: 0, elements: elementsOf('h.py', source) }]);
    const of = (name: string) => channels.find((e) => e.name === name)!.channels.feedback;
    expect(of('tokenize_header')).toBeGreaterThan(0);
    expect(of('render_footer')).toBe(0);
  });

  it('literals score the element whose string literal the issue quotes, the rarer and longer the more', () => {
    const source = [
      'def check_units(value):',
      '    raise ValueError("Unknown unit type for the given quantity: %s" % value)',
      '',
      'def check_shape(value):',
      '    raise ValueError("shape mismatch between the two arrays")',
      '',
      'def plain(value):',
      '    return value',
      '',
    ].join('\n');
    const issue = 'Converting fails:\n\nValueError: Unknown unit type for the given quantity: furlong';
    const channels = elementChannels(issue, [{ path: 'u.py', rank: 0, elements: elementsOf('u.py', source) }]);
    const of = (name: string) => channels.find((e) => e.name === name)!.channels.literals;
    expect(of('check_units')).toBe(1);
    expect(of('check_shape')).toBe(0);
    expect(of('plain')).toBe(0);
  });

  it('similar scores the functions past commits like the issue changed; churn how often each changed', () => {
    const changes = [
      { message: 'Fix hooks merged twice for one event', changed: '', definitions: [{ path: 'req/sessions.py', name: 'merge_hooks' }] },
      { message: 'Fix duplicate hooks when merging event hooks', changed: '', definitions: [{ path: 'req/sessions.py', name: 'merge_hooks' }] },
      { message: 'Close adapters on exit', changed: '', definitions: [{ path: 'req/adapters.py', name: 'close' }] },
      { message: 'Close adapters again', changed: '', definitions: [{ path: 'req/adapters.py', name: 'close' }] },
      { message: 'Session hooks set up in the constructor', changed: '', definitions: [{ path: 'req/sessions.py', name: '__init__' }] },
      // a commit sharing one word with the issue is no evidence
      { message: 'Typo in event docs', changed: '', definitions: [{ path: 'req/sessions.py', name: 'close' }] },
    ];
    const channels = elementChannels('Hooks of one event are merged twice', files, { changes });
    const of = (name: string) => channels.find((e) => e.name === name)!.channels;
    expect(of('merge_hooks').similar).toBe(1);
    expect(of('Session.close').similar).toBe(0);
    expect(of('close').similar).toBe(0); // the adapters' close: other words
    expect(of('close').churn).toBe(1);
    expect(of('Session').churn).toBeGreaterThan(0); // its constructor changed
    expect(of('send').churn).toBe(0);
    // no history: both 0
    expect(elementChannels('Hooks of one event are merged twice', files).every((e) => e.channels.similar === 0 && e.channels.churn === 0)).toBe(true);
  });

  it('gold places without sorting give the metrics of the full ranking, ties and repeated keys included', () => {
    const random = seededRandom(7);
    const outcomes = Array.from({ length: 60 }, (_, n) => {
      // coarse channel values make ties; few keys make repeats (overloads, a setter beside its property)
      const candidates = Array.from({ length: 40 }, (_, i) => ({
        key: `f${Math.floor(random() * 3)}.py:e${Math.floor(random() * 25)}`,
        fileRank: Math.floor(i / 10),
        channels: Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, Math.floor(random() * 3) / 2])) as Record<(typeof ELEMENT_CHANNELS)[number], number>,
      }));
      const gold = [...new Set(Array.from({ length: 1 + (n % 4) }, () => candidates[Math.floor(random() * 40)]!.key)), ...(n % 5 ? [] : ['gone.py:missing'])];
      const weights = Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, Math.floor(random() * 3)])) as ElementWeights;
      return { candidates, gold, weights };
    });
    const full = elementMetrics(
      outcomes.map((o, n) => ({ instanceId: `i${n}`, gold: o.gold, ranking: orderByWeights(o.candidates, o.weights).map((c) => c.key) })),
    );
    const sparse = elementMetrics(outcomes.map((o, n) => ({ instanceId: `i${n}`, gold: o.gold, ranking: goldPlaces(o.candidates, o.gold, o.weights) })));
    expect(sparse).toEqual(full);
    expect(full.acc[5]).toBeGreaterThan(0);
    expect(full.acc[5]).toBeLessThan(1);
  });

  it('the lexical channel ranks by the issue’s words; ties keep file rank, then source order', () => {
    const ranked = rankElements('merged funcs per event are a list', files, only('lexical'));
    expect(ranked[0]!.name).toBe('merge_hooks');
    const flat = orderByWeights(elementChannels('nothing matches zzz', files), only('lexical'));
    expect(flat.map((e) => e.name)).toEqual(['Session', 'Session.register_hook', 'Session.close', 'merge_hooks', 'send', 'close']);
  });
});

describe('the function level without a model', () => {
  it('is chosen by "localizer": "retrieval", with its own keys; the model’s keys stay the model’s', () => {
    expect(parseFunctionLevel({ localizer: 'retrieval' })).toMatchObject({ localizer: 'retrieval', files: 10, elements: 5, weights: DEFAULT_ELEMENT_WEIGHTS });
    expect(() => parseFunctionLevel({ localizer: 'retrieval', maxAttempts: 2 })).toThrow(/unknown option\(s\) maxAttempts/);
    expect(() => parseFunctionLevel({ localizer: 'bm25' })).toThrow(/must be "model" .* or "retrieval"/);
    expect(parseFunctionLevel({ maxAttempts: 2 })).toEqual({ maxAttempts: 2 });
    expect(FunctionRankingOptionsSchema.parse({ localizer: 'retrieval', weights: { names: 3 } }).weights).toEqual({ ...DEFAULT_ELEMENT_WEIGHTS, names: 3 });
  });

  it('writes the artifact of the function level: the first elements as location lines, the ranking kept, no model', async () => {
    const snapshot = snapshotOf({ 'req/sessions.py': SESSIONS, 'req/adapters.py': ADAPTERS });
    const stage = functionRankingStage({ snapshot: async () => snapshot }, {
      ...parseFunctionLevel({ localizer: 'retrieval', elements: 2 }),
      localizer: 'retrieval',
    } as never);
    expect(stage.usesModel).toBe(false);
    const fileLocalization = { localizer: 'retrieval', files: [{ path: 'req/sessions.py' }, { path: 'gone.py' }, { path: 'req/adapters.py' }] };
    const out = await stage.run({
      instance: { ...stubRow('o__r-1'), problem_statement: 'Session.register_hook loses hooks\nthe merge of hooks per event is wrong' },
      output: async () => fileLocalization,
    } as never);
    expect(out.locations).toEqual({ 'req/sessions.py': ['function: Session.register_hook', 'function: merge_hooks'] });
    expect(out.elements.map((e) => [e.name, e.range])).toEqual([
      ['Session.register_hook', { start: 10, end: 12 }],
      ['merge_hooks', { start: 17, end: 21 }],
    ]);
    expect(out.missingFiles).toEqual(['gone.py']);
    expect(out.ranking).toHaveLength(6);
    expect(out.usage.calls).toBe(0);
  });

  it('with historyCommits, ranks by what the history’s commits associate with the issue’s words and changed', async () => {
    const files = {
      'app/dates.py': 'def localize(value):\n    return make_aware(value)\n\ndef render(value):\n    return str(value)\n',
    };
    const history = [
      ...Array.from({ length: 3 }, (_, i) => ({
        message: `Fix timezone bug ${i} after saving`,
        changed: `x = make_aware(y)\nz${i} = 1`,
        definitions: [{ path: 'app/dates.py', name: 'localize' }],
      })),
      ...Array.from({ length: 3 }, (_, i) => ({ message: `Tidy the docs ${i}`, changed: `other_name = ${i}` })),
    ];
    const snapshot = { ...snapshotOf(files), recentChanges: async () => history } as RepoSnapshot;
    const weights = { ...Object.fromEntries(ELEMENT_CHANNELS.map((c) => [c, 0])), meaning: 1 } as ElementWeights;
    const options = { ...parseFunctionLevel({ localizer: 'retrieval', historyCommits: 50, weights }) } as never;
    const out = await functionRankingStage({ snapshot: async () => snapshot }, options).run({
      instance: { ...stubRow('o__r-2'), problem_statement: 'The timezone is wrong after saving' },
      output: async () => ({ localizer: 'retrieval', files: [{ path: 'app/dates.py' }] }),
    } as never);
    expect(out.ranking.map((r) => [r.key, r.channels.meaning, r.channels.similar])).toEqual([
      ['app/dates.py:localize', 1, 1],
      ['app/dates.py:render', 0, 0],
    ]);
  });

  it('ranks the handed files under a top handoff, and looks further under a soft one, naming the files beyond', async () => {
    const snapshot = snapshotOf({ 'req/sessions.py': SESSIONS, 'req/adapters.py': ADAPTERS });
    const input = {
      instance: { ...stubRow('o__r-4'), problem_statement: 'send() of a request; close() leaks' },
      output: async () => ({ localizer: 'retrieval', files: [{ path: 'req/sessions.py' }, { path: 'req/adapters.py' }] }),
    } as never;
    const options = parseFunctionLevel({ localizer: 'retrieval', elements: 6 }) as never as Record<string, unknown>;
    const top = await functionRankingStage({ snapshot: async () => snapshot }, { ...options, topFiles: 1, handoff: 'top' } as never).run(input);
    expect(top.ranking.map((r) => r.key.split(':')[0])).toEqual(Array(4).fill('req/sessions.py'));
    expect(top.beyond).toBeUndefined();
    const soft = await functionRankingStage({ snapshot: async () => snapshot }, { ...options, topFiles: 1, handoff: 'soft' } as never).run(input);
    expect(soft.ranking).toHaveLength(6);
    expect(soft.beyond).toEqual(['req/adapters.py']);
  });

  it('a history that cannot be read leaves the meaning channel out for the instance, with the reason; the rest ranks', async () => {
    const snapshot = {
      ...snapshotOf({ 'req/sessions.py': SESSIONS }),
      recentChanges: async () => {
        throw new Error('git log failed: fatal: unable to read 44da6c9f');
      },
    } as RepoSnapshot;
    const out = await functionRankingStage({ snapshot: async () => snapshot }, parseFunctionLevel({ localizer: 'retrieval', historyCommits: 10 }) as never).run(
      {
        instance: { ...stubRow('o__r-3'), problem_statement: 'Session.register_hook loses hooks' },
        output: async () => ({ localizer: 'retrieval', files: [{ path: 'req/sessions.py' }] }),
      } as never,
    );
    expect(out.historyError).toMatch(/unable to read/);
    expect(out.ranking[0]!.key).toBe('req/sessions.py:Session.register_hook');
  });

  it('candidates come from the first files of the ranking that exist; a file no language parses has no elements', async () => {
    const snapshot = snapshotOf({ 'a.py': ADAPTERS, 'notes.txt': 'def not_code():\n', 'b.py': SESSIONS });
    const c = await candidateFiles(snapshot, ['a.py', 'missing.py', 'notes.txt', 'b.py'], 3);
    expect(c.files.map((f) => [f.path, f.rank, f.elements.length])).toEqual([
      ['a.py', 0, 2],
      ['notes.txt', 1, 0],
    ]);
    expect(c.missing).toEqual(['missing.py']);
  });
});
