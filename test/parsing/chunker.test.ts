import { describe, expect, it } from 'vitest';
import { chunkFile, chunkFileSync, chunkPathLine } from '../../src/parsing/chunker.ts';
import { parserFor } from '../../src/parsing/parsers.ts';
import type { CodeChunk } from '../../src/parsing/types.ts';

const PATH = 'pkg/sub/mod.py';

function ranges(chunks: CodeChunk[]): Array<[number, number]> {
  return chunks.map((c) => [c.startLine, c.endLine]);
}

/** code part of a chunk (without the path line) */
function code(chunk: CodeChunk): string {
  return chunk.text.slice(chunk.text.indexOf('\n') + 1);
}

const DECORATED = `"""Module docstring."""
import functools

CONSTANT = 3


# Caching helpers below.
@functools.lru_cache(maxsize=None)
@staticmethod
def cached(value):
    return value * CONSTANT


def plain(a, b):
    return a + b


class Outer:
    """Outer docs."""

    class Inner:
        def method(self):
            return 1

        @property
        def name(self):
            return "inner"

    async def fetch(self, url):
        async with session(url) as resp:
            return await resp.read()


if __name__ == "__main__":
    plain(1, 2)
`;

const BETWEEN = `import os
import sys

LIMIT = 10

def first():
    return 1

x = first()
y = [
    1,
    2,
]

def second():
    return 2

print(x, y)
`;

const BROKEN = `def ok():
    return 1

def broken(:
    x = (1,
    return x

class Fine:
    def m(self):
        return 2
`;

/** a split block ending in comments (found on django/db/models/sql/query.py) */
const TRAILING_COMMENTS = `def update(self, items):
    for table, votes in items:
        if votes > 1:
            promote(table)
        if self.connector == AND or (
            self.connector == OR and votes == self.count
        ):
            demote(table)
        # closing remark one, about the demotion above
        # closing remark two, about the demotion above
    finish(items)
`;

/** comments that make a small statement too big (found on django/db/models/sql/compiler.py) */
const LEADING_COMMENTS = `def compile_group_by(self):
    # Some examples of what the grouping contains, in long comments:
    #     SomeModel.objects.annotate(Count('somecol'))
    #     GROUP BY: all fields of the model
    #     SomeModel.objects.values('name').annotate(Count('x'))
    if self.group_by is None:
        return []
    return list(self.group_by)
`;

const TABS = 'class T:\n\tdef a(self):\n\t\treturn 1\n\n\tdef b(self):\n\t\tif self:\n\t\t\treturn 2\n\t\treturn 3\n';

/** 300 body lines of exactly 29 characters each */
function bigFunction(): string {
  const body: string[] = [];
  for (let i = 0; i < 300; i++) body.push(`    value_${String(i).padStart(3, '0')} = compute_(${String(i).padStart(3, '0')})`);
  expect(body.every((l) => l.length === 29)).toBe(true);
  return `def big(a, b):\n${body.join('\n')}\n`;
}

/** class header + 40 two-line methods separated by blank lines */
function registryClass(): string {
  const methods: string[] = [];
  for (let i = 0; i < 40; i++) {
    const n = String(i).padStart(2, '0');
    methods.push(`    def get_${n}(self):\n        return self.items[${n}]`);
  }
  return `class Registry:\n${methods.join('\n\n')}\n`;
}

