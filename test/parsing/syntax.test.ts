import { describe, expect, it } from 'vitest';
import { syntaxProblems } from '../../src/parsing/syntax.ts';

describe('syntaxProblems', () => {
  it('reports nothing for valid code, including CRLF and multi-byte text', () => {
    expect(syntaxProblems('x = "😀 中"\r\ndef f(a, *, b=1):\r\n    return a\r\n')).toEqual([]);
    expect(syntaxProblems('')).toEqual([]);
  });

  it('reports the line of ERROR regions and MISSING tokens', () => {
    expect(syntaxProblems('import os\n\nclass A:\n    def f(self):\n        return 1 +\n')).toEqual([{ line: 5, kind: 'ERROR' }]);
    expect(syntaxProblems('def f(:\n    pass\n')).toEqual([{ line: 1, kind: 'MISSING' }]);
    expect(syntaxProblems('ok = 1\nif x\n    pass\n')).toEqual([{ line: 2, kind: 'ERROR' }]);
  });

  it('reports several independent problems in line order', () => {
    const problems = syntaxProblems('def a(:\n    pass\n\n\ndef b():\n    return (1,\n\n\nz = 3\n');
    expect(problems[0]).toEqual({ line: 1, kind: 'MISSING' });
    expect(problems.length).toBeGreaterThanOrEqual(2);
    expect(problems.map((p) => p.line)).toEqual([...problems.map((p) => p.line)].sort((x, y) => x - y));
    expect(problems.slice(1).every((p) => p.line >= 5)).toBe(true);
  });
});
