/**
 * SWE-bench Multilingual rows get what the harness gives them: a spec for each of the 46 non-Python repositories
 * of the harness at b8d5332 (src/languages/<language>/specs.json), a log parser that exists, and an eval
 * script identical, byte for byte, to the one the harness writes (fixture made with that commit's test_spec code).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeInstanceSpec } from '../../src/harness/instance-spec.ts';
import { harnessEvalScript } from '../../src/harness/eval-script.ts';
import { loadBuiltinSpecs } from '../../src/harness/specs.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { LOG_PARSER_NAMES, logParserFor } from '../../validation/log-parsers/index.ts';
import { evalReport } from '../../validation/grading.ts';
import { ImageProvider } from '../../sandbox/docker/images.ts';
import { regressionCommand } from '../../validation/regression.ts';
import { reproductionUnavailable } from '../../validation/stages.ts';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/multilingual/harness-eval-scripts.json');
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as {
  rows: Array<{
    instance_id: string;
    repo: string;
    version: string;
    base_commit: string;
    test_patch: string;
    eval_script: string;
    FAIL_TO_PASS: string;
    PASS_TO_PASS: string;
  }>;
  sha256: Record<string, { repo: string; version: string; sha256: string }>;
};
const DEV = path.resolve(import.meta.dirname, '../../../shared/data/swe-bench-multilingual-dev.jsonl');
const row = (r: (typeof fixture.rows)[number]) => ({ ...r, patch: '', problem_statement: '' }) as unknown as SweInstance;

describe('Multilingual specs', () => {
  it('every repository of the development set has a spec, a known log parser and the harness’ language', () => {
    const specs = loadBuiltinSpecs();
    for (const [id, { repo, version }] of Object.entries(fixture.sha256)) {
      const spec = specs.get(repo, version);
      expect(spec.language, id).not.toBe('py');
      expect(LOG_PARSER_NAMES, `${id}: ${spec.logParser}`).toContain(spec.logParser);
    }
    expect(specs.get('jqlang/jq', '2839')).toMatchObject({ language: 'c', logParser: 'jq' });
    const preact = fixture.rows.find((r) => r.repo === 'preactjs/preact')!;
    expect(specs.get('preactjs/preact', preact.version).logParser).toBe('karma');
  });

  it('writes the harness’ eval script for one row of each repository, text for text', () => {
    expect(fixture.rows).toHaveLength(9);
    // the harness' script of b8d5332 as 5.0.2 runs it: with the test command's exit status recorded
    for (const r of fixture.rows) expect(makeInstanceSpec(row(r)).evalScript(), r.instance_id).toBe(harnessEvalScript(r.eval_script));
    // the test patch's modified files are reset before and after; the Python form's `git status` is not there
    const jq = fixture.rows.find((r) => r.repo === 'jqlang/jq')!;
    const script = makeInstanceSpec(row(jq)).evalScript();
    expect(script).toContain("git apply --verbose --reject - <<'EOF_114329324912'");
    expect(script).toContain("make -j$(nproc)\n: '>>>>> Start Test Output'\nmake check\nSWEBENCH_TEST_EXIT_CODE=$?\n: '>>>>> End Test Output'");
    expect(script).not.toContain('git status');
  });

  it('a row of a repository without a spec is an error naming what is missing', () => {
    const r = { ...row(fixture.rows[0]!), repo: 'nobody/nothing', instance_id: 'nobody__nothing-1' };
    expect(() => makeInstanceSpec(r)).toThrow(
      /no environment spec for repository nobody\/nothing; add one to its language folder's specs.json \(src\/languages\/\)/,
    );
    const v = { ...row(fixture.rows[0]!), version: '0.0.0-none' };
    expect(() => makeInstanceSpec(v)).toThrow(/no environment spec for .* version "0.0.0-none"/);
  });

  it('a parser that chooses by instance gets the instance', () => {
    const jekyll = { repo: 'jekyll/jekyll', version: '8761', logParser: 'jekyll' };
    expect(() => logParserFor(jekyll, 'jekyll__jekyll-1')('')).toThrow(/unknown instance id/);
    // pull request 8761 ran cucumber: its progress lines are read as such
    expect(logParserFor(jekyll, 'jekyll__jekyll-8761')('Serving a site ....F\nBuilding .....\n')).toEqual({ 'Serving a site': 'FAILED', Building: 'PASSED' });
  });
});

describe('grading a Multilingual row as the harness does', () => {
  it('jq: FAIL_TO_PASS passing and PASS_TO_PASS kept resolve it; one PASS_TO_PASS broken does not', () => {
    const jq = fixture.rows.find((r) => r.repo === 'jqlang/jq')!;
    const spec = makeInstanceSpec(row(jq));
    const gold = { FAIL_TO_PASS: JSON.parse(jq.FAIL_TO_PASS) as string[], PASS_TO_PASS: JSON.parse(jq.PASS_TO_PASS) as string[] };
    const logOf = (lines: string[]) => `+ make check\n+ : '>>>>> Start Test Output'\n${lines.join('\n')}\n+ : '>>>>> End Test Output'\n`;
    const parser = logParserFor(spec.spec, jq.instance_id);
    const all = [...gold.FAIL_TO_PASS, ...gold.PASS_TO_PASS];
    const resolved = evalReport(jq.instance_id, 'diff', logOf(all.map((t) => `PASS: ${t}`)), gold, parser)[jq.instance_id]!;
    expect(resolved).toMatchObject({ patch_successfully_applied: true, resolved: true });
    const broken = all.map((t) => (t === gold.PASS_TO_PASS[0] ? `FAIL: ${t}` : `PASS: ${t}`));
    const report = evalReport(jq.instance_id, 'diff', logOf(broken), gold, parser)[jq.instance_id]!;
    expect(report.resolved).toBe(false);
    expect(report.tests_status!.PASS_TO_PASS.failure).toEqual([gold.PASS_TO_PASS[0]]);
    // without the test patch's markers (the patch did not apply) the row is not graded
    expect(evalReport(jq.instance_id, 'diff', '>>>>> Patch Apply Failed\n', gold, parser)[jq.instance_id]!.patch_successfully_applied).toBe(false);
  });
});

describe('validation in other languages', () => {
  it('regression runs the spec’s build and test commands; reproduction is recorded as not available, not run', () => {
    const jq = fixture.rows.find((r) => r.repo === 'jqlang/jq')!;
    const spec = makeInstanceSpec(row(jq)).spec;
    const testbed = { image: { spec }, instance: row(jq) } as unknown as Parameters<typeof regressionCommand>[0];
    // before: Python's form, `make check` followed by the test patch's files as directives, and no build
    expect(regressionCommand(testbed)).toBe(
      'git submodule update --init; autoreconf -fi; ./configure --with-oniguruma=builtin; make clean; touch src/parser.y src/lexer.l; make -j$(nproc); make check',
    );
    expect(reproductionUnavailable(spec)).toMatch(/not available for this language \(c, jqlang\/jq\)/);
    expect(reproductionUnavailable({ language: 'py', repo: 'django/django' })).toBeUndefined();
  });
});

describe('a row the offline images do not serve', () => {
  it('fails naming the official image to pull and the offline way, not obscurely', async () => {
    const tokio = fixture.rows.find((r) => r.repo === 'tokio-rs/tokio')!;
    // an engine that has no image at all: neither the official one nor a base
    const runtime = { imageExists: async () => false } as unknown as ConstructorParameters<typeof ImageProvider>[0];
    const provider = new ImageProvider(runtime, { gitDir: async () => '/nowhere' });
    const err = (await provider.instanceImage(makeInstanceSpec(row(tokio))).catch((e: unknown) => e)) as Error;
    expect(err.message).toContain(`docker pull swebench/sweb.eval.x86_64.${tokio.instance_id.replace('__', '_1776_')}:latest`);
    expect(err.message).toMatch(/--env-image tokio-rs\/tokio@\S+=IMAGE .*docs\/offline-env-images.md/);
  });
});

describe.skipIf(!existsSync(DEV))('every Multilingual development row (../shared/data)', () => {
  it('gets the harness’ eval script: 86 of 86 identical', () => {
    const rows = readFileSync(DEV, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SweInstance);
    expect(rows).toHaveLength(86);
    // the fixture hashes b8d5332's scripts; 5.0.2 adds the exit-code lines, taken out here to compare the rest
    const without502Lines = (script: string) =>
      script.replace('SWEBENCH_TEST_EXIT_CODE=$?\n', '').replace('\necho ">>>>> Test Exit Code: $SWEBENCH_TEST_EXIT_CODE"', '');
    const differing = rows.filter(
      (r) =>
        createHash('sha256')
          .update(without502Lines(makeInstanceSpec(r).evalScript()))
          .digest('hex') !== fixture.sha256[r.instance_id]!.sha256,
    );
    expect(differing.map((r) => r.instance_id)).toEqual([]);
  });
});
