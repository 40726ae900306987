import { describe, expect, it } from 'vitest';
import { parseSearchReplace, pathFromHeader } from '../../repair/search-replace.ts';

const block = (path: string | null, search: string, replace: string, fence = '```python') =>
  [fence, ...(path === null ? [] : [`### ${path}`]), '<<<<<<< SEARCH', search, '=======', replace, '>>>>>>> REPLACE', '```'].join('\n');

describe('parseSearchReplace', () => {
  it('parses the requested format, several edits over several files', () => {
    const out = `I will fix it.\n\n${block('pkg/a.py', 'x = 1', 'x = 2')}\n\nAnd also:\n\n${block('pkg/b.py', 'def f():\n    return 1', 'def f():\n    return 2')}\n`;
    const { edits, notes, duplicatesDropped } = parseSearchReplace(out);
    expect(edits).toEqual([
      { path: 'pkg/a.py', search: ['x = 1'], replace: ['x = 2'], index: 0 },
      { path: 'pkg/b.py', search: ['def f():', '    return 1'], replace: ['def f():', '    return 2'], index: 1 },
    ]);
    expect(notes).toEqual([]);
    expect(duplicatesDropped).toBe(0);
  });

  it('accepts a bare fence, ~~~ fences and no fence at all', () => {
    for (const fence of ['```', '~~~', '```py']) {
      const { edits } = parseSearchReplace(block('a.py', 'a', 'b', fence).replace(/```$/, fence.slice(0, 3)));
      expect(edits.map((e) => [e.path, e.search, e.replace])).toEqual([['a.py', ['a'], ['b']]]);
    }
    const bare = '### a.py\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n';
    expect(parseSearchReplace(bare).edits).toHaveLength(1);
  });

  it('reuses the previous file when an edit has no header, and leaves it undefined for the first edit', () => {
    const out = `${block('a.py', 'a', 'b')}\n${block(null, 'c', 'd')}`;
    const { edits, notes } = parseSearchReplace(out);
    expect(edits.map((e) => e.path)).toEqual(['a.py', 'a.py']);
    expect(notes.join('\n')).toMatch(/reusing a\.py/);
    expect(parseSearchReplace(block(null, 'a', 'b')).edits[0].path).toBeUndefined();
  });

  it('drops exact duplicate edits but keeps the same SEARCH with a different REPLACE', () => {
    const out = [block('a.py', 'a', 'b'), block('a.py', 'a', 'b'), block('a.py', 'a', 'c')].join('\n');
    const { edits, duplicatesDropped } = parseSearchReplace(out);
    expect(duplicatesDropped).toBe(1);
    expect(edits.map((e) => e.replace[0])).toEqual(['b', 'c']);
    expect(edits.map((e) => e.index)).toEqual([0, 1]);
  });

  it('normalizes CRLF and trailing spaces, keeps leading indentation and inner blank lines', () => {
    const out =
      '```python\r\n### a.py  \r\n<<<<<<< SEARCH\r\n    if x:   \r\n\r\n        y()\t\r\n=======\r\n    if not x:\r\n        y()\r\n>>>>>>> REPLACE\r\n```\r\n';
    const { edits } = parseSearchReplace(out);
    expect(edits[0]).toMatchObject({ path: 'a.py', search: ['    if x:', '', '        y()'], replace: ['    if not x:', '        y()'] });
  });

  it('reads header variants', () => {
    expect(pathFromHeader('### django/db/models/query.py')).toBe('django/db/models/query.py');
    expect(pathFromHeader('# setup.py')).toBe('setup.py');
    expect(pathFromHeader('`src/x.py`:')).toBe('src/x.py');
    expect(pathFromHeader('**File:** `a/b.py`')).toBe('a/b.py');
    expect(pathFromHeader('File: a/b.py')).toBe('a/b.py');
    expect(pathFromHeader('Here is the fix:')).toBeUndefined();
    expect(pathFromHeader('e.g.')).toBeUndefined();
    expect(pathFromHeader('https://example.com/x.py')).toBeUndefined();
    expect(pathFromHeader('### Explanation')).toBeUndefined();
  });

  it('tolerates marker variants (length, indentation, case)', () => {
    const out = '### a.py\n  <<<<<<<< search\nx\n  ========\ny\n  >>>>>>>> replace\n';
    expect(parseSearchReplace(out).edits).toEqual([{ path: 'a.py', search: ['x'], replace: ['y'], index: 0 }]);
  });

  it('accepts an edit closed by a fence or the next SEARCH, drops one cut off by the end of the output', () => {
    const closedByFence = '```python\n### a.py\n<<<<<<< SEARCH\na\n=======\nb\n```\n';
    const r1 = parseSearchReplace(closedByFence);
    expect(r1.edits).toHaveLength(1);
    expect(r1.notes.join()).toMatch(/fence closed before the REPLACE marker \(accepted\)/);

    const closedBySearch = '### a.py\n<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n';
    expect(parseSearchReplace(closedBySearch).edits.map((e) => e.search[0])).toEqual(['a', 'c']);

    const truncated = `${block('a.py', 'a', 'b')}\n\`\`\`python\n### a.py\n<<<<<<< SEARCH\nc\n=======\nd`;
    const r3 = parseSearchReplace(truncated);
    expect(r3.edits).toHaveLength(1);
    expect(r3.notes.join()).toMatch(/end of the output \(dropped\)/);

    const noDivider = '### a.py\n<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n';
    expect(parseSearchReplace(noDivider).edits).toHaveLength(0);
  });

  it('returns nothing for prose, empty output and other diff formats', () => {
    expect(parseSearchReplace('').edits).toEqual([]);
    expect(parseSearchReplace('I cannot determine the fix.').edits).toEqual([]);
    expect(parseSearchReplace('```diff\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n```').edits).toEqual([]);
  });

  it('keeps a ======= line inside REPLACE as content', () => {
    const out = '### docs.py\n<<<<<<< SEARCH\nTitle\n=======\nTitle\n=======\n>>>>>>> REPLACE\n';
    expect(parseSearchReplace(out).edits[0].replace).toEqual(['Title', '=======']);
  });

  describe('`...` conventions', () => {
    it('drops leading and trailing `...` lines', () => {
      const { edits } = parseSearchReplace(block('a.py', '...\ndef f():\n    pass\n...', '...\ndef f():\n    return 1'));
      expect(edits[0]).toMatchObject({ search: ['def f():', '    pass'], replace: ['def f():', '    return 1'] });
    });

    it('reads a SEARCH of only `...` as an insertion', () => {
      const { edits } = parseSearchReplace(block('a.py', '...', 'def helper():\n    return 1'));
      expect(edits[0]).toMatchObject({ search: [], replace: ['def helper():', '    return 1'], insertOnly: true });
    });

    it('splits paired interior `...` into one edit per segment', () => {
      const { edits, notes } = parseSearchReplace(block('a.py', 'a = 1\n...\nb = 2', 'a = 10\n...\nb = 20'));
      expect(edits.map((e) => [e.search, e.replace])).toEqual([
        [['a = 1'], ['a = 10']],
        [['b = 2'], ['b = 20']],
      ]);
      expect(notes.join()).toMatch(/split into 2 edits/);
    });

    it('keeps unpaired interior `...` literally and never touches an indented Ellipsis', () => {
      expect(parseSearchReplace(block('a.py', 'a\n...\nb', 'c')).edits[0].search).toEqual(['a', '...', 'b']);
      const stub = parseSearchReplace(block('a.pyi', 'def f():\n    ...', 'def f() -> int:\n    ...'));
      expect(stub.edits[0]).toMatchObject({ search: ['def f():', '    ...'], replace: ['def f() -> int:', '    ...'] });
      expect(stub.notes).toEqual([]);
    });
  });
});

describe('parseSearchReplace on hostile output', () => {
  it('trims a line of 100k trailing spaces in linear time', () => {
    const answer = ['### pkg/a.py', '<<<<<<< SEARCH', 'x = 1' + ' '.repeat(100_000) + '\t', '=======', 'x = 2', '>>>>>>> REPLACE'].join('\n');
    const t0 = performance.now();
    const parsed = parseSearchReplace(' '.repeat(100_000) + 'x\n' + answer);
    // a /\s+$/ replace retried from every space: ~4.6 s
    expect(performance.now() - t0).toBeLessThan(300);
    expect(parsed.edits.map((e) => [e.path, e.search, e.replace])).toEqual([['pkg/a.py', ['x = 1'], ['x = 2']]]);
  });
});
