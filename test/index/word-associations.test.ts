/**
 * Meaning from a repository's history: the changes of the commits before a commit (src/repo/change-history.ts) and
 * the word ↔ identifier associations learned from them (src/index/word-associations.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expansionQuery, historyExpansion, learnAssociations } from '../../src/index/word-associations.ts';
import { hunkDefinition, MAX_CHANGED_LINES, recentChanges } from '../../src/repo/change-history.ts';
import { streamGitLines } from '../../src/repo/git.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();
}

function commit(cwd: string, files: Record<string, string>, message: string): string {
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(cwd, file), text);
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD');
}

describe('the changes of the history before a commit', () => {
  it('are each commit’s message and changed source lines, ancestors only, newest first; huge changes give no code', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    commit(repo, { 'tz.py': 'def make_aware(value):\n    return value\n' }, 'Add timezone helper');
    commit(repo, { 'NOTES.txt': 'timezone notes\n' }, 'Notes about timezone');
    const base = commit(repo, { 'big.py': Array.from({ length: MAX_CHANGED_LINES + 5 }, (_, i) => `x${i} = ${i}`).join('\n') }, 'Vendor a table');
    commit(repo, { 'tz.py': 'def make_aware(value, tzinfo):\n    return value\n' }, 'The fix itself: after the base');
    const changes = await recentChanges(path.join(repo, '.git'), base, 10);
    // a commit that changes no source file says nothing of identifiers: it is not read
    expect(changes.map((c) => c.message)).toEqual(['Vendor a table', 'Add timezone helper']);
    expect(changes[0]!.changed).toBe('');
    expect(changes[1]!.changed).toContain('def make_aware(value):');
    await expect(recentChanges(path.join(repo, '.git'), '--all', 10)).rejects.toThrow(/commit/);
  });

  it('reads a mirror that lacks old blobs of data files (a snapshot without large objects): only source files are read', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    commit(repo, { 'table.csv': 'a,b\n1,2\n' }, 'Add a data table');
    const base = commit(repo, { 'load.py': 'def load_table(path):\n    return open(path)\n' }, 'Load the table');
    const blob = git(repo, 'rev-parse', `${base}:table.csv`);
    rmSync(path.join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const changes = await recentChanges(path.join(repo, '.git'), base, 10);
    expect(changes.map((c) => c.message)).toEqual(['Load the table']);
    expect(changes[0]!.changed).toContain('def load_table(path):');
  });

  it('name the definitions each commit changed, by the language’s hunk headers: a method, not its class', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    const before =
      'class Parser:\n    def parse(self, text):\n        a = 1\n        b = 2\n        return text\n\n    def close(self):\n        return None\n';
    commit(repo, { 'parse.py': before, 'main.go': 'package main\n\nfunc (s *Server) Serve() {\n\ta := 1\n\tb := 2\n}\n' }, 'Add a parser');
    const base = commit(
      repo,
      {
        'parse.py': before.replace('b = 2', 'b = 3'),
        'main.go': 'package main\n\nfunc (s *Server) Serve() {\n\ta := 1\n\tb := 3\n}\n',
      },
      'Parse with b = 3',
    );
    const [latest] = await recentChanges(path.join(repo, '.git'), base, 1);
    expect(latest!.definitions).toEqual(
      expect.arrayContaining([
        { path: 'parse.py', name: 'parse' },
        { path: 'main.go', name: 'Serve' },
      ]),
    );
    expect(latest!.definitions).toHaveLength(2);
  });

  it('stream a history line by line: a line longer than the limit is cut, not held whole', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    const base = commit(repo, { 'bundle.js': `var x = "${'a'.repeat(300_000)}";\n` }, 'Add a minified bundle');
    const [only] = await recentChanges(path.join(repo, '.git'), base, 5);
    expect(only!.message).toBe('Add a minified bundle');
    expect(only!.changed.length).toBeGreaterThan(1000);
    expect(only!.changed.length).toBeLessThanOrEqual(64 * 1024);
  });

  it('cut a huge commit message in linear time, and keep a bounded number of definitions', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    const functions = Array.from({ length: MAX_CHANGED_LINES + 50 }, (_, i) => `def f${i}():\n    return ${i}\n`);
    commit(repo, { 'many.py': functions.join('\n\n') }, 'Add many functions');
    writeFileSync(path.join(repo, 'many.py'), functions.map((f) => f.replace('return', 'return 1 +')).join('\n\n'));
    // a million short lines: joining the kept message again for each line (the code before) takes minutes
    const message = path.join(repo, '..', `${path.basename(repo)}-message.txt`);
    dirs.push(message);
    writeFileSync(message, `Touch everything\n\n${'x\n'.repeat(1_000_000)}`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-F', message);
    const [latest] = await recentChanges(path.join(repo, '.git'), git(repo, 'rev-parse', 'HEAD'), 1);
    expect(latest!.message.startsWith('Touch everything')).toBe(true);
    expect(latest!.message.length).toBeLessThanOrEqual(20_000);
    expect(latest!.definitions!.length).toBe(MAX_CHANGED_LINES);
  }, 60_000);

  it('a line callback that throws ends git and rejects with its error, not an uncaught exception', async () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'locfix-changes-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    commit(repo, { 'a.py': 'x = 1\n' }, 'First');
    const args = ['--git-dir', path.join(repo, '.git'), 'log', '--format=%s'];
    await expect(
      streamGitLines(args, () => {
        throw new Error('bad line');
      }),
    ).rejects.toThrow('bad line');
    const seen: string[] = [];
    await streamGitLines(args, (line) => {
      seen.push(line);
      return undefined;
    });
    expect(seen).toEqual(['First']);
  });

  it('read a hunk header’s context as the definition it opens', () => {
    expect(hunkDefinition('    def _fit(self, X, y=None):')).toBe('_fit');
    expect(hunkDefinition('class Parser(Base):')).toBe('Parser');
    expect(hunkDefinition('func (s *Server) Serve(w http.ResponseWriter) {')).toBe('Serve');
    expect(hunkDefinition('pub fn poll_ready(&mut self) -> Poll<()> {')).toBe('poll_ready');
    expect(hunkDefinition('    public static String toJson(Object src) {')).toBe('toJson');
    expect(hunkDefinition('import os')).toBeUndefined();
  });
});

describe('word ↔ identifier associations', () => {
  const history = [
    ...Array.from({ length: 4 }, (_, i) => ({ message: `Fix timezone handling ${i}`, changed: `value = make_aware(value, tzinfo)\nother_${i} = 1` })),
    ...Array.from({ length: 4 }, (_, i) => ({ message: `Speed up query ${i}`, changed: `qs = queryset.select_related()\nthing_${i} = 2` })),
    { message: 'Timezone once with cache', changed: 'cache_key = 1' },
  ];

  it('pair a word with the identifiers its commits changed, by PMI; pairs seen once are dropped', () => {
    const a = learnAssociations(history);
    expect(a.commits).toBe(9);
    const tz = a.pmi.get('timezone')!;
    expect(tz.get('make_aware')).toBeGreaterThan(0);
    expect(tz.get('tzinfo')).toBeGreaterThan(0);
    expect(tz.has('cache_key')).toBe(false); // one commit only
    expect(tz.has('queryset')).toBe(false); // never together
    expect(a.pmi.get('query')!.get('select_related')).toBeGreaterThan(0);
  });

  it('expand an issue with the identifiers its words go with, not those it already says', () => {
    const a = learnAssociations(history);
    const expansion = expansionQuery(a, 'Wrong timezone when saving; tzinfo ignored').split(' ');
    expect(expansion).toContain('make_aware');
    expect(expansion).not.toContain('tzinfo');
    expect(expansion).not.toContain('select_related');
    expect(expansionQuery(learnAssociations([]), 'anything')).toBe('');
  });

  it('are read from a snapshot’s history; off, missing or unreadable history gives no query and says why', async () => {
    const readable = { recentChanges: async () => history };
    const on = await historyExpansion(readable, 'Wrong timezone when saving', 100);
    expect(on.text?.split(' ')).toContain('make_aware');
    expect(on.error).toBeUndefined();
    expect(await historyExpansion(readable, 'Wrong timezone', 0)).toEqual({ ms: 0 });
    const none = await historyExpansion({}, 'Wrong timezone', 100);
    expect(none.text).toBeUndefined();
    expect(none.error).toMatch(/does not read its history/);
    const broken = await historyExpansion(
      {
        recentChanges: async () => {
          throw new Error('fatal: bad object 1234\nmore');
        },
      },
      'Wrong timezone',
      100,
    );
    expect(broken).toMatchObject({ error: 'fatal: bad object 1234' });
    expect(broken.text).toBeUndefined();
  });
});
