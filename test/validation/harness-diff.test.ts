/**
 * One run's logs graded under two harness releases (issue 51): the verdicts under each, the instances where they
 * disagree with the rule that decided it, written beside the evaluation.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instanceLogDir } from '../../validation/evaluate.ts';
import { compareReleases, describeHarnessDiff, HARNESS_DIFF_FILE } from '../../validation/harness-diff.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';

const script = (lines: string[], code: number) =>
  ["+ : '>>>>> Start Test Output'", ...lines, "+ : '>>>>> End Test Output'", `+ echo '>>>>> Test Exit Code: ${code}'`, `>>>>> Test Exit Code: ${code}`].join(
    '\n',
  );

describe('grading one run under two harness releases', () => {
  let root: string;
  let fixture: EvalFixture;
  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-harness-diff-'));
    fixture = buildEvalFixture();
  });
  afterAll(async () => {
    fixture?.cleanup();
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('lists the instances where the releases disagree, with the rule that decided each', async () => {
    const base = fixture.instance;
    const all = [...base.FAIL_TO_PASS, ...base.PASS_TO_PASS];
    const passed = all.map((t) => `PASSED ${t}`);
    const closing = `===== ${all.length} passed in 0.05s =====`;
    const instances = ['exit-code', 'clean', 'no-log'].map((name) => ({ ...base, instance_id: `minibench__clampkit-${name}` }));
    const logs: Record<string, string> = {
      // every test passes, but the runner exited 1: 4.1 resolves it, 5.0.2's exit-code check (#620) does not grade it
      'minibench__clampkit-exit-code': script([...passed, closing], 1),
      'minibench__clampkit-clean': script([...passed, closing], 0),
    };
    for (const [id, log] of Object.entries(logs)) {
      const dir = instanceLogDir(root, 'run-1', id);
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, 'test_output.txt'), log);
    }
    const diff = await compareReleases({ runsDir: root, runId: 'run-1', dataset: instances, releases: ['5.0.2', '4.1'], unforgeable: false });
    expect(diff).toMatchObject({ releases: ['5.0.2', '4.1'], graded: 2, resolved: { '5.0.2': 1, '4.1': 2 } });
    expect(diff.disagreements).toEqual([
      {
        instanceId: 'minibench__clampkit-exit-code',
        verdicts: { '5.0.2': false, '4.1': true },
        notGraded: { '5.0.2': 'the test command exited 1 but the log reports no failing test' },
        causes: { '4.1': 'not graded under 5.0.2: the test command exited 1 but the log reports no failing test' },
      },
    ]);
    const written = JSON.parse(await fs.readFile(path.join(root, 'run-1', 'evaluation', HARNESS_DIFF_FILE), 'utf8'));
    expect(written).toEqual(diff);
    expect(describeHarnessDiff(diff)).toEqual([
      'Graded again under 5.0.2, 4.1: 2 logs',
      '  resolved under 5.0.2: 1',
      '  resolved under 4.1: 2',
      '  instances where 4.1 disagrees with 5.0.2: 1',
      '    minibench__clampkit-exit-code: unresolved under 5.0.2, resolved under 4.1 (not graded under 5.0.2: the test command exited 1 but the log reports no failing test)',
    ]);
  });
});
