/**
 * Mixed manifests lose only their test sections' changes (issue 51): setup.cfg's [tool:pytest], package.json's test
 * script and jest key, Cargo's [[test]] harness, pom.xml's Surefire settings, Gradle's test block. Each case cuts a
 * real git diff and applies what is left with `git apply` on the base, so the patch the sandbox gets is checked, not
 * only the text it was cut from.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keepTestSections, mixedManifestRule } from '../../validation/manifest-sections.ts';
import { mixedManifests, separateTestMachinery } from '../../validation/test-machinery.ts';

const root = mkdtempSync(path.join(tmpdir(), 'locfix-manifest-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let repos = 0;

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** The git diff of `file` from `base` (undefined: absent) to `patched`, plus an edit of src/app.py, in a fresh repo. */
function diffOf(file: string, base: string | undefined, patched: string): { repo: string; patch: string } {
  const repo = path.join(root, `r${repos++}`);
  mkdirSync(path.join(repo, 'src'), { recursive: true });
  git(repo, 'init', '-q');
  writeFileSync(path.join(repo, 'src/app.py'), 'x = 1\n');
  if (base !== undefined) {
    mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    writeFileSync(path.join(repo, file), base);
  }
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'base');
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), patched);
  writeFileSync(path.join(repo, 'src/app.py'), 'x = 2\n');
  git(repo, 'add', '-A');
  const patch = git(repo, 'diff', '--cached');
  git(repo, 'reset', '-q', '--hard');
  return { repo, patch };
}

/** Cuts the patch as evaluation does (the base read from the repo) and applies the result: the file afterwards. */
function cutAndApply(file: string, base: string | undefined, patched: string) {
  const { repo, patch } = diffOf(file, base, patched);
  expect(mixedManifests(patch)).toEqual([file]);
  const cut = separateTestMachinery(patch, 'restore', new Map([[file, base]]));
  writeFileSync(path.join(repo, 'cut.diff'), cut.patch);
  git(repo, 'apply', 'cut.diff');
  const content = (() => {
    try {
      return readFileSync(path.join(repo, file), 'utf8');
    } catch {
      return undefined;
    }
  })();
  return { content, edits: cut.edits, app: readFileSync(path.join(repo, 'src/app.py'), 'utf8') };
}

