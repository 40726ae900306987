/** InstanceSpec: what runs for an instance, computed without Docker; log-parser names owned by validation. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeInstanceSpec } from '../../src/harness/instance-spec.ts';
import { loadBuiltinSpecs, SpecRegistry } from '../../src/harness/specs.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { SPEC_FILES } from '../../src/languages/index.ts';
import { LOG_PARSER_NAMES, logParserFor } from '../../validation/log-parsers/index.ts';

const TEST_PATCH = [
  'diff --git a/tests/admin_views/tests.py b/tests/admin_views/tests.py',
  '--- a/tests/admin_views/tests.py',
  '+++ b/tests/admin_views/tests.py',
  '@@ -1,2 +1,3 @@',
  ' import x',
  '+import y',
  ' ',
  '',
].join('\n');

const django = {
  instance_id: 'django__django-11099',
  repo: 'django/django',
  version: '3.0',
  base_commit: 'a'.repeat(40),
  test_patch: TEST_PATCH,
  patch: '',
  problem_statement: '',
  hints_text: '',
  FAIL_TO_PASS: [],
  PASS_TO_PASS: [],
} as SweInstance;

describe('makeInstanceSpec', () => {
  it('resolves the spec, test directives, official image and eval script of a real row, with no Docker involved', () => {
    const spec = makeInstanceSpec(django);
    expect(spec.spec.pattern).toBe('django/django');
    expect(spec.testDirectives).toEqual(['admin_views.tests']);
    expect(spec.officialImage).toBe('swebench/sweb.eval.x86_64.django_1776_django-11099:latest');
    const script = spec.evalScript({ prelude: ['source /opt/miniconda3/bin/activate'] });
    expect(script).toContain(`git checkout ${django.base_commit} tests/admin_views/tests.py`);
    expect(script).toContain(`${spec.spec.spec.test_cmd} admin_views.tests`);
    expect(script.indexOf('source /opt/miniconda3/bin/activate')).toBeLessThan(script.indexOf('git status'));
  });

  it('says which repository or version lacks a spec', () => {
    expect(() => makeInstanceSpec({ ...django, repo: 'nobody/nothing' })).toThrow(/no environment spec for repository nobody\/nothing/);
    expect(() => makeInstanceSpec({ ...django, version: '0.0.1' })).toThrow(/no environment spec for django\/django version "0.0.1"/);
  });
});

describe('log parsers named by specs', () => {
  it('every builtin spec names a parser validation knows', () => {
    const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/harness/specs');
    const files = [
      ...SPEC_FILES,
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => path.join(dir, f)),
    ];
    expect(files.length).toBeGreaterThan(8);
    const named = files
      .flatMap((f) => Object.values((JSON.parse(readFileSync(f, 'utf8')) as { repos: Record<string, { log_parser: string }> }).repos))
      .map((entry) => entry.log_parser);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect(LOG_PARSER_NAMES).toContain(name);
    expect(loadBuiltinSpecs().get('sympy/sympy', '1.1').logParser).toBe('sympy');
  });

  it('an unknown parser name is a clear error at grading time, not a crash while loading specs', () => {
    const registry = new SpecRegistry().add({ repos: { 'o/r': { log_parser: 'junit', groups: [{ versions: ['*'], spec: { test_cmd: 'mvn test' } }] } } });
    const spec = registry.get('o/r', '1');
    expect(() => logParserFor(spec)).toThrow(/o\/r@1 names log parser "junit"; known: pytest, /);
  });
});
