/**
 * The mini-benchmark builder: determinism, reuse, atomic rebuilds, clear fixture errors, and the shape of
 * what it publishes (SWE-bench rows, bare mirrors, realistic projects and issue kinds).
 * The Python-level honesty of every instance (FAIL_TO_PASS / PASS_TO_PASS) is checked in instances.test.ts.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweInstanceSchema } from '../../src/dataset/schema.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { MINIBENCH_SOURCE_DIR } from '../../src/minibench/fixtures.ts';

const run = promisify(execFile);

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, maxBuffer: 32 * 1024 * 1024 });
  return stdout;
}

let tmp: string;
let first: MiniBenchBuild;
let second: MiniBenchBuild;

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'minibench-test-'));
  [first, second] = await Promise.all([buildMiniBenchmark(path.join(tmp, 'a', 'minibench')), buildMiniBenchmark(path.join(tmp, 'b', 'minibench'))]);
});

afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Every ref of every mirror with the commit it points to, as one comparable string. */
async function refsOf(build: MiniBenchBuild): Promise<string> {
  const lines: string[] = [];
  for (const entry of (await fs.readdir(build.mirrorsDir)).sort()) {
    const refs = await git(path.join(build.mirrorsDir, entry, 'repo'), 'for-each-ref', '--format=%(objectname) %(refname)');
    lines.push(`${entry}\n${refs}`);
  }
  return lines.join('\n');
}

describe('determinism and reuse', () => {
  it('two builds in different folders give identical commits and dataset bytes', async () => {
    expect(await fs.readFile(first.datasetPath)).toEqual(await fs.readFile(second.datasetPath));
    expect(await fs.readFile(first.catalogPath)).toEqual(await fs.readFile(second.catalogPath));
    const refs = await refsOf(first);
    expect(refs).toBe(await refsOf(second));
    expect(refs).toMatch(/refs\/heads\/main/);
    expect(first.instances.map((i) => i.base_commit)).toEqual(second.instances.map((i) => i.base_commit));
  });

  it('reuses an up-to-date build without touching it', async () => {
    const before = await fs.stat(first.datasetPath);
    const again = await buildMiniBenchmark(path.dirname(first.datasetPath));
    expect((await fs.stat(again.datasetPath)).mtimeMs).toBe(before.mtimeMs);
    expect(again.instances).toEqual(first.instances);
  });

  it('rebuilds atomically when a fixture changes, leaving no staging folders behind', async () => {
    const sourceDir = path.join(tmp, 'sources');
    await fs.cp(path.join(MINIBENCH_SOURCE_DIR, 'projects'), path.join(sourceDir, 'projects'), { recursive: true });
    await fs.cp(path.join(MINIBENCH_SOURCE_DIR, 'instances'), path.join(sourceDir, 'instances'), { recursive: true });
    const outDir = path.join(tmp, 'rebuild', 'minibench');
    const original = await buildMiniBenchmark(outDir, { sourceDir });
    expect(await fs.readFile(original.datasetPath)).toEqual(await fs.readFile(first.datasetPath));

    const issue = path.join(sourceDir, 'instances', 'minibench__qty-7', 'issue.md');
    await fs.appendFile(issue, '\nEdit: also seen on qty 1.0.\n');
    const changed = await buildMiniBenchmark(outDir, { sourceDir });
    const row = changed.instances.find((i) => i.instance_id === 'minibench__qty-7')!;
    expect(row.problem_statement).toContain('also seen on qty 1.0');
    expect(changed.instances.map((i) => i.base_commit)).toEqual(first.instances.map((i) => i.base_commit));
    expect((await fs.readdir(path.dirname(outDir))).sort()).toEqual(['minibench']);
  });
});

