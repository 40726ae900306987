import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modifiedExistingFiles, parsePatch, patchedFiles, touchedOldLines } from '../../src/patch.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'locfix-patch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

/** Builds a real git diff so the parser is checked against what git prints, not against our assumptions. */
function realDiff(before: Record<string, string>, after: Record<string, string | null>): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git('init', '-q');
  for (const [p, text] of Object.entries(before)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'base');
  for (const [p, text] of Object.entries(after)) {
    if (text === null) rmSync(path.join(dir, p));
    else {
      mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      writeFileSync(path.join(dir, p), text);
    }
  }
  git('add', '-A');
  return git('diff', '--cached');
}

const body = Array.from({ length: 30 }, (_, i) => `line${i + 1}`).join('\n') + '\n';

describe('parsePatch', () => {
  it('maps removed and added lines to old-file line numbers', () => {
    const after = body.replace('line10\n', 'changed10\n').replace('line20\n', 'line20\ninserted\n');
    const patch = realDiff({ 'pkg/a.py': body }, { 'pkg/a.py': after });
    const [file] = parsePatch(patch);
    expect(file.path).toBe('pkg/a.py');
    const changed = file.hunks.flatMap((h) => h.lines.filter((l) => l.kind !== 'context'));
    expect(changed.map((l) => [l.kind, l.text, l.oldLine])).toEqual([
      ['remove', 'line10', 10],
      ['add', 'changed10', 11],
      ['add', 'inserted', 21],
    ]);
    expect(touchedOldLines(file)).toEqual([10, 11, 21]);
  });

  it('recognises new, deleted and renamed files', () => {
    const patch = realDiff(
      { 'old.py': 'x = 1\n', 'gone.py': 'y = 2\n', 'keep.py': body },
      { 'old.py': null, 'moved.py': 'x = 1\n', 'gone.py': null, 'new/file.py': 'z = 3\n' },
    );
    const files = parsePatch(patch);
    const byPath = new Map(files.map((f) => [f.path, f]));
    expect(byPath.get('new/file.py')?.isNew).toBe(true);
    expect(byPath.get('gone.py')?.isDeleted).toBe(true);
    expect(patchedFiles(patch).sort()).toContain('new/file.py');
    expect(modifiedExistingFiles(patch)).not.toContain('new/file.py');
    expect(modifiedExistingFiles(patch)).toContain('gone.py');
  });

  it('handles a missing trailing newline and plain diff -u output', () => {
    const patch = realDiff({ 'a.py': 'a\nb' }, { 'a.py': 'a\nc' });
    expect(patch).toContain('\\ No newline at end of file');
    const [file] = parsePatch(patch);
    expect(file.hunks[0].lines.filter((l) => l.kind !== 'context').map((l) => l.text)).toEqual(['b', 'c']);

    const plain = '--- a/x.py\t2020-01-01\n+++ b/x.py\t2020-01-01\n@@ -1 +1 @@\n-old\n+new\n--- a/y.py\n+++ b/y.py\n@@ -2,0 +3 @@\n+added\n';
    const files = parsePatch(plain);
    expect(files.map((f) => f.path)).toEqual(['x.py', 'y.py']);
    expect(files[1].hunks[0].lines[0]).toMatchObject({ kind: 'add', oldLine: 3, newLine: 3 });
  });

  it('ignores prose before the first file and returns nothing for an empty patch', () => {
    expect(parsePatch('')).toEqual([]);
    expect(parsePatch('Some explanation\nwithout a diff\n')).toEqual([]);
  });
});
