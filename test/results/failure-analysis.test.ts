import { describe, expect, it } from 'vitest';
import { analyzeInstance, firstChangedCodeLine, goldElements, lineLevelMatch, type InstanceEvidence } from '../../results/failure-analysis.ts';
import { summarizeFailures } from '../../results/failure-summary.ts';
import { accountLine } from '../../results/instance-account.ts';
import { sequenceRatio } from '../../results/sequence-similarity.ts';
import { whyOf } from '../../app/view/catalogue.ts';
import { knownGoldFailure } from '../../src/harness/known-gold-failures.ts';
import type { Definition } from '../../src/parsing/types.ts';

describe('sequenceRatio (difflib.SequenceMatcher(None, a, b).ratio())', () => {
  // expected values printed by CPython 3.11 difflib
  it.each([
    ['if x is None:', 'if x is not None:', 0.8666666666666667],
    ['return self._value', 'return self.value', 0.9714285714285714],
    ['abcd', 'bcde', 0.75],
    ['', '', 1],
    ['foo', '', 0],
    ['    raise ValueError("bad")', '    raise TypeError("bad input")', 0.7796610169491526],
    ['private Thread currentThread;', 'private volatile Thread currentThread;', 0.8656716417910447],
    // 200+ characters: difflib's autojunk makes both letters "popular", so nothing matches
    ['a'.repeat(150) + 'b'.repeat(100), 'b'.repeat(120) + 'a'.repeat(130), 0],
  ])('%s ~ %s', (a, b, expected) => {
    expect(sequenceRatio(a, b)).toBeCloseTo(expected, 12);
  });
});

const hunk = (path: string, oldStart: number, lines: string[]) => {
  const removed = lines.filter((l) => !l.startsWith('+')).length;
  const added = lines.filter((l) => !l.startsWith('-')).length;
  return `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n@@ -${oldStart},${removed} +${oldStart},${added} @@\n${lines.join('\n')}\n`;
};

describe('line-level approximation', () => {
  it('skips comments, blank lines and docstrings when finding the first changed code line', () => {
    const patch = hunk('pkg/m.py', 10, [
      ' def f(x):',
      '-    """Old doc.',
      '+    """New doc.',
      '     more doc',
      '     """',
      '+    # a comment',
      '+',
      '-    return x',
      '+    return x + 1',
    ]);
    expect(firstChangedCodeLine(patch)).toEqual({ path: 'pkg/m.py', line: 14, text: 'return x' });
  });

  it('reads a hunk that starts by closing a docstring in the string state of the base file before it', () => {
    // the gold patch of minibench__urlkit-14 has this shape: its hunk starts on the closing `"""`
    const base = [
      'def split(hostport):',
      '    """Split host and port.',
      '',
      '    Longer text.',
      '    """',
      '    if not hostport:',
      '        return "", None',
      '    host = hostport',
      '',
    ].join('\n');
    const patch = hunk('hosts.py', 5, [
      '     """',
      '     if not hostport:',
      '         return "", None',
      '+    if hostport.startswith("["):',
      '+        return hostport, None',
      '     host = hostport',
    ]);
    // alone, the lone `"""` reads as an opener and every later line as docstring
    expect(firstChangedCodeLine(patch)).toBeUndefined();
    expect(firstChangedCodeLine(patch, (p) => (p === 'hosts.py' ? base : undefined))).toEqual({
      path: 'hosts.py',
      line: 8,
      text: 'if hostport.startswith("["):',
    });
    const model = hunk('hosts.py', 7, ['         return "", None', '+    pass', '     host = hostport']);
    expect(lineLevelMatch(model, patch, () => base)).toMatchObject({ correct: true, distance: 0 });
  });

  it('accepts edits within 5 lines, similar edits within 10 lines, and rejects the rest', () => {
    const gold = hunk('a.py', 20, [' ctx', '-    if x is None:', '+    if x is not None:']);
    const near = hunk('a.py', 24, [' ctx', '-    y = 1', '+    y = 2']);
    expect(lineLevelMatch(near, gold)).toMatchObject({ correct: true, rule: 'within-5-lines', distance: 4 });
    const similar = hunk('a.py', 28, [' ctx', '-    if x is None :', '+    if x is not None:']);
    expect(lineLevelMatch(similar, gold)).toMatchObject({ correct: true, rule: 'similar-within-10-lines', distance: 8 });
    const dissimilar = hunk('a.py', 28, [' ctx', '-    total = compute(a, b)', '+    total = 0']);
    expect(lineLevelMatch(dissimilar, gold)).toMatchObject({ correct: false, rule: 'too-far' });
    const farButSimilar = hunk('a.py', 60, [' ctx', '-    if x is None:', '+    if x:']);
    expect(lineLevelMatch(farButSimilar, gold)).toMatchObject({ correct: false, rule: 'too-far', distance: 40 });
    const otherFile = hunk('b.py', 21, [' ctx', '-    if x is None:', '+    if x is not None:']);
    expect(lineLevelMatch(otherFile, gold)).toMatchObject({ correct: false, rule: 'different-file' });
    // an imported prediction with a broken header is a recorded mismatch, not a crash of the whole analysis
    expect(lineLevelMatch('diff --git nonsense\n', gold)).toMatchObject({ correct: false, rule: 'unreadable-model-patch', gold: { path: 'a.py' } });
  });
});

