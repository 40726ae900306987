import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import { canonicalString } from '../../repair/normal-form.ts';
import { normalizedKey } from '../../repair/normalize.ts';
import { checkSyntax } from '../../repair/syntax.ts';

let analyzer: PythonAnalyzer;
beforeAll(async () => {
  analyzer = await PythonAnalyzer.create();
});
afterAll(() => analyzer.dispose());

const BASE = `"""Module docstring."""
import os


class Store:
    """A store."""

    def get(self, key, default=None):
        # look the key up
        value = self.data.get(key)
        if value is None:
            return default
        return value

    def put(self, key, value):
        self.data[key] = value


def helper(x):
    return x + 1
`;

const key = (after: string, path = 'pkg/store.py') => normalizedKey([{ path, before: BASE, after }], analyzer);
const FIX = BASE.replace('        if value is None:\n', '        if value is None or value == "":\n');

describe('normalized voting keys', () => {
  it('is empty for no change and for comment-, docstring-, blank-line- and layout-only changes', () => {
    expect(key(BASE)).toBe('');
    expect(key(BASE.replace('# look the key up', '# fetch it'))).toBe('');
    expect(key(BASE.replace('"""A store."""', '"""A key-value store.\n\n    Thread-unsafe.\n    """'))).toBe('');
    expect(key(BASE.replace('\n\n\ndef helper', '\ndef helper'))).toBe('');
    expect(key(BASE.replace('self.data.get(key)', 'self.data.get(\n            key,\n        )'))).toBe('');
    expect(key(BASE.replace('return x + 1', 'return x+1'))).toBe('');
  });

  it('lets the same fix vote together whatever its comments, quotes, spacing and line breaks', () => {
    const reference = key(FIX);
    expect(reference).not.toBe('');
    const variants = [
      BASE.replace('        if value is None:\n', "        if value is None or value == '':  # empty counts as missing\n"),
      BASE.replace('        if value is None:\n', '        if (value is None\n                or value == ""):\n').replace(
        '(value is None\n                or value == "")',
        'value is None or value == ""',
      ),
      BASE.replace('        if value is None:\n', '        # treat "" like a missing value\n        if value is None or value=="":\n'),
      BASE.replace('        if value is None:\n', '        if value is None or value == "":\n').replace(
        '"""A store."""',
        '"""A store (empty values count as missing)."""',
      ),
      BASE.replace('        if value is None:\n', '        if value is None or value == \\\n                "":\n'),
    ];
    for (const v of variants) expect(key(v)).toBe(reference);
  });

  it('keeps semantic changes apart', () => {
    const reference = key(FIX);
    expect(key(BASE.replace('        if value is None:\n', '        if value is None or value == 0:\n'))).not.toBe(reference);
    expect(key(BASE.replace('        if value is None:\n', '        if value is None or not value:\n'))).not.toBe(reference);
    expect(key(BASE.replace('            return default\n', '            return None\n'))).not.toBe(
      key(BASE.replace('            return default\n', '            return default or None\n')),
    );
    // indentation is structure in Python: moving a statement out of the block is a different patch
    const inside = BASE.replace('            return default\n', '            self.misses += 1\n            return default\n');
    const outside = BASE.replace('            return default\n', '            return default\n        self.misses += 1\n');
    expect(key(inside)).not.toBe(key(outside));
    // parentheses change meaning
    const a = BASE.replace('return x + 1', 'return (x + 1) * 2');
    const b = BASE.replace('return x + 1', 'return x + 1 * 2');
    expect(key(a)).not.toBe(key(b));
    // a trailing comma makes a tuple
    expect(key(BASE.replace('return x + 1', 'return (x + 1,)'))).not.toBe(key(BASE.replace('return x + 1', 'return (x + 1)')));
    // the same change at two different places
    expect(key(BASE.replace('        return value\n', '        return value\n\n    size = 0\n'))).not.toBe(
      key(BASE.replace('class Store:\n    """A store."""\n', 'class Store:\n    """A store."""\n    size = 0\n')),
    );
  });

  it('drops parentheses only where they cannot change the meaning', () => {
    const ret = (expr: string) => key(BASE.replace('return x + 1', `return ${expr}`));
    expect(ret('(x + 1)')).toBe(''); // a whole return value
    expect(ret('(x) + 1')).toBe(''); // an atom
    expect(ret('f((x + 1))')).toBe(ret('f(x + 1)'));
    expect(ret('(g(x)).y')).toBe(ret('g(x).y'));
    expect(ret('-(x)')).toBe(ret('-x'));
    expect(key(BASE.replace('        if value is None:\n', '        if (value is None):\n'))).toBe('');
    // operands keep them
    expect(ret('(x + 1) * 2')).not.toBe(ret('x + 1 * 2'));
    expect(ret('not (x and y)')).not.toBe(ret('not x and y'));
    expect(ret('(x if y else z) + 1')).not.toBe(ret('x if y else z + 1'));
    expect(ret('(a or b).c')).not.toBe(ret('a or b.c'));
  });

  it('lets a patch that only adds a function vote together wherever the function was inserted', () => {
    const fn = '\n\ndef clamp(x, lo, hi):\n    # keep x in range\n    return max(lo, min(x, hi))\n';
    const atEnd = BASE + fn;
    const atTop = BASE.replace('import os\n', `import os\n${fn}\n`);
    const reformatted = BASE.replace('import os\n', 'import os\n\n\ndef clamp(x,lo,hi):\n    return max(lo,\n               min(x, hi))\n\n');
    expect(key(atEnd)).not.toBe('');
    expect(key(atTop)).toBe(key(atEnd));
    expect(key(reformatted)).toBe(key(atEnd));
    // the same holds for a new method placed before or after the others
    const m = '    def size(self):\n        return len(self.data)\n\n';
    expect(key(BASE.replace('    def get(', `${m}    def get(`))).toBe(key(BASE.replace('    def put(', `${m}    def put(`)));
    // but adding a function AND changing an existing one is position-sensitive again
    expect(key(FIX + fn)).not.toBe(key(FIX.replace('import os\n', `import os\n${fn}\n`)));
  });

  it('concatenates per-file keys in path order, independent of input order', () => {
    const other = { path: 'pkg/a.py', before: 'x = 1\n', after: 'x = 2\n' };
    const mine = { path: 'pkg/store.py', before: BASE, after: FIX };
    const k1 = normalizedKey([mine, other], analyzer);
    expect(k1).toBe(normalizedKey([other, mine], analyzer));
    expect(k1.indexOf('=== pkg/a.py')).toBeLessThan(k1.indexOf('=== pkg/store.py'));
    expect(k1).not.toBe(normalizedKey([mine], analyzer));
  });

  it('normalizes non-Python files by trimmed non-blank lines', () => {
    const k = normalizedKey([{ path: 'docs/x.txt', before: 'a\n\nb\n', after: 'a\n\n  b  \n' }], analyzer);
    expect(k).toBe('');
    expect(normalizedKey([{ path: 'docs/x.txt', before: 'a\nb\n', after: 'a\nc\n' }], analyzer)).toContain('+c');
  });

  it('canonicalizes plain string quotes only', () => {
    expect(canonicalString("'abc'")).toBe('"abc"');
    expect(canonicalString('"""abc"""')).toBe('"abc"');
    expect(canonicalString("r'a b'")).toBe('r"a b"');
    expect(canonicalString("'it\\'s'")).toBe("'it\\'s'");
    expect(canonicalString("f'{x}'")).toBe("f'{x}'");
  });
});

