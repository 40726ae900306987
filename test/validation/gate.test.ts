/**
 * The gate (issue 52): each row's gold patch and empty patch run on this machine. A row passes when gold resolves
 * and the empty patch does not; a row with an id the gold run never reports (`[100%]`), one whose FAIL_TO_PASS
 * already passes without a fix, and one whose image cannot be had are named with their reason, and `analyze` gives
 * the rate over the rows that pass beside the rate over all rows.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvaluationRun } from '../../app/engine/evaluation-folder.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { RepoStore } from '../../src/repo/store.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { headline } from '../../results/instance-account.ts';
import { analyzeRun } from '../../results/run-analysis.ts';
import { describeGate, readGate, runGate } from '../../validation/gate.ts';
import { sandboxKinds } from '../support/sandbox-kinds.ts';

const KINDS = await sandboxKinds('the gate');

describe.each(KINDS)('the gate in the $name sandbox', (kind) => {
  let root: string;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-gate-'));
  });
  afterAll(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('passes the good rows and names why the others cannot be resolved here', { timeout: 600_000 }, async () => {
    const bench = await buildMiniBenchmark(path.join(root, 'minibench'));
    const [good, ghostId, passesAlready, lostCommit] = bench.instances.filter((i) => i.PASS_TO_PASS.length > 0) as SweInstance[];
    const rows: SweInstance[] = [
      good!,
      // an id no test run reports: no patch can make it pass
      { ...ghostId!, FAIL_TO_PASS: [...ghostId!.FAIL_TO_PASS, `${ghostId!.FAIL_TO_PASS[0]}[100%]`] },
      // a test that passes before the fix listed as failing before it: the empty patch "resolves" the row
      { ...passesAlready!, FAIL_TO_PASS: [passesAlready!.PASS_TO_PASS[0]!], PASS_TO_PASS: passesAlready!.PASS_TO_PASS.slice(1) },
      // a commit the mirror does not hold: no image, the environment's
      { ...lostCommit!, base_commit: 'f'.repeat(40) },
    ];
    const store = new RepoStore({ cacheDir: path.join(root, 'cache'), mirrorsDir: bench.mirrorsDir, allowClone: false });
    const runDir = path.join(root, 'runs', 'gated');
    try {
      const gate = await runGate({
        runDir,
        dataset: rows,
        runtime: kind.runtime,
        images: kind.images(store, { useOfficialImages: false }),
        maxWorkers: 2,
        timeoutMs: 300_000,
      });
      const byId = new Map(gate.rows.map((r) => [r.instanceId, r]));
      expect(byId.get(good!.instance_id)).toMatchObject({ passes: true, reasons: [], gold: [true], empty: false });
      expect(byId.get(ghostId!.instance_id)).toMatchObject({
        passes: false,
        reasons: ['unsatisfiable-test-ids'],
        unsatisfiable: [`${ghostId!.FAIL_TO_PASS[0]}[100%]`],
      });
      expect(byId.get(passesAlready!.instance_id)).toMatchObject({ passes: false, reasons: ['empty-resolves'], gold: [true], empty: true });
      const lost = byId.get(lostCommit!.instance_id)!;
      expect(lost.reasons).toEqual(['environment', 'empty-environment']);
      expect(gate.summary).toMatchObject({ rows: 4, passing: 1, byReason: { 'unsatisfiable-test-ids': 1, 'empty-resolves': 1, environment: 1 } });
      expect(describeGate(gate)[0]).toBe(
        'gate: 1 of 4 rows pass (gold resolves, the empty patch does not); unsatisfiable-test-ids 1, empty-resolves 1, environment 1, empty-environment 1',
      );
      expect((await readGate(runDir))?.summary.passing).toBe(1);

      // stored with the run: an evaluation of the gold patches there reads it, both rates labelled
      await recordEvaluationRun(runDir, {
        dataset: rows,
        datasetName: 'rows.jsonl',
        predictions: rows.map((r) => ({ instance_id: r.instance_id, model_name_or_path: 'gold', model_patch: r.patch })),
        outcomes: rows.map((r) => ({ instanceId: r.instance_id, completed: true, resolved: r === good, reused: false, durationMs: 1 })),
        source: 'gold',
        network: 'none',
        grading: { harness: '5.0.2', unforgeable: true },
      });
      const failures = (await analyzeRun(runDir)).report.failures;
      expect(headline(failures)).toBe('resolved 1 of 4 (25.0 %); over the 1 rows that pass the gate: 1 (100.0 %)');
    } finally {
      await store.close();
    }
  });
});