describe('mixed manifests: only the test sections stay at base', () => {
  it('setup.cfg: [tool:pytest] restored, the dependency and the isort change kept (as pylint-4661)', () => {
    const base = '[options]\ninstall_requires =\n    astroid\n\n[tool:pytest]\naddopts = -q\n\n[isort]\nline_length = 88\n';
    const patched = '[options]\ninstall_requires =\n    appdirs\n    astroid\n\n[tool:pytest]\naddopts = -q -p evil_plugin\n\n[isort]\nline_length = 100\n';
    const out = cutAndApply('setup.cfg', base, patched);
    expect(out.content).toBe(base.replace('    astroid', '    appdirs\n    astroid').replace('88', '100'));
    expect(out.edits).toEqual([{ path: 'setup.cfg', action: 'restored', rule: 'test sections of setup.cfg: [tool:pytest]' }]);
    expect(out.app).toBe('x = 2\n');
  });

  it('a gold-like change outside the test sections is not an edit at all', () => {
    const base = '[options]\nzip_safe = false\n\n[tool:pytest]\naddopts = -q\n';
    const { patch } = diffOf('setup.cfg', base, base.replace('false', 'true'));
    expect(separateTestMachinery(patch, 'restore', new Map([['setup.cfg', base]]))).toEqual({ patch, edits: [] });
  });

  it('pyproject.toml: a new [tool.pytest.ini_options] table is dropped; a file with nothing else left is not patched', () => {
    const base = '[project]\nname = "a"\n';
    const out = cutAndApply('pyproject.toml', base, `${base}[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider -k 'not slow'"\n`);
    expect(out.content).toBe(base);
    expect(out.app).toBe('x = 2\n');
  });

  it('package.json: the test script and a jest key restored, commas mended; the dependency kept', () => {
    const base = '{\n  "name": "a",\n  "scripts": {\n    "build": "tsc",\n    "test": "jest"\n  },\n  "dependencies": {}\n}\n';
    const patched =
      '{\n  "name": "a",\n  "scripts": {\n    "build": "tsc",\n    "test": "exit 0"\n  },\n  "dependencies": {\n    "x": "1"\n  },\n  "jest": {\n    "bail": true\n  }\n}\n';
    const out = cutAndApply('package.json', base, patched);
    const parsed = JSON.parse(out.content!);
    expect(parsed.scripts).toEqual({ build: 'tsc', test: 'jest' });
    expect(parsed.dependencies).toEqual({ x: '1' });
    expect(parsed.jest).toBeUndefined();
    expect(out.edits[0]!.rule).toBe('test sections of package.json: scripts.test, jest');
  });

  it('Cargo.toml: a [[test]] with harness = false dropped, the new dependency kept; a new Cargo.toml too', () => {
    const base = '[package]\nname = "a"\n\n[dependencies]\nserde = "1"\n';
    const out = cutAndApply('crates/a/Cargo.toml', base, `${base}tokio = "1"\n\n[[test]]\nname = "t"\nharness = false\n`);
    expect(out.content).toBe(`${base}tokio = "1"\n\n`);
    const made = cutAndApply('crates/b/Cargo.toml', undefined, '[package]\nname = "b"\n\n[lib]\ntest = false\n');
    expect(made.content).toBe('[package]\nname = "b"\n\n[lib]\n');
    expect(made.edits[0]!.rule).toBe('test sections of Cargo.toml: [lib] test');
  });

  it('pom.xml: testFailureIgnore in the Surefire block restored; a dependency kept', () => {
    const base = [
      '<project>',
      '  <dependencies>',
      '  </dependencies>',
      '  <build><plugins>',
      '    <plugin>',
      '      <artifactId>maven-surefire-plugin</artifactId>',
      '    </plugin>',
      '  </plugins></build>',
      '</project>',
      '',
    ].join('\n');
    const patched = base
      .replace('  </dependencies>', '    <dependency><artifactId>guava</artifactId></dependency>\n  </dependencies>')
      .replace(
        'surefire-plugin</artifactId>',
        'surefire-plugin</artifactId>\n      <configuration><testFailureIgnore>true</testFailureIgnore></configuration>',
      );
    const out = cutAndApply('pom.xml', base, patched);
    expect(out.content).toBe(base.replace('  </dependencies>', '    <dependency><artifactId>guava</artifactId></dependency>\n  </dependencies>'));
  });

  it('build.gradle: ignoreFailures in the test block restored', () => {
    const base = 'dependencies {\n  implementation "a:b:1"\n}\n\ntest {\n  useJUnitPlatform()\n}\n';
    const patched = base.replace('"a:b:1"', '"a:b:2"').replace('useJUnitPlatform()', 'useJUnitPlatform()\n  ignoreFailures = true');
    expect(cutAndApply('build.gradle', base, patched).content).toBe(base.replace('"a:b:1"', '"a:b:2"'));
  });

  it('a new header inside a test table moves test lines: the whole file stays at base', () => {
    const rule = mixedManifestRule('setup.cfg')!;
    const base = '[tool:pytest]\naddopts = -q\ntestpaths = tests\n';
    const kept = keepTestSections(rule, base, '[tool:pytest]\naddopts = -q\n[flake8]\ntestpaths = tests\n');
    expect(kept.content).toBe(base);
    expect(kept.sections).toContain('the whole file (test lines moved)');
  });

  it('keep records the edit and applies the patch as written; without the base text the diff is kept whole', () => {
    const base = '[tool:pytest]\naddopts = -q\n';
    const { patch } = diffOf('setup.cfg', base, '[tool:pytest]\naddopts = -x\n');
    const keep = separateTestMachinery(patch, 'keep', new Map([['setup.cfg', base]]));
    expect(keep.patch).toBe(patch);
    expect(keep.edits.map((e) => e.action)).toEqual(['kept']);
    expect(separateTestMachinery(patch, 'restore').edits).toEqual([]);
  });

  it('hostile manifests: invalid or deeply nested JSON has no test lines, and cutting never throws', () => {
    const rule = mixedManifestRule('package.json')!;
    expect(rule.testLines('{"scripts": {"test": ')).toEqual(new Map());
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(rule.testLines(deep)).toEqual(new Map());
    expect(keepTestSections(rule, '{}', deep).content).toBe(deep);
  });
});