describe('chunkFile', () => {
  it('keeps decorators and the comment above with their function; splits nested classes at members', async () => {
    const chunks = await chunkFile(PATH, DECORATED, { maxChars: 120 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.kind, c.symbol])).toEqual([
      [1, 4, 'module', undefined],
      [7, 11, 'function_definition', 'cached'],
      [14, 15, 'function_definition', 'plain'],
      [18, 19, 'class_definition', 'Outer'],
      [21, 23, 'class_definition,function_definition', 'Outer.Inner'],
      [25, 27, 'function_definition', 'Outer.Inner.name'],
      [29, 31, 'function_definition', 'Outer.fetch'],
      [34, 35, 'module', undefined],
    ]);
    expect(chunks[1].text).toBe(
      '# file: pkg/sub/mod.py\n# Caching helpers below.\n@functools.lru_cache(maxsize=None)\n@staticmethod\ndef cached(value):\n    return value * CONSTANT',
    );
  });

  it('merges a small file into one chunk at the default size', async () => {
    const chunks = await chunkFile(PATH, DECORATED);
    expect(ranges(chunks)).toEqual([[1, 35]]);
    expect(chunks[0].kind).toBe('module,function_definition,class_definition');
    expect(chunks[0].symbol).toBeUndefined();
    expect(chunks[0].text.split('\n')[0]).toBe('# file: pkg/sub/mod.py');
    expect(chunkPathLine(PATH)).toBe('# file: pkg/sub/mod.py');
  });

  it('merges module-level code between definitions until the next unit would not fit', async () => {
    const chunks = await chunkFile(PATH, BETWEEN, { maxChars: 60 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.kind])).toEqual([
      [1, 7, 'module,function_definition'],
      [9, 13, 'module'],
      [15, 18, 'function_definition,module'],
    ]);
    expect(chunks.every((c) => code(c).length <= 60)).toBe(true);
  });

  it('splits a 300-line function into statement runs with the signature in the first one', async () => {
    const chunks = await chunkFile(PATH, bigFunction());
    // header (15 chars with its line break) + 49 lines of 30 → 1484; then 50 lines of 30 − 1 = 1499
    expect(ranges(chunks)).toEqual([
      [1, 50],
      [51, 100],
      [101, 150],
      [151, 200],
      [201, 250],
      [251, 300],
      [301, 301],
    ]);
    expect(chunks.every((c) => c.symbol === 'big' && c.kind === 'function_definition')).toBe(true);
    expect(code(chunks[0]).startsWith('def big(a, b):\n    value_000 = compute_(000)')).toBe(true);
    expect(chunks.every((c) => code(c).length <= 1500)).toBe(true);
  });

  it('packs a class with many small methods, header in the first chunk', async () => {
    const chunks = await chunkFile(PATH, registryClass());
    // 15 + 1 + 51 for the header and first method, +53 per further method: 28 methods fit (1498)
    expect(chunks.map((c) => [c.startLine, c.endLine, c.kind, c.symbol])).toEqual([
      [1, 84, 'class_definition,function_definition', 'Registry'],
      [86, 120, 'function_definition', 'Registry'],
    ]);
  });

  it('splits oversized compound statements at their clauses, keeping each clause header', async () => {
    const branch = (name: string) => Array.from({ length: 4 }, (_, i) => `        ${name}_${i} = handle_${name}(${i})`).join('\n');
    const source = `async def run(flag):\n    if flag:\n${branch('yes')}\n    elif other(flag):\n${branch('maybe')}\n    else:\n${branch('no')}\n    return None\n`;
    const chunks = await chunkFile(PATH, source, { maxChars: 160 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.kind])).toEqual([
      [1, 6, 'function_definition,if_statement'],
      [7, 11, 'if_statement'],
      [12, 16, 'if_statement'],
      [17, 17, 'function_definition'],
    ]);
    expect(code(chunks[1]).split('\n')[0]).toBe('    elif other(flag):');
    expect(code(chunks[2]).split('\n')[0]).toBe('    else:');
    expect(chunks.every((c) => c.symbol === 'run')).toBe(true);
  });

  it('chunks around syntax errors without throwing, grouping ERROR regions by lines', async () => {
    const small = await chunkFile(PATH, BROKEN, { maxChars: 40 });
    expect(small.map((c) => [c.startLine, c.endLine, c.kind])).toEqual([
      [1, 2, 'function_definition'],
      [4, 6, 'ERROR'],
      [8, 9, 'ERROR'],
      [10, 10, 'ERROR'],
    ]);
    const whole = await chunkFile(PATH, BROKEN);
    expect(ranges(whole)).toEqual([[1, 10]]);
    const garbage = await chunkFile(PATH, ')))(((\n:::\n]]] def\n', { maxChars: 8 });
    expect(ranges(garbage)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('gets line numbers right after multi-byte characters and U+FFFD from non-UTF-8 bytes', async () => {
    const bytes = Buffer.concat([
      Buffer.from('# caf'),
      Buffer.from([0xe9, 0xff, 0xfe]), // Latin-1 "é" and garbage, invalid as UTF-8
      Buffer.from('\nGREETING = "😀😀 中文 ok"\n\n\ndef f():\n    return "€ 😀"\n\n\ndef g():\n    return 2\n'),
    ]);
    const source = new TextDecoder('utf-8').decode(bytes);
    expect(source).toContain('\uFFFD');
    const chunks = await chunkFile(PATH, source, { maxChars: 40 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.symbol])).toEqual([
      [1, 2, undefined],
      [5, 6, 'f'],
      [9, 10, 'g'],
    ]);
    expect(code(chunks[1])).toBe('def f():\n    return "€ 😀"');
  });

  it('treats CRLF files like LF files and drops the CRs from chunk text', async () => {
    const lf = await chunkFile(PATH, DECORATED, { maxChars: 120 });
    const crlf = await chunkFile(PATH, DECORATED.replace(/\n/g, '\r\n'), { maxChars: 120 });
    expect(crlf).toEqual(lf);
    expect(crlf.some((c) => c.text.includes('\r'))).toBe(false);
  });

  it('handles tab indentation', async () => {
    const chunks = await chunkFile(PATH, TABS, { maxChars: 40 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.symbol])).toEqual([
      [1, 3, 'T'],
      [5, 7, 'T.b'],
      [8, 8, 'T.b'],
    ]);
  });

  it('returns nothing for empty files and one module chunk for a docstring-only file', async () => {
    expect(await chunkFile(PATH, '')).toEqual([]);
    expect(await chunkFile(PATH, '\n\n   \n')).toEqual([]);
    const doc = await chunkFile(PATH, '"""Only a docstring.\n\nWith two paragraphs.\n"""\n');
    expect(doc).toEqual([
      {
        path: PATH,
        startLine: 1,
        endLine: 4,
        kind: 'module',
        text: '# file: pkg/sub/mod.py\n"""Only a docstring.\n\nWith two paragraphs.\n"""',
      },
    ]);
    const comments = await chunkFile(PATH, '\n# just a comment\n# and another\n');
    expect(comments.map((c) => [c.startLine, c.endLine, c.kind])).toEqual([[2, 3, 'module']]);
  });

  it('never splits a line: one longer than maxChars becomes its own chunk', async () => {
    const long = `TABLE = [${Array.from({ length: 80 }, (_, i) => i).join(', ')}]`;
    const source = `A = 1\n${long}\nB = 2\n`;
    const chunks = await chunkFile(PATH, source, { maxChars: 100 });
    expect(ranges(chunks)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(code(chunks[1])).toBe(long);
  });

  it('splits a huge literal at its entries, the assignment head staying in the first piece', async () => {
    const entries = Array.from({ length: 60 }, (_, i) => `    "key_${String(i).padStart(2, '0')}": ${i},`);
    const source = `MAPPING = {\n${entries.join('\n')}\n}\n`;
    const chunks = await chunkFile(PATH, source, { maxChars: 400 });
    // entries are 16–17 characters (+1 line break); 11 chars of head
    expect(chunks.length).toBeGreaterThan(2);
    expect(code(chunks[0]).startsWith('MAPPING = {\n    "key_00": 0,')).toBe(true);
    expect(chunks[chunks.length - 1].endLine).toBe(62);
    expect(code(chunks[chunks.length - 1]).endsWith('\n}')).toBe(true);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i].startLine).toBe(chunks[i - 1].endLine + 1);
    expect(chunks.every((c) => code(c).length <= 400)).toBe(true);
  });

  it('groups an oversized docstring by lines, the signature staying with its start', async () => {
    const doc = Array.from({ length: 30 }, (_, i) => `    Paragraph line number ${String(i).padStart(2, '0')} of the docs.`).join('\n');
    const source = `def documented(x):\n    """Summary.\n\n${doc}\n    """\n    return x\n`;
    const chunks = await chunkFile(PATH, source, { maxChars: 500 });
    expect(code(chunks[0]).startsWith('def documented(x):\n    """Summary.')).toBe(true);
    expect(chunks[chunks.length - 1].endLine).toBe(35);
    expect(code(chunks[chunks.length - 1]).endsWith('    return x')).toBe(true);
    expect(chunks.every((c) => c.symbol === 'documented')).toBe(true);
    expect(chunks.every((c) => code(c).length <= 500)).toBe(true);
  });

  it('keeps a header that alone exceeds maxChars together with the first body line', async () => {
    const chunks = await chunkFile(PATH, DECORATED, { maxChars: 30 });
    const cached = chunks.find((c) => c.symbol === 'cached');
    expect(cached && [cached.startLine, cached.endLine]).toEqual([7, 11]);
    const fetch = chunks.find((c) => c.symbol === 'Outer.fetch');
    expect(fetch && [fetch.startLine, fetch.endLine, fetch.kind]).toEqual([29, 31, 'function_definition,with_statement']);
  });

  it('keeps comments closing a split block, as its last piece', async () => {
    const chunks = await chunkFile(PATH, TRAILING_COMMENTS, { maxChars: 120 });
    expect(chunks.map((c) => [c.startLine, c.endLine, c.kind])).toEqual([
      [1, 4, 'function_definition,for_statement'],
      [5, 8, 'if_statement'],
      [9, 10, 'if_statement'],
      [11, 11, 'function_definition'],
    ]);
  });

  it('lets leading comments go first when only they make a statement too big', async () => {
    const chunks = await chunkFile(PATH, LEADING_COMMENTS, { maxChars: 200 });
    expect(ranges(chunks)).toEqual([
      [1, 4],
      [5, 5],
      [6, 7],
      [8, 8],
    ]);
    expect(code(chunks[2])).toBe('    if self.group_by is None:\n        return []');
  });

  it('splits a long docstring with escape sequences by lines, losing none (found on sympy)', async () => {
    const doc = Array.from({ length: 24 }, (_, i) =>
      i % 5 === 0 ? `    Escapes like \\t and \\n on line ${i}.` : `    Plain documentation line ${i} without escapes.`,
    );
    const source = `def documented():\n    """\n${doc.join('\n')}\n    """\n    return 1\n`;
    const chunks = await chunkFile(PATH, source, { maxChars: 300 });
    const lines = source.split('\n');
    const covered = new Set(chunks.flatMap((c) => Array.from({ length: c.endLine - c.startLine + 1 }, (_, i) => c.startLine + i)));
    lines.forEach((line, i) => {
      if (line.trim() !== '') expect(covered.has(i + 1), `line ${i + 1}`).toBe(true);
    });
    for (let i = 1; i < chunks.length; i++) expect(chunks[i].startLine).toBe(chunks[i - 1].endLine + 1);
    expect(chunks.every((c) => code(c).length <= 300)).toBe(true);
  });

  it('rejects a non-positive maxChars', async () => {
    await expect(chunkFile(PATH, 'x = 1\n', { maxChars: 0 })).rejects.toThrow(/maxChars/);
  });

  it('covers every non-blank line exactly once, in order, for all fixtures and sizes (sync API)', async () => {
    const parser = parserFor('python');
    const sources = [DECORATED, BETWEEN, BROKEN, TABS, TRAILING_COMMENTS, LEADING_COMMENTS, bigFunction(), registryClass()];
    for (const source of sources) {
      const lines = source.split('\n');
      for (const maxChars of [30, 80, 200, 500, 1500, 5000]) {
        const chunks = chunkFileSync(parser, PATH, source, { maxChars });
        const covered = new Set<number>();
        let previousEnd = 0;
        for (const chunk of chunks) {
          expect(chunk.startLine).toBeGreaterThan(previousEnd);
          expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
          previousEnd = chunk.endLine;
          expect(chunk.text.split('\n')[0]).toBe(`# file: ${PATH}`);
          expect(code(chunk)).toBe(lines.slice(chunk.startLine - 1, chunk.endLine).join('\n'));
          for (let l = chunk.startLine; l <= chunk.endLine; l++) covered.add(l);
          // Below ~100 characters a signature with its decorators is itself over budget and travels with
          // the first body line (see the header test); above, only an over-long single line may exceed.
          if (maxChars >= 100 && code(chunk).length > maxChars) expect(chunk.startLine).toBe(chunk.endLine);
        }
        lines.forEach((line, i) => {
          if (line.trim() !== '') expect(covered.has(i + 1), `line ${i + 1} at maxChars ${maxChars}`).toBe(true);
        });
        // decorators are never separated from their definition
        lines.forEach((line, i) => {
          if (line.trimStart().startsWith('@')) {
            const holder = chunks.find((c) => c.startLine <= i + 1 && i + 1 <= c.endLine);
            expect(holder && holder.endLine > i + 1).toBe(true);
          }
        });
      }
    }
  });
});
