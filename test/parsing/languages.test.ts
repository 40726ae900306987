/** The language seam: one record per language, parsers cached by language, no warm-up needed before parsing. */
import { describe, expect, it } from 'vitest';
import { createDefaultFileParser } from '../../src/index/default-parser.ts';
import { LANGUAGES, languageById, languageForPath, sourceExtensions } from '../../src/languages/index.ts';
import { python } from '../../src/languages/python/python.ts';
import { languageOfParser, newParser, parserFor, parserForPath } from '../../src/parsing/parsers.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import { modulePathOf } from '../../src/text/code-tokens.ts';

describe('language records', () => {
  it('finds a language by id and by extension, and says what it knows when it does not', () => {
    expect(languageById('python')).toBe(python);
    expect(languageForPath('pkg/Mod.PY')).toBe(python);
    expect(languageForPath('pkg/stubs.pyi')).toBe(python);
    expect(languageForPath('README.md')).toBeUndefined();
    expect(() => languageById('cobol')).toThrow(/unknown language "cobol"; known: python/);
    // stubs are parsed on request but not indexed by default
    expect(sourceExtensions()).toContain('.py');
    expect(sourceExtensions()).not.toContain('.pyi');
    expect(new Set(LANGUAGES.map((l) => l.id)).size).toBe(LANGUAGES.length);
  });

  it('owns the module-path and module-name rules of its files', () => {
    expect(python.modulePath('django/db/models/query.py')).toBe('django.db.models.query');
    expect(python.modulePath('pkg/__init__.py')).toBe('pkg');
    expect(python.modulePath('docs/conf.txt')).toBeUndefined();
    expect(python.moduleName('sphinx/ext/autodoc/__init__.py')).toBe('autodoc');
    expect(python.moduleName('pkg/__main__.py')).toBeUndefined();
    expect(python.moduleFiles('a/b')).toEqual(['a/b.py', 'a/b/__init__.py']);
    expect(modulePathOf('a/b/c.py')).toBe('a.b.c');
    expect(modulePathOf('a/b/c.rs')).toBeUndefined();
  });

  it('matches its traceback frames with path, line and function', () => {
    const cpython = python.frames.find((f) => f.name === 'cpython')!;
    const [m] = 'File "/usr/lib/x/models.py", line 12, in save'.matchAll(cpython.pattern);
    expect([m[1], m[2], m[3]]).toEqual(['/usr/lib/x/models.py', '12', 'save']);
  });
});

describe('parsers by language', () => {
  it('shares one parser per language and knows its language; private parsers are separate', () => {
    expect(parserFor('python')).toBe(parserFor(python));
    expect(parserForPath('x.py')).toBe(parserFor('python'));
    expect(parserForPath('x.txt')).toBeUndefined();
    expect(languageOfParser(parserFor('python'))).toBe(python);
    const own = newParser('python');
    expect(own).not.toBe(parserFor('python'));
    own.delete();
  });

  it('parses synchronously on first use: no warm-up call is needed', () => {
    expect(extractDefinitions('m.py', 'class A:\n    def f(self):\n        pass\n').map((d) => d.qualifiedName)).toEqual(['A', 'A.f']);
  });

  it('the index chunks text no grammar parses by lines instead of failing', async () => {
    const parser = await createDefaultFileParser();
    const notes = await parser.parse('NOTES.txt', 'one\ntwo\nthree\n');
    expect(notes.definitions).toEqual([]);
    expect(notes.chunks.map((c) => [c.startLine, c.endLine])).toEqual([[1, 3]]);
    expect((await parser.parse('m.py', 'def f():\n    return 1\n')).definitions.map((d) => d.name)).toEqual(['f']);
  });
});