describe('fixture errors name the fixture and the problem', () => {
  async function copySources(name: string): Promise<string> {
    const dir = path.join(tmp, name);
    await fs.cp(path.join(MINIBENCH_SOURCE_DIR, 'projects'), path.join(dir, 'projects'), { recursive: true });
    await fs.cp(path.join(MINIBENCH_SOURCE_DIR, 'instances'), path.join(dir, 'instances'), { recursive: true });
    return dir;
  }

  it('rejects a fix file identical to the base', async () => {
    const sourceDir = await copySources('bad-fix');
    await fs.copyFile(
      path.join(sourceDir, 'projects', 'urlkit', 'base', 'urlkit', 'hosts.py'),
      path.join(sourceDir, 'instances', 'minibench__urlkit-14', 'fix', 'urlkit', 'hosts.py'),
    );
    await expect(buildMiniBenchmark(path.join(tmp, 'bad-fix-out'), { sourceDir })).rejects.toThrow(
      /minibench__urlkit-14: fix\/: urlkit\/hosts\.py identical to the base commit/,
    );
    await expect(fs.access(path.join(tmp, 'bad-fix-out'))).rejects.toThrow();
  });

  it('rejects an unknown base label', async () => {
    const sourceDir = await copySources('bad-base');
    const metaFile = path.join(sourceDir, 'instances', 'minibench__qty-7', 'meta.json');
    const meta = JSON.parse(await fs.readFile(metaFile, 'utf8'));
    await fs.writeFile(metaFile, JSON.stringify({ ...meta, base: 'v9.9' }));
    await expect(buildMiniBenchmark(path.join(tmp, 'bad-base-out'), { sourceDir })).rejects.toThrow(
      /minibench__qty-7\/meta\.json: base "v9\.9" is not a commit label of minibench\/qty/,
    );
  });

  it('rejects a meta.json without FAIL_TO_PASS', async () => {
    const sourceDir = await copySources('bad-meta');
    const metaFile = path.join(sourceDir, 'instances', 'minibench__confetti-9', 'meta.json');
    const { FAIL_TO_PASS: _dropped, ...meta } = JSON.parse(await fs.readFile(metaFile, 'utf8'));
    await fs.writeFile(metaFile, JSON.stringify(meta));
    await expect(buildMiniBenchmark(path.join(tmp, 'bad-meta-out'), { sourceDir })).rejects.toThrow(/minibench__confetti-9\/meta\.json: FAIL_TO_PASS:/);
  });
});

