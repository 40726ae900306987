/**
 * `locfix evaluate` folders are arms by everything that made their verdicts (issue 52): the same predictions graded
 * under harness 5.0.2 and under 4.1 are two arms, not repeats of one; graded alike, they are one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordEvaluationRun } from '../../app/engine/evaluation-folder.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { openRunFolder } from '../../results/run-folder.ts';
import { analyzeRun } from '../../results/run-analysis.ts';
import { headline } from '../../results/instance-account.ts';
import { sharedMiniBenchmark } from '../minibench/shared.ts';
import type { GradingRules } from '../../validation/grading-rules.ts';

const instance = {
  instance_id: 'minibench__clampkit-1',
  repo: 'minibench/clampkit',
  base_commit: 'a'.repeat(40),
  problem_statement: 'x',
  patch: 'diff --git a/x b/x\n',
  test_patch: '',
  version: '0.1',
  FAIL_TO_PASS: ['t::a'],
  PASS_TO_PASS: [],
} as unknown as SweInstance;

describe('evaluation folders as arms', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  const folderGradedBy = async (grading: GradingRules) => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'locfix-eval-arm-'));
    roots.push(root);
    await recordEvaluationRun(root, {
      dataset: [instance],
      datasetName: 'rows.jsonl',
      predictions: [{ instance_id: instance.instance_id, model_name_or_path: 'm', model_patch: 'diff --git a/x b/x\n' }],
      outcomes: [{ instanceId: instance.instance_id, completed: true, resolved: true, reused: false, durationMs: 1 }],
      source: '/somewhere/preds.jsonl',
      network: 'none',
      grading,
    });
    return (await openRunFolder(root)).arm;
  };

  it('the same predictions graded under 5.0.2 and 4.1 are two arms; graded alike (defaults written out or not), one', async () => {
    const current = await folderGradedBy({ harness: '5.0.2', unforgeable: true });
    const legacy = await folderGradedBy({ harness: '4.1', unforgeable: true });
    const exact = await folderGradedBy({ harness: '5.0.2', unforgeable: false });
    const again = await folderGradedBy({ harness: '5.0.2', unforgeable: true, testMachinery: 'restore' });
    expect(current.key).toBeDefined();
    expect(legacy.key).not.toBe(current.key);
    expect(exact.key).not.toBe(current.key);
    expect(again.key).toBe(current.key);
    expect(current.settings).toMatchObject({ evaluate: { grading: { harness: '5.0.2', unforgeable: true, testMachinery: 'restore' } } });
  });

  it('an empty prediction is judged an empty patch, never "not reached" for want of stages the folder never had', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'locfix-eval-empty-'));
    roots.push(root);
    const ids = ['1', '2', '3', '4', '5'].map((n) => `minibench__clampkit-${n}`);
    const patch = 'diff --git a/x b/x\n';
    await recordEvaluationRun(root, {
      dataset: ids.map((id) => ({ ...instance, instance_id: id })),
      datasetName: 'rows.jsonl',
      predictions: ids.map((id, i) => ({ instance_id: id, model_name_or_path: 'm', model_patch: i < 3 ? patch : '' })),
      outcomes: ids.slice(0, 3).map((id, i) => ({ instanceId: id, completed: true, resolved: i === 0, reused: false, durationMs: 1 })),
      source: '/somewhere/preds.jsonl',
      network: 'none',
      grading: { harness: '5.0.2', unforgeable: true },
    });
    const failures = (await analyzeRun(root)).report.failures;
    // before: the 2 empty predictions were "not reached" (localize-files not run), and the rate 1 of 3 (33.3 %)
    expect(failures.categories['empty-patch'].count).toBe(2);
    expect(failures.categories['not-reached'].count).toBe(0);
    expect(headline(failures)).toBe('resolved 1 of 5 (20.0 %)');
  });

  it('analyze reads base files from --mirrors when the folder names none (before: it suggested a flag it did not take)', async () => {
    const bench = await sharedMiniBenchmark();
    const row = bench.instances.find((i) => i.patch.includes('def '))!;
    const root = await mkdtemp(path.join(os.tmpdir(), 'locfix-eval-mirrors-'));
    roots.push(root);
    await recordEvaluationRun(root, {
      dataset: [row],
      datasetName: 'rows.jsonl',
      predictions: [{ instance_id: row.instance_id, model_name_or_path: 'm', model_patch: row.patch }],
      outcomes: [{ instanceId: row.instance_id, completed: true, resolved: true, reused: false, durationMs: 1 }],
      source: 'preds.jsonl',
      network: 'none',
      grading: { harness: '5.0.2', unforgeable: true },
      // an older evaluate folder: no record of where its repositories were
    });
    const blind = await analyzeRun(root);
    expect(blind.warnings.join('\n')).toMatch(/mirror|clone|repository/i);
    const seeing = await analyzeRun(root, { mirrorsDir: bench.mirrorsDir });
    expect(seeing.warnings).toEqual([]);
  });
});
