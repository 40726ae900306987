import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyEdits, reindent, resolveShownPath } from '../../repair/apply.ts';
import { splitLines } from '../../repair/context.ts';
import { diffHunks, fileDiff, gitApplyCheck, prefixPatchPaths, unifiedDiff } from '../../repair/diff.ts';
import { parseSearchReplace } from '../../repair/search-replace.ts';
import type { SearchReplaceEdit, ShownFile } from '../../repair/types.ts';

const SOURCE = `import os


class Greeter:
    """Says hello."""

    def __init__(self, name):
        self.name = name

    def greet(self):
        if self.name:
            return "hello " + self.name
        return "hello"


def main():
    print(Greeter("x").greet())
`;

const all = (content: string): ShownFile => ({ path: 'pkg/greet.py', content, intervals: [{ start: 1, end: splitLines(content).length }] });
const edit = (search: string[], replace: string[], p: string | undefined = 'pkg/greet.py', index = 0): SearchReplaceEdit => ({
  path: p,
  search,
  replace,
  index,
});

describe('applyEdits', () => {
  it('replaces an exact whole-line match and keeps everything else byte for byte', () => {
    const r = applyEdits([edit(['        return "hello"'], ['        return "hello, stranger"'])], [all(SOURCE)]);
    expect(r.failures).toEqual([]);
    expect(r.applied).toEqual([{ editIndex: 0, path: 'pkg/greet.py', line: 13, matchedLines: 1, how: 'exact', otherMatches: 0 }]);
    expect(r.changed.get('pkg/greet.py')).toBe(SOURCE.replace('return "hello"\n', 'return "hello, stranger"\n'));
  });

  it('matches whole lines only, never a substring of a line', () => {
    const r = applyEdits([edit(['return "hello"'], ['return 1'])], [all(SOURCE)]);
    // only the whitespace-tolerant stage can match it, and then the file's indentation is kept
    expect(r.applied[0].how).toBe('indentation');
    expect(r.changed.get('pkg/greet.py')).toContain('\n        return 1\n');
  });

  it('falls back to indentation-insensitive matching and re-indents the replacement', () => {
    const search = ['def greet(self):', '    if self.name:', '        return "hello " + self.name'];
    const replace = ['def greet(self):', '    if self.name is not None:', '        return "hello " + self.name'];
    const r = applyEdits([edit(search, replace)], [all(SOURCE)]);
    expect(r.applied[0].how).toBe('indentation');
    expect(r.changed.get('pkg/greet.py')).toContain('    def greet(self):\n        if self.name is not None:\n            return "hello " + self.name\n');
  });

  it('re-indents in both directions and keeps blank lines empty', () => {
    expect(reindent(['x', '', '    y'], '  a', '      a')).toEqual(['    x', '', '        y']);
    expect(reindent(['        x', '', '            y', 'z'], '        a', '    a')).toEqual(['    x', '', '        y', 'z']);
    expect(reindent(['\tx'], '\ta', '    a')).toEqual(['    x']);
  });

  it('tolerates blank lines at the edges of SEARCH and blank-line differences inside it', () => {
    const r1 = applyEdits(
      [edit(['', '    def __init__(self, name):', '        self.name = name', ''], ['    def __init__(self, name):', '        self.name = name.strip()'])],
      [all(SOURCE)],
    );
    expect(r1.applied[0].how).toBe('exact');
    expect(r1.changed.get('pkg/greet.py')).toContain('self.name = name.strip()\n\n    def greet');

    const r2 = applyEdits(
      [edit(['        self.name = name', '    def greet(self):'], ['        self.name = name', '', '    def greet(self, loud=False):'])],
      [all(SOURCE)],
    );
    expect(r2.applied[0].how).toBe('ignoring-blank-lines');
    expect(r2.changed.get('pkg/greet.py')).toContain('        self.name = name\n\n    def greet(self, loud=False):\n');
  });

  it('only matches inside the shown intervals and says when SEARCH exists elsewhere', () => {
    const shown: ShownFile = { path: 'pkg/greet.py', content: SOURCE, intervals: [{ start: 10, end: 13 }] };
    const outside = applyEdits([edit(['def main():'], ['def main(argv=None):'])], [shown]);
    expect(outside.failures).toEqual([expect.objectContaining({ kind: 'outside-shown-lines', path: 'pkg/greet.py' })]);
    const inside = applyEdits([edit(['        return "hello"'], ['        return ""'])], [shown]);
    expect(inside.failures).toEqual([]);
    const nowhere = applyEdits([edit(['    return None'], ['    return 0'])], [shown]);
    expect(nowhere.failures[0].kind).toBe('no-match');
  });

  it('picks the first match inside the shown lines and counts the others', () => {
    const content = 'a = 1\nx = 0\nb = 2\nx = 0\nc = 3\nx = 0\n';
    const r = applyEdits([edit(['x = 0'], ['x = 9'], 'f.py')], [{ path: 'f.py', content, intervals: [{ start: 3, end: 6 }] }]);
    expect(r.applied[0]).toMatchObject({ line: 4, otherMatches: 1 });
    expect(r.changed.get('f.py')).toBe('a = 1\nx = 0\nb = 2\nx = 9\nc = 3\nx = 0\n');
  });

  it('rejects and records edits to files that were not shown, and edits without a path when several files were shown', () => {
    const other: ShownFile = { path: 'pkg/other.py', content: 'y = 1\n', intervals: [{ start: 1, end: 1 }] };
    const r = applyEdits([edit(['x'], ['y'], 'pkg/secret.py', 0), { path: undefined, search: ['y = 1'], replace: ['y = 2'], index: 1 }], [all(SOURCE), other]);
    expect(r.failures.map((f) => [f.editIndex, f.kind])).toEqual([
      [0, 'file-not-shown'],
      [1, 'no-path'],
    ]);
    expect(r.changed.size).toBe(0);
    // with one shown file, a missing path means that file
    const single = applyEdits([{ path: undefined, search: ['y = 1'], replace: ['y = 2'], index: 0 }], [other]);
    expect(single.changed.get('pkg/other.py')).toBe('y = 2\n');
  });

  it('resolves decorated and partial paths onto the shown files', () => {
    const shown = ['django/db/models/query.py', 'django/db/models/sql/query.py', 'setup.py'];
    expect(resolveShownPath('./setup.py', shown)).toBe('setup.py');
    expect(resolveShownPath('a/setup.py', shown)).toBe('setup.py');
    expect(resolveShownPath('/testbed/setup.py', shown)).toBe('setup.py');
    expect(resolveShownPath('sql/query.py', shown)).toBe('django/db/models/sql/query.py');
    expect(resolveShownPath('query.py', shown)).toBeUndefined(); // two candidates
    expect(resolveShownPath('nope.py', shown)).toBeUndefined();
  });

  it('rejects an empty SEARCH', () => {
    expect(applyEdits([edit(['', '  '], ['x = 1'])], [all(SOURCE)]).failures[0].kind).toBe('empty-search');
  });

  it('applies edits in order, each on the result of the previous, and a later edit can match inserted lines', () => {
    const r = applyEdits(
      [edit(['import os'], ['import os', 'import sys'], 'pkg/greet.py', 0), edit(['import sys'], ['import sys  # for argv'], 'pkg/greet.py', 1)],
      [{ ...all(SOURCE), intervals: [{ start: 1, end: 1 }] }],
    );
    expect(r.failures).toEqual([]);
    expect(r.changed.get('pkg/greet.py')!.startsWith('import os\nimport sys  # for argv\n\n\nclass Greeter:')).toBe(true);
  });

  it('inserts for a `...`-only SEARCH before the first unindented unique shown line', () => {
    const parsed = parseSearchReplace('### pkg/greet.py\n<<<<<<< SEARCH\n...\n=======\ndef helper():\n    return 1\n>>>>>>> REPLACE\n');
    const shown: ShownFile = { path: 'pkg/greet.py', content: SOURCE, intervals: [{ start: 13, end: 17 }] };
    const r = applyEdits(parsed.edits, [shown]);
    expect(r.applied[0].how).toBe('insert');
    expect(r.changed.get('pkg/greet.py')).toContain('        return "hello"\n\n\ndef helper():\n    return 1\n\ndef main():\n');
    const indented = parseSearchReplace('### pkg/greet.py\n<<<<<<< SEARCH\n...\n=======\n    x = 1\n>>>>>>> REPLACE\n');
    expect(applyEdits(indented.edits, [shown]).failures[0].kind).toBe('no-match');
  });

  it('keeps the final-newline state and adds no stray newlines when deleting or inserting at the edges', () => {
    const noFinal = 'a\nb\nc';
    expect(applyEdits([edit(['c'], ['c', 'd'], 'f.py')], [{ path: 'f.py', content: noFinal, intervals: [{ start: 1, end: 3 }] }]).changed.get('f.py')).toBe(
      'a\nb\nc\nd',
    );
    expect(applyEdits([edit(['a'], [], 'f.py')], [{ path: 'f.py', content: 'a\nb\n', intervals: [{ start: 1, end: 2 }] }]).changed.get('f.py')).toBe('b\n');
    expect(applyEdits([edit(['a', 'b'], [], 'f.py')], [{ path: 'f.py', content: 'a\nb\n', intervals: [{ start: 1, end: 2 }] }]).changed.get('f.py')).toBe('');
    expect(applyEdits([edit(['b'], ['b', ''], 'f.py')], [{ path: 'f.py', content: 'a\nb\n', intervals: [{ start: 1, end: 2 }] }]).changed.get('f.py')).toBe(
      'a\nb\n\n',
    );
  });

  it('matches CRLF files and keeps their line ends in inserted lines', () => {
    const crlf = 'def f():\r\n    return 1\r\n\r\nx = f()\r\n';
    const r = applyEdits(
      [edit(['def f():', '    return 1'], ['def f():', '    # one', '    return 1'], 'c.py')],
      [{ path: 'c.py', content: crlf, intervals: [{ start: 1, end: 4 }] }],
    );
    expect(r.applied[0].how).toBe('exact');
    expect(r.changed.get('c.py')).toBe('def f():\r\n    # one\r\n    return 1\r\n\r\nx = f()\r\n');
    const patch = fileDiff('c.py', crlf, r.changed.get('c.py')!);
    expect(applyPatch(crlf, patch)).toBe(r.changed.get('c.py'));
  });

  it('reports an applied edit that changes nothing as touched but not changed', () => {
    const r = applyEdits([edit(['import os'], ['import os'])], [all(SOURCE)]);
    expect(r.applied).toHaveLength(1);
    expect(r.changed.size).toBe(0);
    expect(r.touched.get('pkg/greet.py')).toBe(SOURCE);
  });
});

