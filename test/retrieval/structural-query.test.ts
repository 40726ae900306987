import { describe, expect, it } from 'vitest';
import { extractStructuralSignals, normalizeIssuePath, structuralQueryText } from '../../localizer/retrieval/structural-query.ts';
import { defaultQueries, externalQuery, assertQueries } from '../../localizer/retrieval/query.ts';

const TRACEBACK_ISSUE = `Matrix.is_upper raises IndexError for tall matrices
The function \`Matrix.is_upper\` raises an IndexError for a 4x2 matrix of zeros.
\`\`\`
>>> sympy.zeros(4,2).is_upper
Traceback (most recent call last):
  File "<stdin>", line 1, in <module>
  File "/usr/lib/python3/site-packages/sympy/matrices/matrices.py", line 1112, in is_upper
    for i in range(1, self.rows)
  File "sympy/matrices/dense.py", line 119, in __getitem__
    return self.extract(i, j)
  File "/home/me/venv/lib/python3.9/site-packages/numpy/core/fromnumeric.py", line 57, in _wrapfunc
    return bound(*args, **kwds)
IndexError: Index out of range: a[2]
\`\`\`
`;

describe('extractStructuralSignals', () => {
  it('reads traceback frames innermost first, with site-packages prefixes stripped', () => {
    const s = extractStructuralSignals(TRACEBACK_ISSUE);
    expect(s.frames).toEqual([
      { path: 'numpy/core/fromnumeric.py', line: 57, func: '_wrapfunc' },
      { path: 'sympy/matrices/dense.py', line: 119, func: '__getitem__' },
      { path: 'sympy/matrices/matrices.py', line: 1112, func: 'is_upper' },
    ]);
    const names = Object.fromEntries(s.names.map((n) => [n.name, n.source]));
    expect(names.is_upper).toBe('frame');
    expect(names.__getitem__).toBe('frame');
    expect(names.extract).toBe('code');
    expect(s.qualifiedNames).toContain('Matrix.is_upper');
    // builtins and exceptions are not names to look up
    expect(names.IndexError).toBeUndefined();
    expect(names.range).toBeUndefined();
  });

  it('reads pytest-style frames', () => {
    const s = extractStructuralSignals(
      'E   failure\n\nsrc/_pytest/python.py:1234: in _importtestmodule\n    mod = import_path(path)\nsrc/_pytest/pathlib.py:77: ImportError',
    );
    expect(s.frames.map((f) => `${f.path}:${f.line}:${f.func ?? ''}`)).toEqual(['src/_pytest/pathlib.py:77:', 'src/_pytest/python.py:1234:_importtestmodule']);
  });

  it('finds CamelCase classes, snake_case functions, dotted modules and file paths in prose', () => {
    const s = extractStructuralSignals(
      'QuerySet.bulk_create crashes on SQLite. The code in django/db/models/query.py calls connection.ops.bulk_batch_size, see django.db.backends.sqlite3.operations for details. The Model is fine.',
    );
    const names = s.names.map((n) => n.name);
    expect(names).toEqual(expect.arrayContaining(['QuerySet', 'bulk_create', 'bulk_batch_size']));
    expect(names).not.toContain('The');
    expect(names).not.toContain('Model'); // a plain capitalised word in prose is not evidence
    expect(s.qualifiedNames).toEqual(['QuerySet.bulk_create']);
    expect(s.paths).toEqual(['django/db/models/query.py']);
    expect(s.modules).toContain('django.db.backends.sqlite3.operations');
  });

  it('takes every identifier in backticks and code blocks, with import modules', () => {
    const s = extractStructuralSignals(
      'Use `Request.register_hook` like this:\n```python\nfrom requests.models import Request, Response\nr = Request(hooks={"response": [a, b]})\n```\nand _should_ work.',
    );
    const names = Object.fromEntries(s.names.map((n) => [n.name, n.source]));
    expect(names.register_hook).toBe('backtick');
    expect(names.Request).toBe('backtick');
    expect(names.Response).toBe('code');
    expect(names.hooks).toBe('code');
    expect(names.response).toBeUndefined(); // inside a string literal
    expect(names._should_).toBeUndefined(); // markdown emphasis
    expect(s.modules).toContain('requests.models');
    expect(s.qualifiedNames).toContain('Request.register_hook');
  });

  it('does not take versions, URLs or abbreviations for modules', () => {
    const s = extractStructuralSignals('Since 3.2.1 (see https://docs.djangoproject.com/en/3.2/ref/models.py), e.g. the behaviour changed.');
    expect(s.modules).toEqual([]);
    expect(s.paths).toEqual([]);
  });

  it('takes repository paths from source links', () => {
    const s = extractStructuralSignals('See https://github.com/psf/requests/blob/v2.3.0/requests/sessions.py#L425 for the line.');
    expect(s.paths).toEqual(['requests/sessions.py']);
  });

  it('never throws on empty or odd input', () => {
    expect(extractStructuralSignals('')).toEqual({ names: [], qualifiedNames: [], modules: [], paths: [], frames: [] });
    expect(() => extractStructuralSignals('```\nunterminated `code\n' + '\u0000\uFFFD'.repeat(10))).not.toThrow();
  });
});

