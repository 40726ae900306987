/**
 * SWE-bench 5.0 datasets: a task repository (sweb.yaml + tasks/<id>/…) and `DIR#NAME` load as the harness loads
 * them, the aliases name the Hub datasets, and a 5.0 parquet's own eval fields reach the instance and its spec.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDataset, resolveDatasetAlias } from '../../src/dataset/load.ts';
import { makeInstanceSpec } from '../../src/harness/instance-spec.ts';
import { row } from './fixtures.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'locfix-taskrepo-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CRLF_PATCH = 'diff --git a/x b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-one\r\n+two\r\n';

function task(repo: string, id: string, meta: Record<string, unknown>, files: Record<string, string | undefined> = {}): void {
  const dir = path.join(repo, 'tasks', id);
  mkdirSync(dir, { recursive: true });
  const base = row(1);
  const yaml = Object.entries({ instance_id: id, repo: 'acme/widgets', base_commit: base.base_commit, version: "'1.0'", split: 'test', ...meta })
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : v}`)
    .join('\n');
  writeFileSync(path.join(dir, 'task.yaml'), `${yaml}\n`);
  const all = {
    'tests.json': JSON.stringify({ FAIL_TO_PASS: ['t::a'], PASS_TO_PASS: [] }),
    'gold.patch': base.patch,
    'test.patch': CRLF_PATCH,
    'problem_statement.md': `the issue of ${id}`,
    'eval.sh': '#!/bin/bash\necho hi\n',
    ...files,
  };
  for (const [name, text] of Object.entries(all)) if (text !== undefined) writeFileSync(path.join(dir, name), text);
}

describe('task repositories', () => {
  const repo = path.join(root, 'tasks-repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(path.join(repo, 'sweb.yaml'), 'datasets:\n  - acme/Bench\n  - acme/Bench_Lite\nsplits:\n  - test\n');
  task(repo, 'acme__widgets-1', { datasets: ['acme/Bench', 'acme/Bench_Lite'] });
  task(repo, 'acme__widgets-2', { datasets: ['acme/Bench'] }, { 'hints.md': 'a hint' });
  task(repo, 'acme__widgets-3', { datasets: ['acme/Bench'], split: 'deprecated' });
  task(repo, 'acme__widgets-4', { datasets: ['acme/Bench'] }, { 'gold.patch': undefined });

  it('reads every published task, files and tests included, a broken one as a row error naming its folder', async () => {
    const loaded = await loadDataset(repo);
    expect(loaded.instances.map((i) => i.instance_id)).toEqual(['acme__widgets-1', 'acme__widgets-2']);
    const [first, second] = loaded.instances;
    expect(first).toMatchObject({
      version: '1.0',
      FAIL_TO_PASS: ['t::a'],
      problem_statement: 'the issue of acme__widgets-1',
      eval_script: '#!/bin/bash\necho hi\n',
    });
    expect(first!.test_patch).toBe(CRLF_PATCH);
    expect(second!.hints_text).toBe('a hint');
    expect(loaded.errors.map((e) => e.message)).toEqual(['tasks/acme__widgets-4: gold.patch: missing']);
  });

  it('DIR#NAME narrows to one published dataset; another name is an error listing what is published', async () => {
    expect((await loadDataset(`${repo}#acme/Bench_Lite`)).instances.map((i) => i.instance_id)).toEqual(['acme__widgets-1']);
    await expect(loadDataset(`${repo}#acme/Other`)).rejects.toThrow(/does not publish acme\/Other\. It publishes: acme\/Bench acme\/Bench_Lite/);
    mkdirSync(path.join(root, 'bare', 'tasks'), { recursive: true });
    await expect(loadDataset(path.join(root, 'bare'))).rejects.toThrow(/has no sweb\.yaml/);
  });
});

describe('5.0 dataset names and rows', () => {
  it('expands the harness aliases, and passes other names through', () => {
    expect(resolveDatasetAlias('verified')).toBe('SWE-bench/SWE-bench_Verified');
    expect(resolveDatasetAlias('Multilingual:test')).toBe('SWE-bench/SWE-bench_Multilingual:test');
    expect(resolveDatasetAlias('full')).toBe('SWE-bench/SWE-bench');
    expect(resolveDatasetAlias('SWE-bench/SWE-bench_Lite')).toBe('SWE-bench/SWE-bench_Lite');
  });

  it('offline, an alias fails naming what to fetch', async () => {
    const fetch = (() => Promise.reject(new Error('getaddrinfo ENOTFOUND'))) as unknown as typeof globalThis.fetch;
    await expect(loadDataset('multimodal', { cacheDir: path.join(root, 'cache'), fetch })).rejects.toThrow(/SWE-bench\/SWE-bench_Multimodal/);
  });

  it('keeps a parquet row’s eval_script, log_parser, eval_type and image, and the spec uses them', async () => {
    const r = {
      ...row(1, 'django/django'),
      version: '3.0',
      eval_script: '#!/bin/bash\nset -uxo pipefail\n: X\n',
      log_parser: 'parse_log_django',
      eval_type: 'pass_and_fail',
      image: 'swebench/x:latest',
    };
    const columns = Object.keys(r) as Array<keyof typeof r>;
    const buffer = parquetWriteBuffer({ columnData: columns.map((name) => ({ name, data: [r[name]], type: 'STRING' as const })) });
    const file = path.join(root, 'five.parquet');
    writeFileSync(file, new Uint8Array(buffer));
    const [instance] = (await loadDataset(file)).instances;
    expect(instance).toMatchObject({ eval_type: 'pass_and_fail', log_parser: 'parse_log_django', image: 'swebench/x:latest' });
    const spec = makeInstanceSpec(instance!);
    expect(spec.spec.logParser).toBe('django');
    expect(spec.officialImage).toBe('swebench/x:latest');
    // in the official image the row's own script runs, with the exit code recorded; locfix's images get locfix's
    expect(spec.evalScript({ official: true })).toBe('#!/bin/bash\nset -uxo pipefail\n: X\n');
    expect(spec.evalScript()).toContain('./tests/runtests.py');
  });

  it('a row of a repository no spec covers runs as it says: its commands, parser and image', () => {
    const script =
      "#!/bin/bash\nset -uxo pipefail\ncd /testbed\n: '>>>>> Start Test Output'\nnpx jest test/a.test.js\n: '>>>>> End Test Output'\ngit checkout abc test/a.test.js\n";
    const instance = {
      ...row(2, 'chartjs/Chart.js'),
      FAIL_TO_PASS: ['a'],
      PASS_TO_PASS: [],
      eval_script: script,
      log_parser: 'parse_log_jest',
      image: 'swebench/sweb.eval.x86_64.chartjs_1776_chart.js-102:latest',
    };
    const spec = makeInstanceSpec(instance);
    expect(spec.spec).toMatchObject({ language: 'js', logParser: 'jest', testDirectives: 'none', spec: { test_cmd: ['npx jest test/a.test.js'] } });
    expect(spec.officialImage).toBe('swebench/sweb.eval.x86_64.chartjs_1776_chart.js-102:latest');
    expect(spec.evalScript({ official: true })).toContain('npx jest test/a.test.js\nSWEBENCH_TEST_EXIT_CODE=$?\n');
    // without its own fields such a row still names what is missing
    expect(() => makeInstanceSpec({ ...instance, eval_script: undefined })).toThrow(/no environment spec for repository chartjs\/Chart\.js/);
  });
});

describe('task repositories are confined (issue 50, finding 4)', () => {
  it('a task file that is a symbolic link out of the repository is that task’s error, naming the file; nothing of its target is read', async () => {
    const repo = path.join(root, 'linked-repo');
    mkdirSync(repo, { recursive: true });
    writeFileSync(path.join(repo, 'sweb.yaml'), 'datasets: [d]\n');
    const secret = path.join(root, 'host-secret.txt');
    writeFileSync(secret, 'HOST-SECRET-7f3a\n');
    task(repo, 'acme__widgets-1', { datasets: '[d]' });
    task(repo, 'acme__widgets-2', { datasets: '[d]' }, { 'problem_statement.md': undefined });
    symlinkSync(secret, path.join(repo, 'tasks', 'acme__widgets-2', 'problem_statement.md'));
    task(repo, 'acme__widgets-3', { datasets: '[d]' });
    rmSync(path.join(repo, 'tasks', 'acme__widgets-3', 'hints.md'), { force: true });
    symlinkSync(secret, path.join(repo, 'tasks', 'acme__widgets-3', 'hints.md'));
    // a whole task folder that is a link elsewhere
    const outside = path.join(root, 'outside-task');
    task(outside, 'acme__widgets-4', { datasets: '[d]' });
    symlinkSync(path.join(outside, 'tasks', 'acme__widgets-4'), path.join(repo, 'tasks', 'acme__widgets-4'));
    const loaded = await loadDataset(repo);
    expect(loaded.instances.map((i) => i.instance_id)).toEqual(['acme__widgets-1']);
    expect(JSON.stringify(loaded.instances)).not.toContain('HOST-SECRET');
    const messages = loaded.errors.map((e) => e.message);
    expect(messages).toEqual([
      expect.stringMatching(/tasks\/acme__widgets-2: problem_statement\.md: a symbolic link \(to .*host-secret\.txt\).*refused/),
      expect.stringMatching(/tasks\/acme__widgets-3: hints\.md: a symbolic link/),
      expect.stringMatching(/tasks\/acme__widgets-4: the task folder: a symbolic link/),
    ]);
  });
});