const defs: Definition[] = [
  { path: 'a.py', name: 'Box', qualifiedName: 'Box', kind: 'class', startLine: 1, endLine: 30 },
  { path: 'a.py', name: 'get', qualifiedName: 'Box.get', kind: 'method', startLine: 5, endLine: 12 },
  { path: 'a.py', name: 'helper', qualifiedName: 'helper', kind: 'function', startLine: 40, endLine: 50 },
];

describe('gold elements and categories', () => {
  const gold = hunk('a.py', 8, [' ctx', '-        return self._v', '+        return self.v']);

  it('maps changed lines to the innermost definition', () => {
    expect(goldElements(gold, () => defs)).toEqual([{ path: 'a.py', name: 'Box.get' }]);
    const moduleLevel = hunk('a.py', 33, [' ctx', '-X = 1', '+X = 2']);
    expect(goldElements(moduleLevel, () => defs)).toEqual([{ path: 'a.py', name: '<module>' }]);
  });

  const base = (over: Partial<InstanceEvidence>): InstanceEvidence => ({
    instanceId: 'o__r-1',
    repo: 'o/r',
    goldPatch: gold,
    handedFiles: ['a.py', 'b.py', 'c.py'],
    selectedElements: [{ path: 'a.py', name: 'Box' }],
    goldElements: goldElements(gold, () => defs),
    modelPatch: hunk('a.py', 9, [' ctx', '-        x = 1', '+        x = 2']),
    resolved: false,
    ...over,
  });

  it('a resolve the runner audit flagged stays resolved, is counted apart in the account, and says why (issue 51)', () => {
    const flagged = analyzeInstance(base({ resolved: true, flagged: true }));
    expect(flagged).toMatchObject({ category: 'resolved', flagged: true });
    // only a resolve is flagged: an unresolved patch with the same lines is simply unresolved
    expect(analyzeInstance(base({ flagged: true }))).not.toHaveProperty('flagged');
    const clean = analyzeInstance({ ...base({ resolved: true }), instanceId: 'o__r-2' });
    const summary = summarizeFailures([flagged, clean]);
    expect(summary.flaggedResolves).toEqual(['o__r-1']);
    expect(accountLine(summary)).toBe('2 instances: resolved 2 of 2 (100.0 %); 1 of the resolved flagged by the runner audit (o__r-1)');
    expect(whyOf(flagged)).toMatch(/resolved \(flagged\): the patch holds lines that talk past the test runner/);
    expect(summarizeFailures([clean])).not.toHaveProperty('flaggedResolves');
  });

  it('labels evaluation logs that show an infrastructure fault, leaving the category and the rates alone', () => {
    const infraFailure = { reason: 'browser_launch_failed', tier: 'environment' };
    const labelled = analyzeInstance(base({ evaluationError: 'cannot run the tests', infraFailure }));
    expect(labelled).toMatchObject({ category: 'evaluation-error', infraFailure });
    const ambiguous = analyzeInstance(base({ infraFailure: { reason: 'missing_module', tier: 'ambiguous' } }));
    expect(ambiguous.category).toBe(analyzeInstance(base({})).category);
    // a resolved instance is never labelled (the harness classifies unresolved and errored ones only)
    expect(analyzeInstance(base({ resolved: true, infraFailure })).infraFailure).toBeUndefined();
    const summary = summarizeFailures([labelled, ambiguous, analyzeInstance(base({ resolved: true }))]);
    expect(summary.infraFailures).toEqual({ 'environment: browser_launch_failed': 1, 'ambiguous: missing_module': 1 });
    expect(summary.judged).toBe(3);
    expect(whyOf(labelled)).toBe('cannot run the tests; evaluation logs show an infrastructure fault (environment: browser_launch_failed)');
  });

  it("names an unresolved instance the dataset's own gold patch does not resolve as the dataset's", () => {
    expect(knownGoldFailure('jqlang__jq-2681')).toEqual({ dataset: 'SWE-bench/SWE-bench_Multilingual', reason: 'the gold run timed out' });
    expect(knownGoldFailure('jqlang__jq-2680')).toBeUndefined();
    const known = analyzeInstance(base({ knownGoldFailure: 'SWE-bench/SWE-bench_Multilingual: the gold run timed out' }));
    expect(known.knownGoldFailure).toBe('SWE-bench/SWE-bench_Multilingual: the gold run timed out');
    expect(analyzeInstance(base({ resolved: true, knownGoldFailure: 'x' })).knownGoldFailure).toBeUndefined();
    expect(summarizeFailures([known]).knownGoldFailures).toEqual(['o__r-1']);
    expect(whyOf(known)).toContain("the dataset's own gold patch does not resolve it (SWE-bench/SWE-bench_Multilingual: the gold run timed out)");
  });

  it('assigns each stage in pipeline order', () => {
    expect(analyzeInstance(base({ resolved: true })).category).toBe('resolved');
    expect(analyzeInstance(base({ evaluationError: 'patch did not apply' })).category).toBe('evaluation-error');
    expect(analyzeInstance(base({ modelPatch: '', emptyReason: 'syntax-error' }))).toMatchObject({
      category: 'empty-patch',
      emptyReason: 'syntax-error',
      fileCorrect: true,
    });
    expect(analyzeInstance(base({ handedFiles: ['b.py', 'c.py', 'd.py'] })).category).toBe('file');
    expect(analyzeInstance(base({ selectedElements: [{ path: 'a.py', name: 'helper' }] })).category).toBe('function');
    expect(analyzeInstance(base({ selectedElements: undefined })).category).toBe('function');
    expect(analyzeInstance(base({ modelPatch: hunk('a.py', 45, [' ctx', '-    pass', '+    return']) })).category).toBe('line');
    expect(analyzeInstance(base({})).category).toBe('patch-generation');
  });

  it('summarizes counts, shares of unresolved, per-repo counts and empty reasons', () => {
    const analyses = [
      analyzeInstance(base({ instanceId: 'i1', resolved: true })),
      analyzeInstance(base({ instanceId: 'i2', modelPatch: '', emptyReason: 'no-edits-parsed' })),
      analyzeInstance(base({ instanceId: 'i3', handedFiles: ['z.py'] })),
      analyzeInstance(base({ instanceId: 'i4', repo: 'o/other' })),
    ];
    const s = summarizeFailures(analyses);
    expect(s.total).toBe(4);
    expect(s.unresolved).toBe(3);
    expect(s.categories.resolved).toMatchObject({ count: 1, share: 0.25, instances: ['i1'] });
    expect(s.categories.file).toMatchObject({ count: 1, shareOfUnresolved: 1 / 3 });
    expect(s.byRepo['o/other']['patch-generation']).toBe(1);
    expect(s.emptyReasons).toEqual({ 'no-edits-parsed': 1 });
  });
});
