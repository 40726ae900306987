import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import { selectPatch, type VotingSample } from '../../repair/select.ts';
import type { CandidateValidation } from '../../repair/types.ts';
import { runRegressionTests, selectRegressionTests, fencedLines, type Candidate } from '../../validation/regression.ts';
import {
  extractScript,
  normalizeScript,
  outcomeOf,
  runReproductionTest,
  selectReproductionScript,
  generateReproductionScripts,
} from '../../validation/reproduction.ts';
import { InstanceTestbed } from '../../validation/testbed.ts';
import { validateCandidates } from '../../validation/candidates.ts';
import { sandboxKinds } from '../support/sandbox-kinds.ts';
import { buildEvalFixture, type EvalFixture } from '../support/eval-fixture.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

describe('reproduction and regression helpers', () => {
  it('outcomes need exactly one marker line', () => {
    expect(outcomeOf('Issue reproduced\n')).toBe('reproduced');
    expect(outcomeOf('debug\nIssue resolved\n')).toBe('resolved');
    expect(outcomeOf('Other issues')).toBe('other');
    expect(outcomeOf('Issue resolved\nIssue reproduced')).toBe('other');
    expect(outcomeOf('Issue resolved!')).toBe('none');
  });

  it('scripts compare without comments, blank lines and spacing', () => {
    expect(normalizeScript('# setup\nx  =  1\n\n\nif x:\n    print( x )   # show\n')).toBe('x = 1\nif x:\n    print( x ) # show');
    expect(normalizeScript('x = 1\n# other comment\nif x:\n    print( x )   # show')).toBe(
      normalizeScript('x=1'.replace('x=1', 'x = 1') + '\nif x:\n    print( x ) # show'),
    );
    expect(extractScript('Here:\n```python\nprint(1)\n```\n```\nother\n```')).toBe('print(1)\n');
    expect(extractScript('no code')).toBeUndefined();
    expect(fencedLines('a\n```\ntests/a.py::x\n\n tests/b.py::y \n```')).toEqual(['tests/a.py::x', 'tests/b.py::y']);
  });
});

const KINDS = await sandboxKinds('regression/reproduction filter tests');

const REPRODUCER = [
  'from clampkit import clamp',
  '',
  'try:',
  '    value = clamp(15, 0, 10)',
  'except Exception:',
  '    print("Other issues")',
  'else:',
  '    if value == 10:',
  '        print("Issue resolved")',
  '    elif value == 0:',
  '        print("Issue reproduced")',
  '    else:',
  '        print("Other issues")',
  '',
].join('\n');

