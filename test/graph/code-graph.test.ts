/**
 * The code graph on small repositories written here: LocAgent's node and edge types, ids
 * `path:Qualified.name`, imports resolved to repository files (relative and absolute, per language),
 * calls and bases resolved by name (same file, then imported files, then a unique definition), and the
 * counts of what resolved.
 */
import { describe, expect, it } from 'vitest';
import { buildCodeGraph } from '../../src/index/graph/build.ts';
import { fileFacts } from '../../src/index/graph/file-facts.ts';
import { ModuleResolver } from '../../src/index/graph/module-resolver.ts';

const graphOf = (files: Record<string, string>) => buildCodeGraph(Object.entries(files).map(([p, s]) => fileFacts(p, s)));
const edges = (g: ReturnType<typeof graphOf>['graph'], id: string, type: string) =>
  g
    .edgesFrom(id)
    .filter((e) => e.type === type)
    .map((e) => e.target)
    .sort();

const python = {
  'pkg/__init__.py': 'from .models import Model\n',
  'pkg/models.py': [
    'from pkg.fields import Field, validate',
    '',
    'class Base:',
    '    def save(self):',
    '        return self.clean()',
    '    def clean(self):',
    '        return validate(self)',
    '',
    'class Model(Base):',
    '    def save(self):',
    '        Field()',
    '        return super().save()',
    '',
  ].join('\n'),
  'pkg/fields.py': ['import os', '', 'class Field:', '    pass', '', 'def validate(x):', '    return os.path.exists(x)', ''].join('\n'),
  'pkg/other.py': 'def validate(y):\n    return y\n',
  'docs/conf.py': 'project = "x"\n',
};

describe('the code graph', () => {
  it('has directories, files, classes and functions, contained as LocAgent nests them', () => {
    const { graph } = graphOf(python);
    expect(graph.node('pkg')?.type).toBe('directory');
    expect(graph.node('pkg/models.py')?.type).toBe('file');
    expect(graph.node('pkg/models.py:Model')).toMatchObject({ type: 'class', startLine: 9, endLine: 12 });
    expect(graph.node('pkg/models.py:Model.save')?.type).toBe('function');
    expect(edges(graph, 'pkg', 'contains')).toEqual(['pkg/__init__.py', 'pkg/fields.py', 'pkg/models.py', 'pkg/other.py']);
    expect(edges(graph, 'pkg/models.py', 'contains')).toEqual(['pkg/models.py:Base', 'pkg/models.py:Model']);
    expect(edges(graph, 'pkg/models.py:Model', 'contains')).toEqual(['pkg/models.py:Model.save']);
  });

  it('resolves imports, calls and bases, preferring the same file, then imported files, then a unique name', () => {
    const { graph, resolution } = graphOf(python);
    expect(edges(graph, 'pkg/__init__.py', 'imports')).toEqual(['pkg/models.py']); // relative
    expect(edges(graph, 'pkg/models.py', 'imports')).toEqual(['pkg/fields.py']); // absolute, `from a.b import c`
    expect(edges(graph, 'pkg/models.py:Model', 'inherits')).toEqual(['pkg/models.py:Base']);
    expect(edges(graph, 'pkg/models.py:Base.save', 'invokes')).toEqual(['pkg/models.py:Base.clean']);
    // `validate` is defined twice: the imported file's one is meant
    expect(edges(graph, 'pkg/models.py:Base.clean', 'invokes')).toEqual(['pkg/fields.py:validate']);
    // calling a class constructs it; `save` is ambiguous within the file (two methods): no edge
    expect(edges(graph, 'pkg/models.py:Model.save', 'invokes')).toEqual(['pkg/fields.py:Field']);
    expect(graph.edgesTo('pkg/fields.py:validate', 'invokes').map((e) => e.source)).toEqual(['pkg/models.py:Base.clean']);
    // `os` is external, `exists` and `super` are not defined here
    expect(resolution.import).toEqual({ total: 3, resolved: 2 });
    expect(resolution.inherits).toEqual({ total: 1, resolved: 1 });
    expect(resolution.call.resolved).toBe(3);
    expect(resolution.call.total).toBeGreaterThan(3);
  });

  it('works the same way for the other languages', () => {
    const { graph } = graphOf({
      'src/diff/index.js': "import { diffChildren } from './children';\nexport function diff(v) {\n  return diffChildren(v);\n}\n",
      'src/diff/children.js': 'export function diffChildren(v) {\n  return v;\n}\n',
      'src/component.js':
        "import { diff } from './diff/index.js';\nexport class Component extends Base {\n  render() { return diff(this); }\n}\nclass Base {}\n",
      'server/server.go': 'package server\n\nimport "example.com/app/binding"\n\nfunc Run() {\n\tbinding.Bind()\n}\n',
      'binding/binding.go': 'package binding\n\nfunc Bind() {}\n',
      'lib/fluent/plugin.rb': "require 'fluent/output'\nmodule Fluent\n  class Plugin < Output\n    def emit\n      flush\n    end\n  end\nend\n",
      'lib/fluent/output.rb': 'module Fluent\n  class Output\n    def flush\n    end\n  end\nend\n',
    });
    expect(edges(graph, 'src/diff/index.js', 'imports')).toEqual(['src/diff/children.js']);
    expect(edges(graph, 'src/component.js', 'imports')).toEqual(['src/diff/index.js']);
    expect(edges(graph, 'src/diff/index.js:diff', 'invokes')).toEqual(['src/diff/children.js:diffChildren']);
    expect(edges(graph, 'src/component.js:Component.render', 'invokes')).toEqual(['src/diff/index.js:diff']);
    expect(edges(graph, 'src/component.js:Component', 'inherits')).toEqual(['src/component.js:Base']);
    expect(edges(graph, 'server/server.go', 'imports')).toEqual(['binding/binding.go']); // a Go package is a folder
    expect(edges(graph, 'server/server.go:Run', 'invokes')).toEqual(['binding/binding.go:Bind']);
    expect(edges(graph, 'lib/fluent/plugin.rb', 'imports')).toEqual(['lib/fluent/output.rb']);
    expect(edges(graph, 'lib/fluent/plugin.rb:Fluent.Plugin', 'inherits')).toEqual(['lib/fluent/output.rb:Fluent.Output']);
    expect(edges(graph, 'lib/fluent/plugin.rb:Fluent.Plugin.emit', 'invokes')).toEqual(['lib/fluent/output.rb:Fluent.Output.flush']);
  });

  it('resolves import text of every shape to repository files, and nothing for external modules', () => {
    const r = new ModuleResolver([
      'django/db/models/__init__.py',
      'django/db/models/query.py',
      'gson/src/main/java/com/google/gson/Gson.java',
      'src/Carbon/Traits/Date.php',
      'src/jv.h',
      'src/jv.c',
      'axum/src/routing/mod.rs',
    ]);
    expect(r.resolve('django/db/x.py', 'django.db.models')).toEqual(['django/db/models/__init__.py']);
    expect(r.resolve('django/db/models/base.py', '.query')).toEqual(['django/db/models/query.py']);
    expect(r.resolve('django/db/models/sql/a.py', '..query')).toEqual(['django/db/models/query.py']);
    expect(r.resolve('x/Y.java', 'com.google.gson.Gson')).toEqual(['gson/src/main/java/com/google/gson/Gson.java']);
    expect(r.resolve('src/Carbon/Carbon.php', 'Carbon\\Traits\\Date')).toEqual(['src/Carbon/Traits/Date.php']);
    expect(r.resolve('src/main.c', 'jv.h')).toEqual(['src/jv.h']);
    expect(r.resolve('axum/src/lib.rs', 'crate::routing::Router')).toEqual(['axum/src/routing/mod.rs']);
    expect(r.resolve('a.py', 'os.path')).toEqual([]);
    expect(r.resolve('a.rs', 'std::collections::HashMap')).toEqual([]);
  });
});