// ---------------------------------------------------------------------------------------------------------
// properties

const lineArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 6,
    arbitrary: fc.tuple(fc.constantFrom('', '    ', '        ', '\t'), fc.stringMatching(/^[a-z0-9_=()+ .:'"#-]{1,20}$/)).map(([i, s]) => i + s.trim()),
  },
);
const contentArb = fc
  .tuple(fc.array(lineArb, { maxLength: 30 }), fc.boolean())
  .map(([lines, finalNl]) => lines.join('\n') + (finalNl && lines.length ? '\n' : ''));

describe('diff properties', () => {
  it('applying the generated diff to the original reproduces the edited file exactly (jsdiff applyPatch)', () => {
    fc.assert(
      fc.property(contentArb, contentArb, (before, after) => {
        const patch = fileDiff('pkg/x.py', before, after);
        if (before === after) return patch === '';
        expect(patch.startsWith('diff --git a/pkg/x.py b/pkg/x.py\n--- a/pkg/x.py\n+++ b/pkg/x.py\n@@ ')).toBe(true);
        expect(applyPatch(before, patch)).toBe(after);
        return true;
      }),
      { numRuns: 500 },
    );
  });

  it('applied edits equal the plain splice, and their diff reproduces them (unique lines)', () => {
    const fileArb = fc
      .tuple(fc.array(lineArb, { minLength: 1, maxLength: 40 }), fc.boolean())
      .map(([lines, finalNl]) => ({ lines: lines.map((l, i) => (l === '' ? '' : `${l} #${i}`)), finalNl }));
    fc.assert(
      fc.property(
        fileArb.chain((f) =>
          fc.record({
            f: fc.constant(f),
            start: fc.integer({ min: 0, max: f.lines.length - 1 }),
            len: fc.integer({ min: 1, max: 5 }),
            replace: fc.array(lineArb, { maxLength: 6 }),
          }),
        ),
        ({ f, start, len, replace }) => {
          const end = Math.min(f.lines.length, start + len);
          const search = f.lines.slice(start, end);
          // blank lines at SEARCH edges are matched leniently (tested above); here SEARCH is taken verbatim
          fc.pre(search[0].trim() !== '' && search[search.length - 1].trim() !== '');
          // a last empty line without a final newline is not a line (the content would read the same with one)
          fc.pre(f.finalNl || f.lines[f.lines.length - 1] !== '');
          const content = f.lines.join('\n') + (f.finalNl ? '\n' : '');
          const r = applyEdits([{ path: 'x.py', search, replace, index: 0 }], [{ path: 'x.py', content, intervals: [{ start: 1, end: f.lines.length }] }]);
          const expectedLines = [...f.lines.slice(0, start), ...replace, ...f.lines.slice(end)];
          const expected = expectedLines.join('\n') + (f.finalNl && expectedLines.length ? '\n' : '');
          expect(r.failures).toEqual([]);
          const after = r.touched.get('x.py')!;
          expect(after).toBe(expected);
          if (after !== content) expect(applyPatch(content, unifiedDiff([{ path: 'x.py', before: content, after }]))).toBe(after);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('diffs only the changed window of large files, with correct line numbers', () => {
    const big = Array.from({ length: 400 }, (_, i) => `line ${i % 7 === 0 ? 'same' : i}`);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 399 }),
        fc.integer({ min: 0, max: 6 }),
        fc.array(lineArb, { maxLength: 6 }),
        fc.boolean(),
        (at, del, ins, finalNl) => {
          const after = [...big.slice(0, at), ...ins, ...big.slice(at + del)];
          const before = big.join('\n') + (finalNl ? '\n' : '');
          const afterText = after.join('\n') + (finalNl && after.length ? '\n' : '');
          const patch = fileDiff('big.py', before, afterText);
          if (before === afterText) return;
          expect(applyPatch(before, patch)).toBe(afterText);
          const first = diffHunks(before, afterText)[0];
          expect(first.oldStart).toBeGreaterThanOrEqual(Math.max(1, at - 3) - 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('moves patch paths under a prefix without touching hunk lines that look like headers', () => {
    const before = 'x\n-- a/evil\n++ b/evil\ny\n';
    const after = 'x\ny\nz';
    const patch = fileDiff('pkg/a.py', before, after);
    const moved = prefixPatchPaths(patch, 'p3');
    expect(moved).toContain('diff --git a/p3/pkg/a.py b/p3/pkg/a.py\n--- a/p3/pkg/a.py\n+++ b/p3/pkg/a.py\n');
    expect(moved).toContain('\n--- a/evil\n-++ b/evil\n');
    expect(applyPatch(before, moved.replaceAll('p3/', ''))).toBe(after);
  });

  it('real `git apply` reproduces the edited files, over several files at once', async () => {
    const samples = fc.sample(fc.tuple(contentArb, contentArb, contentArb, contentArb), { numRuns: 12, seed: 7 });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'locfix-repair-gitapply-'));
    try {
      for (const [i, [a0, a1, b0, b1]] of samples.entries()) {
        const work = path.join(dir, String(i));
        execFileSync('mkdir', ['-p', path.join(work, 'pkg/sub')]);
        execFileSync('git', ['init', '-q', work]);
        writeFileSync(path.join(work, 'pkg/a.py'), a0);
        writeFileSync(path.join(work, 'pkg/sub/b.py'), b0);
        const patch = unifiedDiff([
          { path: 'pkg/sub/b.py', before: b0, after: b1 },
          { path: 'pkg/a.py', before: a0, after: a1 },
        ]);
        if (patch === '') continue;
        writeFileSync(path.join(dir, `${i}.patch`), patch);
        const base = new Map([
          ['pkg/a.py', a0],
          ['pkg/sub/b.py', b0],
        ]);
        expect(await gitApplyCheck(base, [patch])).toEqual([{ ok: true }]);
        execFileSync('git', ['apply', path.join(dir, `${i}.patch`)], { cwd: work, stdio: 'pipe' });
        expect(readFileSync(path.join(work, 'pkg/a.py'), 'utf8')).toBe(a1);
        expect(readFileSync(path.join(work, 'pkg/sub/b.py'), 'utf8')).toBe(b1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('git apply --check rejects a diff against a different base, per patch, in input order', async () => {
    const good = fileDiff('a.py', 'x = 1\n', 'x = 2\n');
    const bad = fileDiff('a.py', 'x = 5\n', 'x = 6\n');
    const checks = await gitApplyCheck(new Map([['a.py', 'x = 1\n']]), [bad, '', good, bad]);
    expect(checks.map((c) => c.ok)).toEqual([false, true, true, false]);
    expect(checks[0].message).toMatch(/patch does not apply|patch failed/);
  });
});