describe.each(KINDS)('regression and reproduction filters in the $name sandbox', (kind) => {
  const runtime = kind.runtime;
  let fixture: EvalFixture;
  let server: ScriptedModelServer;
  let testbed: InstanceTestbed;

  beforeAll(async () => {
    fixture = buildEvalFixture();
    server = await startScriptedModelServer({
      rules: [
        {
          name: 'exclude',
          match: 'Name only those tests',
          respond: 'A fix changes addition? No, but to be safe:\n```\ntests/test_core.py::test_add\n```',
        },
        {
          name: 'reproduce',
          match: 'reproduces the following issue',
          // greedy (temperature 0) answer, then the sampled ones by sample index (it keeps counting across tests)
          respond: (request, i) =>
            request.temperature === 0
              ? '```python\n' + REPRODUCER + '```'
              : [
                  '```python\n# same script, other comments\n' + REPRODUCER.replace('value = clamp', 'value  = clamp') + '```',
                  '```python\nprint("Other issues")\n```',
                  '```python\nprint("Issue resolved")\n```',
                  'I cannot write this script.',
                  '```python\nprint("Issue reproduced")\n```',
                ][i % 5],
        },
      ],
    });
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    testbed = await InstanceTestbed.open(runtime, images, fixture.instance, { runId: `test-filters-${process.pid}`, timeoutMs: 60_000 });
  });

  afterAll(async () => {
    await testbed?.close();
    await server?.stop?.();
    fixture?.cleanup();
  });

  function samples(): { voting: VotingSample[]; candidates: Candidate[] } {
    // 3 votes for a patch that does not fix the bug, 2 for one that fixes it but breaks add(), 1 for the gold fix
    const plan: Array<[string, string]> = [
      ['wrong', fixture.patches.wrong],
      ['wrong', fixture.patches.wrong],
      ['fixBreaksAdd', fixture.patches.fixBreaksAdd],
      ['wrong', fixture.patches.wrong],
      ['fixBreaksAdd', fixture.patches.fixBreaksAdd],
      ['gold', fixture.patches.gold],
    ];
    const voting = plan.map(([key, diff], i) => ({ id: `s${i}`, setIndex: 0, sampleIndex: i, diff, normalized: key }));
    return { voting, candidates: plan.map(([key, patch]) => ({ key, patch })) };
  }

  it('the filters move the selection from the majority to the right patch, and the model exclusion matters', async () => {
    const { voting, candidates } = samples();
    expect(selectPatch(voting).normalized).toBe('wrong');

    // Regression tests without the model: every test passing on the unpatched checkout is kept.
    const all = await selectRegressionTests(testbed);
    expect(all.command).toBe('pytest --no-header -rA --tb=no -p no:cacheprovider tests/test_core.py');
    expect(all.tests.sort()).toEqual(['tests/test_core.py::test_add', 'tests/test_core.py::test_clamp_inside', 'tests/test_core.py::test_clamp_low']);
    const regression = await runRegressionTests(testbed, all, candidates);
    expect(regression.size).toBe(3); // identical normalized patches run once
    expect(Object.fromEntries([...regression].map(([k, r]) => [k, r.regressionFailures]))).toEqual({ wrong: 0, fixBreaksAdd: 1, gold: 0 });
    expect(regression.get('fixBreaksAdd')!.failing).toEqual(['tests/test_core.py::test_add']);

    // Reproduction scripts from the scripted model: greedy + 5 samples.
    const model = createChatModel(`openai:scripted@${server.openaiURL}`);
    const scripts = await generateReproductionScripts(model, fixture.instance.problem_statement, { samples: 6 });
    expect(scripts).toHaveLength(6);
    const chosen = await selectReproductionScript(testbed, scripts);
    expect(chosen.outcomes).toEqual(['reproduced', 'reproduced', 'other', 'resolved', 'none', 'reproduced']);
    expect(chosen.reproducing).toEqual([0, 1, 5]);
    expect(chosen.script).toBe(scripts[0]);
    const reproduction = await runReproductionTest(testbed, chosen.script!, candidates);
    expect(Object.fromEntries([...reproduction].map(([k, r]) => [k, r.reproductionPassed]))).toEqual({ wrong: false, fixBreaksAdd: true, gold: true });

    const validation = (failures: Map<string, { regressionFailures: number }>): Map<string, CandidateValidation> =>
      new Map(
        candidates.map((c) => [
          c.key,
          { regressionFailures: failures.get(c.key)!.regressionFailures, reproductionPassed: reproduction.get(c.key)!.reproductionPassed },
        ]),
      );
    const both = selectPatch(voting, validation(regression));
    expect(both.filter).toBe('regression+reproduction');
    expect(both.normalized).toBe('gold');
    const regressionOnly = selectPatch(voting, new Map(candidates.map((c) => [c.key, { regressionFailures: regression.get(c.key)!.regressionFailures }])));
    expect(regressionOnly.normalized).toBe('wrong');

    // With the model excluding test_add (a test the fix "may change"), the two-vote patch survives the filters.
    const excluding = await selectRegressionTests(testbed, { model });
    expect(excluding.excluded).toEqual(['tests/test_core.py::test_add']);
    const regression2 = await runRegressionTests(testbed, excluding, candidates);
    expect(regression2.get('fixBreaksAdd')!.regressionFailures).toBe(0);
    expect(selectPatch(voting, validation(regression2)).normalized).toBe('fixBreaksAdd');

    // one container served every run
    expect(testbed.containersStarted).toBe(1);
  }, 600_000);

  it("a candidate's test machinery is left out of its regression run: a failure-hiding conftest hook wins no vote (issue 51)", async () => {
    const all = await selectRegressionTests(testbed);
    // fixBreaksAdd breaks add(); with the #631 conftest hook its failure would be reported passed
    const hiding = `${fixture.patches.fixBreaksAdd.trimEnd()}\n${fixture.patches.forgesByReportHook}`;
    const regression = await runRegressionTests(testbed, all, [{ key: 'hiding', patch: hiding }]);
    expect(regression.get('hiding')!.regressionFailures).toBe(1);
    expect(regression.get('hiding')!.failing).toEqual(['tests/test_core.py::test_add']);
  });

  it("a candidate's [tool:pytest] section is left out too: a setup.cfg that shadows the broken package wins no vote", async () => {
    const all = await selectRegressionTests(testbed);
    // the shadow copy on sys.path has a working add(); the candidate's own add() is broken
    const shadowing = `${fixture.patches.fixBreaksAdd.trimEnd()}\n${fixture.patches.forgesBySetupCfg}`;
    const regression = await runRegressionTests(testbed, all, [{ key: 'shadowing', patch: shadowing }]);
    expect(regression.get('shadowing')!.failing).toEqual(['tests/test_core.py::test_add']);
  });

  it('validateCandidates: both filters in one sandbox, keyed for selectPatch', async () => {
    const { voting, candidates } = samples();
    const model = createChatModel(`openai:scripted@${server.openaiURL}`);
    const images = kind.images({ gitDir: async () => fixture.gitDir }, { useOfficialImages: false });
    const report = await validateCandidates({
      runtime,
      images,
      runId: `test-filters-${process.pid}`,
      instance: fixture.instance,
      candidates,
      model,
      reproductionSamples: 6,
      timeoutMs: 60_000,
    });
    expect(report.notes).toEqual([]);
    expect(Object.fromEntries(report.validation)).toEqual({
      wrong: { regressionFailures: 0, reproductionPassed: false },
      fixBreaksAdd: { regressionFailures: 0, reproductionPassed: true },
      gold: { regressionFailures: 0, reproductionPassed: true },
    });
    expect(report.regression!.selection.excluded).toEqual(['tests/test_core.py::test_add']);
    expect(selectPatch(voting, report.validation).normalized).toBe('fixBreaksAdd');
  }, 600_000);

  it('a timed-out candidate counts every regression test as failing, and the testbed recovers', async () => {
    const all = await selectRegressionTests(testbed);
    const started = testbed.containersStarted;
    const results = await runRegressionTests(
      testbed,
      all,
      [
        { key: 'hang', patch: fixture.patches.hangsInAdd },
        { key: 'gold', patch: fixture.patches.gold },
      ],
      { timeoutMs: 20_000 },
    );
    expect(results.get('hang')).toMatchObject({ timedOut: true, regressionFailures: 3 });
    expect(results.get('gold')).toMatchObject({ timedOut: false, regressionFailures: 0 });
    expect(testbed.containersStarted).toBe(started + 1);
    const noApply = await runRegressionTests(testbed, all, [{ key: 'x', patch: fixture.patches.notApplicable }]);
    expect(noApply.get('x')).toMatchObject({ applied: false, regressionFailures: 3 });
  }, 300_000);
});
