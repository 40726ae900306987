/**
 * The eleven languages beyond Python's walker: every grammar loads, every tags query compiles, and on one
 * fixture file per language (test/fixtures/languages/: a type, a method, a nested function that must not be
 * listed, an impl block or receiver, an import) the definitions have the qualified names, kinds and lines
 * the structural localizers use. The repair syntax check judges each language with its own grammar.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import { INDEXED_LANGUAGES, LANGUAGES, languageForPath } from '../../src/languages/index.ts';
import { tagsQuery } from '../../src/parsing/tags.ts';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import { checkSyntax } from '../../repair/syntax.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/languages');
const read = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8');
const names = (file: string) => extractDefinitions(file, read(file)).map((d) => `${d.qualifiedName}:${d.kind}`);

const EXPECTED: Record<string, string[]> = {
  'sample.go': ['Server:class', 'Handler:class', 'Server.Run:method', 'New:function'],
  'sample.rs': [
    'Router:class',
    'Handler:class',
    'Handler.handle:method',
    'Router:class',
    'Router.new:method',
    'Router.route:method',
    'Router:class',
    'Router.handle:method',
    'util.join:function',
    'main:function',
  ],
  'Sample.java': [
    'Sample:class',
    'Sample.Sample:method',
    'Sample.toString:method',
    'Sample.Inner:class',
    'Sample.Inner.touch:method',
    'Shape:class',
    'Shape.area:method',
  ],
  'sample.c': ['point:class', 'buffer_t:class', 'add:function', 'name_of:function'],
  'sample.cpp': ['geo.Shape:class', 'geo.Shape.area:method', 'geo.Shape.Cache:class', 'geo.scale:function', 'geo.Shape.reset:function', 'main:function'],
  'sample.js': [
    'render:function',
    'Component:class',
    'Component.constructor:method',
    'Component.setState:method',
    'createRef:function',
    'forceUpdate:function',
  ],
  'sample.ts': [
    'Options:class',
    'Options.resolve:method',
    'Visitor:class',
    'Mode:class',
    'Traverser:class',
    'Traverser.visit:method',
    'helpers.clone:function',
    'transform:function',
  ],
  'sample.tsx': ['Button:function', 'Panel:class', 'Panel.render:method'],
  'sample.php': [
    'CarbonInterface:class',
    'CarbonInterface.toDateString:method',
    'Boundaries:class',
    'Boundaries.startOfDay:method',
    'Carbon:class',
    'Carbon.toDateString:method',
    'Carbon.parse:method',
    'carbon_now:function',
  ],
  'sample.rb': [
    'Fluent:class',
    'Fluent.Plugin:class',
    'Fluent.Plugin.Output:class',
    'Fluent.Plugin.Output.emit:method',
    'Fluent.Plugin.Output.create:method',
    'top_level_helper:function',
  ],
  'Sample.cs': [
    'IShape:class',
    'IShape.Area:method',
    'Point:class',
    'Circle:class',
    'Circle.Circle:method',
    'Circle.Circle:method',
    'Circle.Radius:method',
    'Circle.Area:method',
    'Circle.Bounds:class',
    'Circle.Bounds.ToString:method',
    'Kind:class',
  ],
};

describe('languages', () => {
  it('registers twelve grammars (eleven languages, TypeScript with TSX), each tag language with a query that compiles', () => {
    expect(LANGUAGES.map((l) => l.id).sort()).toEqual(['c', 'cpp', 'csharp', 'go', 'java', 'javascript', 'php', 'python', 'ruby', 'rust', 'tsx', 'typescript']);
    for (const spec of LANGUAGES.filter((l) => l.tags)) expect(tagsQuery(spec), spec.id).toBeDefined();
    expect(INDEXED_LANGUAGES).toEqual(LANGUAGES);
    // JavaScript and TypeScript share an index, as do C and C++
    expect(languageForPath('a.tsx')?.family).toBe('javascript');
    expect(languageForPath('a.h')?.family).toBe(languageForPath('a.cpp')?.family);
  });

  it.each(Object.entries(EXPECTED))('%s: definitions with qualified names and kinds, nested functions left out', (file, expected) => {
    expect(languageForPath(file)?.tags, file).toBeDefined();
    expect(names(file)).toEqual(expected);
  });

  it('gives each definition the lines of its node', () => {
    const go = extractDefinitions('sample.go', read('sample.go'));
    expect(go.find((d) => d.qualifiedName === 'Server.Run')).toMatchObject({ startLine: 18, endLine: 22 });
    const rb = extractDefinitions('sample.rb', read('sample.rb'));
    expect(rb.find((d) => d.qualifiedName === 'Fluent.Plugin.Output.emit')).toMatchObject({ startLine: 6, endLine: 9 });
  });

  it('checks a repaired file of every language with its own grammar', async () => {
    const analyzer = await PythonAnalyzer.create();
    for (const file of Object.keys(EXPECTED)) {
      const before = read(file);
      expect(checkSyntax(file, before, `${before}\n`, analyzer).ok, `${file}: an edit that keeps it valid`).toBe(true);
      // an unbalanced brace/`end` is an error in every one of these grammars
      const closer = file.endsWith('.rb') ? 'end' : '}';
      const at = before.lastIndexOf(closer);
      const broken = before.slice(0, at) + before.slice(at + closer.length);
      const verdict = checkSyntax(file, before, broken, analyzer);
      expect(verdict.ok, `${file}: a dropped closing token`).toBe(false);
      expect(verdict.errorNodes, file).toBeGreaterThan(0);
    }
    expect(checkSyntax('notes.txt', 'a', 'b {', analyzer)).toMatchObject({ ok: true, detail: 'unchecked' });
  });
});
