/**
 * The oracle's rules (localizer/oracle/gold-locations.ts), per language: a change in a function names that
 * function, a change at module level or in a class body outside methods names its lines, and the line oracle
 * is the changed lines themselves (for an insertion, the lines on both sides of it).
 */
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { goldEditLocationSet, goldLocations, rangesOf } from '../../localizer/oracle/gold-locations.ts';

/** A git-style patch of one file from its old and new text. */
function gitPatch(path: string, before: string, after: string): string {
  const body = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: 3 });
  return `diff --git a/${path} b/${path}\n${body.split('\n').slice(2).join('\n')}`;
}

function derive(path: string, before: string, after: string) {
  return goldLocations(gitPatch(path, before, after), (p) => (p === path ? before : undefined));
}

const PY = [
  'import os', //  1
  'LIMIT = 3', //  2
  '', //  3
  'class Box:', //  4
  '    size = 1', //  5
  '', //  6
  '    def grow(self, n):', //  7
  '        self.size += n', //  8
  '        return self.size', //  9
  '', // 10
  'def helper(x):', // 11
  '    return x * 2', // 12
  '',
].join('\n');

describe('the gold patch as oracle locations', () => {
  it('Python: a method, a class body and module level', () => {
    const after = PY.replace('LIMIT = 3', 'LIMIT = 4').replace('    size = 1', '    size = 2').replace('self.size += n', 'self.size += 2 * n');
    const gold = derive('pkg/box.py', PY, after);
    expect(gold.files).toHaveLength(1);
    const file = gold.files[0]!;
    expect(file.locations).toEqual(['function: Box.grow', 'line: 2', 'line: 5']);
    expect(file.lines).toEqual([
      { start: 2, end: 2 },
      { start: 5, end: 5 },
      { start: 8, end: 8 },
    ]);
    expect(file.rules).toEqual({ function: 1, 'class-body': 1, module: 1 });
    // what the function level shows of a named function is the whole function
    expect(file.functionRanges).toEqual({ 'Box.grow': { start: 7, end: 9 } });
    expect(gold.elements.map((e) => e.name).sort()).toEqual(['<module>', 'Box', 'Box.grow']);
  });

  it('an insertion at the end of a function body belongs to the function; its lines are both sides of the point', () => {
    const after = PY.replace('    return x * 2\n', '    return x * 2\n    # unreachable\n');
    const file = derive('m.py', PY, after).files[0]!;
    expect(file.locations).toEqual(['function: helper']);
    // at the end of the file there is no line after the point
    expect(file.lines).toEqual([{ start: 12, end: 12 }]);
    const inside = derive('m.py', PY, PY.replace('        self.size += n\n', '        self.size += n\n        self.size -= 0\n')).files[0]!;
    expect(inside.locations).toEqual(['function: Box.grow']);
    expect(inside.lines).toEqual([{ start: 8, end: 9 }]);
  });

  it('a new method inserted between two, or right before a def, is in the class body, not in its neighbour', () => {
    const between = PY.replace('\n    def grow(self, n):', '\n    def shrink(self):\n        return 0\n\n    def grow(self, n):');
    const file = derive('m.py', PY, between).files[0]!;
    expect(file.rules).toEqual({ 'class-body': 1 });
    expect(file.locations.every((l) => l.startsWith('line: '))).toBe(true);
    // appended after the last method at the method's own indentation: a new method, not the old one's body
    const appended = PY.replace('        return self.size\n', '        return self.size\n    def twice(self):\n        return 2\n');
    expect(derive('m.py', PY, appended).files[0]!.rules).toEqual({ 'class-body': 1 });
  });

  it('Go: a method of a struct', () => {
    const go = ['package s', '', 'type S struct{ n int }', '', 'func (s *S) Add(k int) int {', '\ts.n += k', '\treturn s.n', '}', ''].join('\n');
    const file = derive('s/s.go', go, go.replace('s.n += k', 's.n += 2 * k')).files[0]!;
    expect(file.locations).toHaveLength(1);
    expect(file.locations[0]).toMatch(/^function: (S\.)?Add$/);
    expect(file.lines).toEqual([{ start: 6, end: 6 }]);
  });

  it('Java: a method inside a class', () => {
    const java = [
      'package a;',
      '',
      'public class Counter {',
      '  private int n;',
      '',
      '  public int next() {',
      '    n = n + 1;',
      '    return n;',
      '  }',
      '}',
      '',
    ].join('\n');
    const file = derive('src/Counter.java', java, java.replace('n = n + 1;', 'n = n + 2;')).files[0]!;
    expect(file.locations).toEqual(['function: Counter.next']);
    expect(file.rules).toEqual({ function: 1 });
  });

  it('JavaScript: a function; Rust: a function; C: a function', () => {
    const js = ['export function area(r) {', '  return 3 * r * r;', '}', ''].join('\n');
    expect(derive('lib/area.js', js, js.replace('3 * r', 'Math.PI * r')).files[0]!.locations).toEqual(['function: area']);
    const rs = ['pub fn double(x: i32) -> i32 {', '    x + x', '}', ''].join('\n');
    expect(derive('src/lib.rs', rs, rs.replace('x + x', 'x * 2')).files[0]!.locations).toEqual(['function: double']);
    const c = ['#include <stdio.h>', '', 'int twice(int x) {', '  return x + x;', '}', ''].join('\n');
    expect(derive('src/twice.c', c, c.replace('x + x', 'x * 2')).files[0]!.locations).toEqual(['function: twice']);
  });

  it('a file no language parses is placed by its lines', () => {
    const text = 'a\nb\nc\n';
    const file = derive('docs/notes.txt', text, 'a\nB\nc\n').files[0]!;
    expect(file.locations).toEqual(['line: 2']);
    expect(file.rules).toEqual({ 'no-grammar': 1 });
  });

  it('new files are unplaced, unreadable ones say so, and the line oracle is one location set', () => {
    const added = 'diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n';
    const both = added + gitPatch('pkg/box.py', PY, PY.replace('LIMIT = 3', 'LIMIT = 4'));
    const gold = goldLocations(both, (p) => (p === 'pkg/box.py' ? PY : undefined));
    expect(gold.unplaced).toEqual([{ path: 'new.py', reason: 'a new file: absent at the base commit' }]);
    expect(goldEditLocationSet(gold)).toEqual({ files: [{ path: 'pkg/box.py', ranges: [{ start: 2, end: 2 }], elements: ['line: 2'] }] });
    const unreadable = goldLocations(both, () => undefined);
    expect(unreadable.files).toEqual([]);
    expect(unreadable.unplaced.map((u) => u.reason)).toContain('not readable at the base commit');
  });

  it('ranges merge consecutive lines', () => {
    expect(rangesOf([5, 3, 4, 9, 9])).toEqual([
      { start: 3, end: 5 },
      { start: 9, end: 9 },
    ]);
  });
});