describe('incremental analysis', () => {
  it('parsing from a previous tree and reusing statement results gives what a fresh analyzer gives', async () => {
    const pool = [
      '    x = 1',
      'def g(a):',
      '        return a',
      '    # note',
      '',
      'if y:',
      '    pass',
      'z = "é😀"',
      '  bad indent',
      'class K:',
      '    """Doc."""',
      'w = (1,',
      ')',
    ];
    const baseLines = BASE.split('\n');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: baseLines.length - 1 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.constantFrom(...pool), { maxLength: 4 }),
        async (at, del, ins) => {
          const edited = [...baseLines.slice(0, at), ...ins, ...baseLines.slice(at + del)].join('\n');
          analyzer.analyze(BASE);
          const incremental = analyzer.analyze(edited);
          const fresh = await PythonAnalyzer.create();
          try {
            const expected = fresh.analyze(edited);
            expect(incremental.lines).toEqual(expected.lines);
            expect(incremental.errorNodes).toBe(expected.errorNodes);
            expect(incremental.indentationErrors).toBe(expected.indentationErrors);
            expect([...incremental.functions]).toEqual([...expected.functions]);
          } finally {
            fresh.dispose();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('syntax check', () => {
  it('passes valid code and fails ERROR, MISSING and empty results', () => {
    expect(checkSyntax('a.py', BASE, FIX, analyzer).ok).toBe(true);
    const missing = checkSyntax('a.py', BASE, BASE.replace('def put(self, key, value):', 'def put(self, key, value:'), analyzer);
    expect(missing).toMatchObject({ ok: false, baseErrorNodes: 0 });
    expect(missing.errorNodes).toBeGreaterThan(0);
    expect(checkSyntax('a.py', BASE, BASE.replace('        return value\n', '        return value +\n'), analyzer).ok).toBe(false);
    expect(checkSyntax('a.py', BASE, BASE.replace('            return default\n', 'return default\n'), analyzer).ok).toBe(false);
    expect(checkSyntax('a.py', BASE, '\n\n', analyzer)).toMatchObject({ ok: false, detail: 'the edited file is empty' });
  });

  it('fails indentation Python rejects and tree-sitter tolerates: empty block, unexpected indent, bad dedent', () => {
    const fails = (after: string) => expect(checkSyntax('a.py', BASE, after, analyzer).ok).toBe(false);
    fails(BASE.replace('            return default\n', 'return default\n')); // empty if-block
    fails(BASE.replace('        value = self.data.get(key)\n', '        value = self.data.get(key)\n            value = value or None\n')); // unexpected indent
    fails(BASE.replace('        self.data[key] = value\n', '        self.data[key] = value\n      self.size += 1\n')); // dedent to no level
    fails(
      BASE.replace('        return value\n', '        # nothing left\n').replace(
        '        value = self.data.get(key)\n        if value is None:\n            return default\n',
        '',
      ),
    );
    const ok = (after: string) => expect(checkSyntax('a.py', BASE, after, analyzer).ok).toBe(true);
    ok(BASE.replace('        return value\n', '        return value; pass\n'));
    ok(BASE.replace('def helper(x):\n    return x + 1\n', 'def helper(x): return x + 1\n'));
    ok(BASE.replace('        return value\n', '        return (value,\n  1)\n    # odd comment\n'));
  });

  it('does not hold a base the grammar cannot parse against an edit that adds no errors', () => {
    const broken = 'x = (1,\n';
    expect(checkSyntax('a.py', broken, 'y = 2\nx = (1,\n', analyzer).ok).toBe(true);
    expect(checkSyntax('a.py', broken, 'y = (\nx = (1,\n', analyzer).ok).toBe(false);
  });

  it('does not parse other languages', () => {
    expect(checkSyntax('README.md', 'a', 'b (', analyzer)).toMatchObject({ ok: true, detail: 'unchecked' });
  });
});
