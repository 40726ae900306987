/**
 * C#, the language added as one folder (src/languages/csharp/) and one registry line: beyond its definitions
 * (tagged-languages.test.ts) its record reads .NET stack frames and compiler locations, names its test files,
 * and its query gives the code graph its imports, calls and base types.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileFacts } from '../../src/index/graph/file-facts.ts';
import { createFileFilter } from '../../src/index/file-filter.ts';
import { languageForPath, sourceExtensions } from '../../src/languages/index.ts';

const FIXTURE = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/languages/Sample.cs'), 'utf8');
const csharp = languageForPath('src/Shapes/Circle.cs')!;

describe('C#', () => {
  it('is indexed by its extension', () => {
    expect(csharp.id).toBe('csharp');
    expect(sourceExtensions()).toContain('.cs');
  });

  it('reads .NET stack frames and compiler locations as path, line and function', () => {
    const frames = (text: string) => csharp.frames.flatMap((f) => [...text.matchAll(f.pattern)].map((m) => [f.name, m[1], m[2], m[3]]));
    const trace = [
      'System.NullReferenceException: Object reference not set to an instance of an object.',
      '   at Example.Shapes.Circle.Area() in /home/ci/repo/src/Shapes/Circle.cs:line 31',
      '   at Example.Program.Main(String[] args) in C:\\build\\src\\Program.cs:line 12',
    ].join('\n');
    expect(frames(trace)).toEqual([
      ['dotnet', 'home/ci/repo/src/Shapes/Circle.cs', '31', 'Area'],
      ['dotnet', 'Program.cs', '12', 'Main'],
    ]);
    expect(frames('src/Shapes/Circle.cs(31,17): error CS1002: ; expected')).toEqual([['msbuild', 'src/Shapes/Circle.cs', '31', undefined]]);
  });

  it('names its test files FooTests.cs; the index leaves them out', () => {
    const accept = createFileFilter({ languages: 'all' });
    expect(['src/Circle.cs', 'src/CircleTests.cs', 'tests/Unit/Circle.cs', 'src/Latest.cs'].filter(accept)).toEqual(['src/Circle.cs', 'src/Latest.cs']);
  });

  it('gives the code graph its imports, calls and base types', () => {
    const { references } = fileFacts('src/Shapes/Circle.cs', FIXTURE);
    const of = (kind: string) => references.filter((r) => r.kind === kind).map((r) => r.name);
    expect(of('import')).toEqual(['System', 'System.Collections.Generic', 'Newtonsoft.Json']);
    expect(of('inherits')).toEqual(['Shape', 'IShape']);
    expect(of('call')).toEqual(['Square']);
  });
});
