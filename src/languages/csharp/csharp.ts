/**
 * C#: tree-sitter-c-sharp. .NET stack traces print `at Ns.Type.Method(args) in /src/Type.cs:line 12`, and the
 * compiler prints `src/Type.cs(12,5): error CS…`.
 */
import { taggedLanguage } from '../tagged.ts';

export const csharp = taggedLanguage({
  moduleUrl: import.meta.url,
  id: 'csharp',
  packageName: 'tree-sitter-c-sharp',
  wasmFile: 'tree-sitter-c_sharp.wasm',
  tags: 'csharp.scm',
  extensions: ['.cs'],
  gitDiffDriver: 'csharp',
  // xUnit, NUnit and MSTest classes are named `FooTests` by convention (test projects, `Foo.Tests/`, are
  // folders whose name does not start with "test", so the file name is what tells)
  isTestFile: (file) => file.endsWith('tests.cs'),
  fence: 'csharp',
  frames: [
    // a lookahead reads the file and line first, so the groups are path, line, function as for every frame
    { name: 'dotnet', pattern: /at (?=[^\n]*? in (?:[A-Za-z]:)?[\\/]?(?:[\w.~-]+[\\/])*?((?:[\w.~-]+\/)*[\w.-]+\.cs):line (\d+))[\w.`<>+]+\.([\w`<>]+)\(/g },
    { name: 'msbuild', pattern: /((?:[\w.~-]+\/)*[\w.-]+\.cs)\((\d+),\d+\)/g },
  ],
});
