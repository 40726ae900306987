/**
 * The cascade through `locfix localize` (the single-stage path: runStageOver runs the share rule's run-level
 * pass), with two model-free tiers — retrieval, then the oracle — so no model is needed; then `locfix
 * calibrate` on the retrieval run and `locfix import-run` of a predictions file. The CLI runs in a child
 * process.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runLocfix } from '../support/cli.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';

let dir: string;
let bench: MiniBenchBuild;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-cascade-cli-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const locfix = (args: string[]) => runLocfix(args, path.join(dir, 'cache'));

const common = () => ['--dataset', bench.datasetPath, '--mirrors', bench.mirrorsDir, '--cache-dir', path.join(dir, 'cache')];

describe('cascade, calibrate and import-run through the CLI', () => {
  it('locfix localize --localizer cascade escalates the least confident half to the oracle', { timeout: 300_000 }, async () => {
    const tiers = [{ localizer: 'retrieval', escalate: { signal: 'top-margin', share: 0.5 } }, { localizer: 'oracle' }];
    const run = path.join(dir, 'runs', 'cascade');
    const res = await locfix(['localize', '--localizer', 'cascade', '--localizer-options', JSON.stringify({ tiers }), ...common(), '--out', run]);
    expect(res.code, res.stderr).toBe(0);
    const plan = JSON.parse(await readFile(path.join(run, 'localize-files.parts', '_run', 'cascade-plan.json'), 'utf8'));
    expect(plan.tiers[0].escalated).toHaveLength(Math.round(bench.instances.length / 2));
    for (const inst of bench.instances) {
      const a = JSON.parse(await readFile(path.join(run, 'localize-files', `${inst.instance_id}.json`), 'utf8')) as StageArtifact<FileLocalization>;
      const c = a.output!.details!.cascade as { answeredBy: number };
      const escalated = plan.tiers[0].escalated.includes(inst.instance_id);
      expect(c.answeredBy, inst.instance_id).toBe(escalated ? 1 : 0);
      expect(a.output!.upperBound ?? false, inst.instance_id).toBe(escalated);
    }
    const evalRes = await locfix(['eval-loc', run, '--stage', 'localize-files', '--json']);
    expect(JSON.parse(evalRes.stdout).n).toBe(bench.instances.length);
  });

  it('locfix calibrate prints every retrieval signal and the curve to an upper tier; import-run reports bad rows', { timeout: 300_000 }, async () => {
    const retrieval = path.join(dir, 'runs', 'retrieval');
    expect((await locfix(['localize', '--localizer', 'retrieval', ...common(), '--out', retrieval])).code).toBe(0);
    const preds = path.join(dir, 'preds.jsonl');
    const lines = bench.instances.map((i) => JSON.stringify({ instance_id: i.instance_id, model_name_or_path: 'gold', model_patch: i.patch }));
    await writeFile(preds, [...lines, JSON.stringify({ instance_id: 'nobody', model_patch: '' }), '{oops'].join('\n'));
    const gold = path.join(dir, 'runs', 'gold');
    const imported = await locfix(['import-run', preds, '--format', 'predictions', '--dataset', bench.datasetPath, '--out', gold]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/row \d+ \(nobody\): not an instance of the dataset/);
    expect(imported.stderr).toMatch(/line is not JSON/);
    const res = await locfix(['calibrate', retrieval, '--escalate-to', gold, '--steps', '2', '--html', path.join(dir, 'calibration.html')]);
    expect(res.code, res.stderr).toBe(0);
    for (const signal of ['top-margin', 'top-ratio', 'channel-agreement', 'query-agreement'])
      expect(res.stdout).toContain(`${signal}: n ${bench.instances.length}`);
    // escalating everything to the gold patches' files gives Top-1 1
    expect(res.stdout).toMatch(/100%\s+100\.0%\s+all\s+1\.000/);
    expect(await readFile(path.join(dir, 'calibration.html'), 'utf8')).toContain('<svg');
  });
});