describe('published dataset and mirrors', () => {
  it('has at least 3 repositories and 8 instances, every row valid SWE-bench', async () => {
    const lines = (await fs.readFile(first.datasetPath, 'utf8')).trim().split('\n');
    expect(lines.length).toBe(first.instances.length);
    expect(lines.length).toBeGreaterThanOrEqual(8);
    expect(new Set(first.instances.map((i) => i.repo)).size).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const raw = JSON.parse(line);
      // Stored as on the Hugging Face export: test lists are JSON strings.
      expect(typeof raw.FAIL_TO_PASS).toBe('string');
      const row = SweInstanceSchema.parse(raw);
      const [owner, name] = row.repo.split('/');
      expect(row.instance_id).toMatch(new RegExp(`^${owner}__${name}-\\d+$`));
      expect(row.base_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(row.environment_setup_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(row.patch).toMatch(/^diff --git a\//);
      expect(row.test_patch).toMatch(/^diff --git a\//);
      expect(row.hints_text).toBe('');
      expect(row.version).toMatch(/^\d+\.\d+$/);
      expect(Number.isNaN(Date.parse(row.created_at!))).toBe(false);
      expect(row.FAIL_TO_PASS.length).toBeGreaterThan(0);
      for (const id of [...row.FAIL_TO_PASS, ...row.PASS_TO_PASS]) expect(id).toMatch(/^tests\/test_\w+\.py::\S+$/);
    }
  });

  it('mirrors hold each base commit and its history, but no gold fix', async () => {
    for (const instance of first.instances) {
      const mirror = path.join(first.mirrorsDir, instance.repo.replace('/', '+'), 'repo');
      expect((await git(mirror, 'rev-parse', '--is-bare-repository')).trim()).toBe('true');
      await git(mirror, 'cat-file', '-e', `${instance.base_commit}^{commit}`);
      expect(await git(mirror, 'for-each-ref', 'refs/minibench')).toBe('');
      expect(await git(mirror, 'remote')).toBe('');
      // The fixed version of a gold file never reaches the mirror (the builder diffs it in a scratch repo).
      const fixDir = path.join(MINIBENCH_SOURCE_DIR, 'instances', instance.instance_id, 'fix');
      for (const file of await fs.readdir(fixDir, { recursive: true })) {
        const full = path.join(fixDir, file);
        if (!(await fs.stat(full)).isFile()) continue;
        const blob = (await git(mirror, 'hash-object', full)).trim();
        await expect(git(mirror, 'cat-file', '-e', blob), `${instance.instance_id} ${file}`).rejects.toThrow();
      }
    }
    for (const repo of new Set(first.instances.map((i) => i.repo))) {
      const mirror = path.join(first.mirrorsDir, repo.replace('/', '+'), 'repo');
      const log = (await git(mirror, 'log', '--format=%an <%ae> %ad', '--date=iso-strict', 'main')).trim().split('\n');
      expect(log.length).toBeGreaterThanOrEqual(3);
      for (const line of log) expect(line).toMatch(/^Minibench Maintainers <maintainers@minibench\.invalid> 20\d\d-/);
    }
  });

  it('projects are realistic packages: 12-25 Python modules, tests, packaging metadata, README', async () => {
    for (const repo of new Set(first.instances.map((i) => i.repo))) {
      const mirror = path.join(first.mirrorsDir, repo.replace('/', '+'), 'repo');
      const files = (await git(mirror, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');
      const modules = files.filter((f) => f.endsWith('.py') && !f.startsWith('tests/') && f !== 'conftest.py' && f !== 'setup.py');
      expect(modules.length, repo).toBeGreaterThanOrEqual(12);
      expect(modules.length, repo).toBeLessThanOrEqual(25);
      expect(files.filter((f) => /^tests\/test_\w+\.py$/.test(f)).length, repo).toBeGreaterThanOrEqual(5);
      expect(
        files.some((f) => f === 'setup.py' || f === 'pyproject.toml'),
        repo,
      ).toBe(true);
      expect(files, repo).toContain('README.md');
    }
  });

  it('covers the issue kinds the later stages are tested on', () => {
    const kinds = new Set(first.catalog.flatMap((c) => c.kinds));
    for (const kind of ['traceback', 'behavioural', 'dotted-module-path', 'two-files', 'misleading-obvious-file']) {
      expect(kinds, kind).toContain(kind);
    }
    const multiFile = first.catalog.filter((c) => c.kinds.includes('two-files'));
    for (const c of multiFile) expect(c.goldFiles.length).toBeGreaterThanOrEqual(2);
  });

  it('issue texts match their declared kind', () => {
    const pyPath = /[\w/.-]+\.py\b/g;
    const byId = new Map(first.instances.map((i) => [i.instance_id, i]));
    for (const info of first.catalog) {
      const text = byId.get(info.instance_id)!.problem_statement;
      const moduleName = (file: string) =>
        file
          .replace(/^src\//, '')
          .replace(/\.py$/, '')
          .replace(/\//g, '.');
      if (info.kinds.includes('traceback')) {
        expect(text, info.instance_id).toContain('Traceback (most recent call last)');
        expect(
          info.goldFiles.some((f) => text.includes(f.replace(/^src\//, ''))),
          info.instance_id,
        ).toBe(true);
      }
      if (info.kinds.includes('behavioural') && !info.kinds.includes('misleading-obvious-file')) {
        expect(text.match(pyPath) ?? [], info.instance_id).toEqual([]);
      }
      if (info.kinds.includes('dotted-module-path')) {
        expect(
          info.goldFiles.some((f) => text.includes(moduleName(f))),
          info.instance_id,
        ).toBe(true);
      }
      if (info.kinds.includes('misleading-obvious-file')) {
        const named = (text.match(pyPath) ?? []).map((f) => f.replace(/^src\//, ''));
        expect(named.length, info.instance_id).toBeGreaterThan(0);
        for (const f of info.goldFiles) expect(named, info.instance_id).not.toContain(f.replace(/^src\//, ''));
      }
    }
  });
});