describe('structural query text and queries', () => {
  it('orders frames, paths, modules, qualified names, then names by source', () => {
    const s = extractStructuralSignals(TRACEBACK_ISSUE);
    const lines = structuralQueryText(s).split('\n');
    expect(lines[0]).toBe('numpy/core/fromnumeric.py _wrapfunc');
    expect(lines[1]).toBe('sympy/matrices/dense.py __getitem__');
    expect(lines.at(-1)!.startsWith('_wrapfunc __getitem__ is_upper')).toBe(true);
  });

  it('normalizes paths from issues', () => {
    expect(normalizeIssuePath('C:\\Users\\x\\site-packages\\pkg\\mod.py')).toBe('pkg/mod.py');
    expect(normalizeIssuePath('/x/site-packages/requests-2.3.0-py2.7.egg/requests/models.py')).toBe('requests/models.py');
    expect(normalizeIssuePath('./a/b.py')).toBe('a/b.py');
  });

  it('builds raw + structural by default and accepts LLM-written queries', () => {
    const qs = defaultQueries('`foo_bar` breaks');
    expect(qs.map((q) => q.label)).toEqual(['raw', 'structural']);
    expect(qs[0].signals).toBeUndefined();
    expect(qs[1].signals!.names.map((n) => n.name)).toEqual(['foo_bar']);
    const t0 = externalQuery('T0', 'Module utils, function foo_bar', { signalsFrom: 'File "pkg/utils.py", line 3, in foo_bar' });
    expect(t0.signals!.frames[0].path).toBe('pkg/utils.py');
    expect(() => assertQueries([t0, { ...t0 }])).toThrow(/used twice/);
    expect(() => assertQueries([])).toThrow(/at least one/);
  });
});

describe('structural extraction on hostile input', () => {
  it('ignores blobs longer than any identifier or path, and stays fast on them', () => {
    const blob = 'aB'.repeat(30_000); // a pasted base64 image, say
    const issue = `QuerySet.bulk_create fails\n\n${blob}\n\nsee \`django/db/models/query.py\` and ${'x/'.repeat(30_000)}y ${'_'.repeat(50_000)}!`;
    const t0 = performance.now();
    const s = extractStructuralSignals(issue);
    // quadratic backtracking over these runs took over 20 s
    expect(performance.now() - t0).toBeLessThan(500);
    expect(s.qualifiedNames).toEqual(['QuerySet.bulk_create']);
    expect(s.paths).toEqual(['django/db/models/query.py']);
    expect(s.names.some((n) => n.name.length > 400)).toBe(false);
  });
});
