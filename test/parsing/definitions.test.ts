import { describe, expect, it } from 'vitest';
import { newParser } from '../../src/parsing/parsers.ts';
import { extractDefinitions, extractFileSymbols } from '../../src/parsing/definitions.ts';
import { parserFor } from '../../src/parsing/parsers.ts';

const SOURCE = `"""Helpers."""
import typing

VERSION = "1.0"
a, (b, *rest) = 1, (2, 3)
x = y = None
obj.attr = 5
TIMEOUT: float = 3.0
counter += 1

if typing.TYPE_CHECKING:
    Alias = int

    def typed_only() -> None:
        pass
else:
    Alias = str


@decorator
@other.decorator(1)
def top(a, b=2):
    def closure():
        return a
    return closure


class Base:
    LIMIT = 3

    class Meta:
        ordering = ["id"]

        def configure(self):
            pass

    @property
    def name(self):
        return "base"

    async def fetch(self):
        class Local:
            pass
        return Local

    try:
        import json

        def dumps(self, value):
            return json.dumps(value)
    except ImportError:
        pass
`;

describe('extractDefinitions', () => {
  it('finds classes, functions and methods with qualified names and decorator-inclusive ranges', () => {
    const defs = extractDefinitions('pkg/helpers.py', SOURCE);
    expect(defs.map((d) => [d.qualifiedName, d.name, d.kind, d.startLine, d.endLine])).toEqual([
      ['typed_only', 'typed_only', 'function', 14, 15],
      ['top', 'top', 'function', 20, 25],
      ['Base', 'Base', 'class', 28, 52],
      ['Base.Meta', 'Meta', 'class', 31, 35],
      ['Base.Meta.configure', 'configure', 'method', 34, 35],
      ['Base.name', 'name', 'method', 37, 39],
      ['Base.fetch', 'fetch', 'method', 41, 44],
      ['Base.dumps', 'dumps', 'method', 49, 50],
    ]);
    expect(defs.every((d) => d.path === 'pkg/helpers.py')).toBe(true);
  });

  it('lists module-level assigned names separately, with their statement lines', () => {
    const { assignments } = extractFileSymbols('pkg/helpers.py', SOURCE);
    expect(assignments.map((a) => [a.name, a.startLine, a.endLine])).toEqual([
      ['VERSION', 4, 4],
      ['a', 5, 5],
      ['b', 5, 5],
      ['rest', 5, 5],
      ['x', 6, 6],
      ['y', 6, 6],
      ['TIMEOUT', 8, 8],
      ['Alias', 12, 12],
      ['Alias', 17, 17],
    ]);
  });

  it('accepts an explicit parser and survives broken code', async () => {
    const parser = newParser('python');
    const defs = extractDefinitions('broken.py', 'def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    pass\n', parser);
    expect(defs.find((d) => d.name === 'ok')).toMatchObject({ startLine: 1, endLine: 2, kind: 'function' });
    expect(extractDefinitions('empty.py', '', parser)).toEqual([]);
    parser.delete();
  });

  it('counts lines correctly after multi-byte characters and with CRLF', () => {
    const source = '# ü 😀 中\r\nS = "😀😀"\r\n\r\nclass K:\r\n    def m(self):\r\n        return "€"\r\n';
    expect(extractDefinitions('k.py', source).map((d) => [d.qualifiedName, d.startLine, d.endLine])).toEqual([
      ['K', 4, 6],
      ['K.m', 5, 6],
    ]);
  });
});

describe('analyzeFileSync', () => {
  it('returns the same chunks and symbols as the separate calls, from one parse', async () => {
    const { analyzeFileSync } = await import('../../src/parsing/analyze.ts');
    const { chunkFileSync } = await import('../../src/parsing/chunker.ts');
    const parser = parserFor('python');
    const analysis = analyzeFileSync(parser, 'pkg/helpers.py', SOURCE, { maxChars: 300 });
    expect(analysis.chunks).toEqual(chunkFileSync(parser, 'pkg/helpers.py', SOURCE, { maxChars: 300 }));
    expect(analysis.chunks.length).toBeGreaterThan(2);
    expect({ definitions: analysis.definitions, assignments: analysis.assignments }).toEqual(extractFileSymbols('pkg/helpers.py', SOURCE, parser));
    expect(analyzeFileSync(parser, 'e.py', '')).toEqual({ chunks: [], definitions: [], assignments: [] });
  });
});