describe('the code graph of a repository commit', () => {
  const commitA = {
    'pkg/a.py': 'from pkg.b import g\n\ndef f():\n    return g()\n',
    'pkg/b.py': 'def g():\n    return 1\n',
    'pkg/c.py': 'def h():\n    pass\n',
  };
  const commitB = { ...commitA, 'pkg/c.py': 'from pkg.a import f\n\ndef h():\n    return f()\n' };

  it('parses only the changed files of the next commit, restores facts in a new process, and survives a corrupt cache', async () => {
    const { mkdtemp, readdir, appendFile } = await import('node:fs/promises');
    const os = await import('node:os');
    const path = await import('node:path');
    const { MemorySnapshot } = await import('../support/memory-snapshot.ts');
    const { buildRepoGraph } = await import('../../src/index/graph/repo-graph.ts');
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-graph-'));
    const memo = new Map();
    const a = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'a'.repeat(40), commitA), { cacheDir, memo });
    expect(a.timings).toMatchObject({ files: 3, filesParsed: 3, filesReused: 0 });
    const b = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), { cacheDir, memo });
    expect(b.timings).toMatchObject({ files: 3, filesParsed: 1, filesReused: 2 });
    expect(edges(b.graph, 'pkg/c.py:h', 'invokes')).toEqual(['pkg/a.py:f']);
    // the same graph as a cold build of commit B
    const cold = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB));
    expect(b.graph.counts()).toEqual(cold.graph.counts());
    expect(b.resolution).toEqual(cold.resolution);
    // a new process: everything from disk
    const restored = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'b'.repeat(40), commitB), { cacheDir, memo: new Map() });
    expect(restored.timings).toMatchObject({ filesRestored: 3, filesParsed: 0 });
    expect(edges(restored.graph, 'pkg/c.py:h', 'invokes')).toEqual(['pkg/a.py:f']);
    // a torn line and garbage in the cache file: those files are parsed again, nothing crashes
    const dir = path.join(cacheDir, 'graph', 'acme%2fpkg');
    const [file] = (await readdir(dir)).filter((f) => f.endsWith('.jsonl'));
    await appendFile(path.join(dir, file!), 'not json\n{"key":"x"');
    const again = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'b'.repeat(40), { ...commitB, 'pkg/d.py': 'def k():\n    return h()\n' }), {
      cacheDir,
      memo: new Map(),
    });
    expect(again.timings).toMatchObject({ filesRestored: 3, filesParsed: 1 });
    const fresh = await buildRepoGraph(new MemorySnapshot('acme/pkg', 'b'.repeat(40), { ...commitB, 'pkg/d.py': 'def k():\n    return h()\n' }), {
      cacheDir,
      memo: new Map(),
    });
    expect(fresh.timings).toMatchObject({ filesRestored: 4, filesParsed: 0 });
  });
});
