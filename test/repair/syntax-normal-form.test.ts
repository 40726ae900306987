/**
 * Majority vote in other languages than Python: the voting key comes from the syntax tree (comments and layout
 * dropped), so candidates that differ only in comments, spacing or blank lines vote together — before, Go, Rust or
 * JavaScript candidates were compared on whitespace-collapsed lines, and a comment or `a+b` vs `a + b` split them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import { normalizedKey } from '../../repair/normalize.ts';
import { syntaxAnalysis } from '../../repair/syntax-normal-form.ts';

let analyzer: PythonAnalyzer;
beforeAll(async () => {
  analyzer = await PythonAnalyzer.create();
});

const GO = `package gin

// Context carries the request.
func (c *Context) Status(code int) {
\tc.writermem.WriteHeader(code)
}
`;
const key = (path: string, before: string, after: string) => normalizedKey([{ path, before, after }], analyzer);

describe('the syntax-tree voting key', () => {
  it('Go: comments, spacing and blank lines do not split a vote; another token does', () => {
    const fix = GO.replace('c.writermem.WriteHeader(code)', 'if code > 0 {\n\t\tc.writermem.WriteHeader(code)\n\t}');
    const sameFixOtherLayout = GO.replace('c.writermem.WriteHeader(code)', '// only real codes\n\tif code>0 {\n\n\t\tc.writermem.WriteHeader( code )\n\t}');
    const otherFix = GO.replace('c.writermem.WriteHeader(code)', 'if code >= 0 {\n\t\tc.writermem.WriteHeader(code)\n\t}');
    expect(key('context.go', GO, fix)).not.toBe('');
    expect(key('context.go', GO, sameFixOtherLayout)).toBe(key('context.go', GO, fix));
    expect(key('context.go', GO, otherFix)).not.toBe(key('context.go', GO, fix));
    // a change of comments alone is no change
    expect(key('context.go', GO, GO.replace('carries the request', 'holds the request'))).toBe('');
  });

  it('Rust and JavaScript alike; a string’s content is kept', () => {
    const rs = 'fn main() {\n    let x = 1+2; // sum\n    println!("a  b");\n}\n';
    expect(syntaxAnalysis('src/main.rs', rs).lines).toEqual(['fn main ( ) {', 'let x = 1 + 2 ;', 'println ! ( " a  b " ) ;', '}']);
    const js = 'function f(a){ /* old */ return a+1 }\n';
    expect(key('lib/f.js', js, 'function f(a) {\n  return a + 1;\n}\n')).not.toBe('');
    expect(key('lib/f.js', js, 'function f(a){return a+1}\n')).toBe('');
  });

  it('a file of a language locfix does not parse keeps whitespace-collapsed lines', () => {
    expect(syntaxAnalysis('notes.txt', 'a   b\n\n  c\n').lines).toEqual(['a b', 'c']);
  });
});

describe('the analysis cache (lru-cache)', () => {
  it('keeps what was used last: a source analysed again outlives one analysed once after it', async () => {
    const small = await PythonAnalyzer.create(2);
    try {
      const a = small.analyze('a = 1\n');
      small.analyze('b = 2\n');
      expect(small.analyze('a = 1\n')).toBe(a); // used again: now the most recent
      small.analyze('c = 3\n'); // the cache is full: the least recently used (b) goes
      // before (first in, first out) a went, though it had just been used
      expect(small.analyze('a = 1\n')).toBe(a);
    } finally {
      small.dispose();
    }
  });
});
