/**
 * Confidence signals, the escalation policy, calibration and the offline replay on hand-made runs, and the
 * import of published runs (BLAgent, LocAgent, SWE-bench predictions) into a run folder that the replay reads.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agreementWith, earlyStop, RATIO_CAP, scoreSignals } from '../../src/artifacts/confidence.ts';
import { decideBelow, leastConfident, mergeRankings, thresholdForShare } from '../../localizer/cascade/policy.ts';
import { auroc, buckets, calibrateRun } from '../../results/calibration.ts';
import { choosePolicy, escalationCurve, replayCascade, splitIds } from '../../results/cascade-replay.ts';
import { loadTierRun, type TierAnswer, type TierRun } from '../../results/tier-run.ts';
import { parseBlagentResults, parseLocOutputs, parsePredictions, writeImportedRun } from '../../localizer/interchange/published-runs.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';

describe('confidence signals', () => {
  it('ratio and margin of the first two scores, capped for a lone file', () => {
    expect(scoreSignals([4, 2, 1])).toEqual({ 'top-ratio': 2, 'top-margin': 0.5 });
    expect(scoreSignals([3])).toEqual({ 'top-ratio': RATIO_CAP, 'top-margin': 1 });
    expect(scoreSignals([0, 0])).toEqual({});
    expect(scoreSignals([])).toEqual({});
  });
  it('agreement is weighted, and empty lists disagree', () => {
    expect(agreementWith('a', [['a'], ['b'], []])).toBeCloseTo(1 / 3, 4);
    expect(agreementWith('a', [['a'], ['b']], [3, 1])).toBe(0.75);
    expect(agreementWith(undefined, [['a']])).toBeUndefined();
    expect(earlyStop(5, 20)).toBe(0.75);
  });
});

describe('escalation policy', () => {
  it('below: a missing signal escalates', () => {
    expect(decideBelow({ m: 0.2 }, 'm', 0.3).escalate).toBe(true);
    expect(decideBelow({ m: 0.3 }, 'm', 0.3).escalate).toBe(false);
    expect(decideBelow({}, 'm', 0.3)).toMatchObject({ escalate: true, reason: 'no m signal' });
  });
  it('share: exact count, ties by id, answers without the signal always taken', () => {
    const items = [
      { id: 'd', value: 0.5 },
      { id: 'c', value: 0.1 },
      { id: 'b', value: 0.1 },
      { id: 'a', value: 0.9 },
      { id: 'e', value: undefined },
    ];
    expect([...leastConfident(items, 0.4)]).toEqual(['e', 'b']);
    expect([...leastConfident(items, 0)]).toEqual(['e']);
    expect(leastConfident(items, 1).size).toBe(5);
  });
  it('replace keeps the upper answer; fuse ranks by reciprocal rank, ties in the upper order', () => {
    expect(mergeRankings(['a', 'b'], ['c'], 'replace')).toEqual(['c']);
    expect(mergeRankings(['a', 'b'], ['b', 'c'], 'fuse')).toEqual(['b', 'a', 'c']);
    expect(mergeRankings(['a'], ['c'], 'fuse')).toEqual(['c', 'a']);
  });
  it('threshold for a share sits between the k-th and (k+1)-th value', () => {
    expect(thresholdForShare([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(thresholdForShare([1, 2], 0)).toBe(-Infinity);
    expect(thresholdForShare([1, 2], 1)).toBe(Infinity);
  });
});

describe('calibration', () => {
  it('AUROC is 1 for a perfect separator, 0.5 for a constant, undefined without both classes', () => {
    expect(
      auroc([
        { value: 1, hit: 0 },
        { value: 2, hit: 1 },
      ]),
    ).toBe(1);
    expect(
      auroc([
        { value: 1, hit: 0 },
        { value: 1, hit: 1 },
      ]),
    ).toBe(0.5);
    expect(auroc([{ value: 1, hit: 1 }])).toBeUndefined();
  });
  it('buckets never split equal values', () => {
    const points = [0, 0, 0, 0, 1, 2].map((value, i) => ({ value, hit: i % 2 }));
    const b = buckets(points, 3);
    expect(b.map((x) => x.n)).toEqual([4, 2]);
    expect(b[0]).toMatchObject({ lo: 0, hi: 0, top1: 0.5 });
  });
});

const answer = (files: string[], confidence: Record<string, number>, llm = false, tokens = 0): TierAnswer => ({
  files,
  confidence,
  calls: llm ? 3 : 0,
  promptTokens: tokens,
  completionTokens: 0,
  tokensRecorded: true,
  usesLlm: llm,
});

function tier(name: string, localizer: string, answers: Record<string, TierAnswer>, gold: Record<string, string[]>): TierRun {
  return { name, dir: name, stage: 'localize-files', localizer, instances: Object.keys(gold), gold, answers: new Map(Object.entries(answers)) };
}

describe('offline replay', () => {
  // cheap is right exactly when it is confident; the upper tier is always right but costs 100 tokens
  const ids = Array.from({ length: 40 }, (_, i) => `i${String(i).padStart(2, '0')}`);
  const gold = Object.fromEntries(ids.map((id) => [id, [`${id}.py`]]));
  const cheap = tier(
    'cheap',
    'retrieval',
    Object.fromEntries(ids.map((id, i) => [id, answer(i % 2 ? [`${id}.py`] : ['wrong.py'], { m: i % 2 ? 0.9 : 0.1 })])),
    gold,
  );
  const upper = tier('llm', 'blagent', Object.fromEntries(ids.map((id) => [id, answer([`${id}.py`], {}, true, 100)])), gold);

  it('escalates the unsure half, keeps Top-1 of always escalating, and counts half the cost', () => {
    const { summary, outcomes } = replayCascade(ids, gold, [{ run: cheap, rule: { signal: 'm', below: 0.5 } }, { run: upper }]);
    expect(summary).toMatchObject({ n: 40, top1: 1, llmRuns: 20, calls: 60, tokens: 2000, reached: [1, 0.5] });
    expect(outcomes[0]!.reasons[0]).toBe('cheap: m 0.1 < 0.5');
  });
  it('chooses on one half and reports on the other', () => {
    const { a, b } = splitIds(ids, 'seed');
    expect(a.length + b.length).toBe(40);
    expect(splitIds(ids, 'seed')).toEqual({ a, b });
    const choice = choosePolicy(a, b, gold, { run: cheap }, { run: upper }, 'm');
    expect(choice.test.policy.top1).toBe(1);
    expect(choice.test.policy.llmRuns).toBe(b.filter((id) => Number(id.slice(1)) % 2 === 0).length);
    expect(choice.test.never.top1).toBeLessThan(1);
  });
  it('a missing upper answer leaves the lower one standing, and says so', () => {
    const partial = tier('llm', 'blagent', { i00: answer(['i00.py'], {}, true) }, gold);
    const out = replayCascade(['i02'], gold, [{ run: cheap, rule: { signal: 'm', below: 0.5 } }, { run: partial }]).outcomes[0]!;
    expect(out.files).toEqual(['wrong.py']);
    expect(out.reasons).toContain('llm has no answer: the answer below stands');
  });
  it('the escalation curve says the share actually escalated: with two signal values, 5-45 % asked escalate nothing and 50-95 % the same half', () => {
    // before: the curve's axis showed the share asked for, so 25 % and 90 % looked like different operating points
    const points = escalationCurve(ids, gold, { run: cheap }, { run: upper }, 'm', 20);
    const at = (share: number) => points.find((p) => Math.abs(p.share - share) < 1e-9)!;
    expect(at(0.25).escalated).toBe(0);
    expect(at(0.45).escalated).toBe(0);
    expect(at(0.5).escalated).toBe(0.5);
    expect(at(0.9).escalated).toBe(0.5);
    expect(at(0).escalated).toBe(0);
    expect(at(1).escalated).toBe(1);
  });
  it('calibrateRun finds the separating signal', () => {
    const [m] = calibrateRun(cheap);
    expect(m).toMatchObject({ signal: 'm', n: 40, auroc: 1 });
  });
});

describe('import of published runs', () => {
  const dataset = ['b__b-2', 'a__a-1', 'c__c-3'].map(
    (id): SweInstance =>
      ({
        instance_id: id,
        repo: 'o/r',
        base_commit: 'a'.repeat(40),
        problem_statement: `issue ${id}`,
        patch: `diff --git a/${id}.py b/${id}.py\n--- a/${id}.py\n+++ b/${id}.py\n@@ -1 +1 @@\n-a\n+b\n`,
      }) as SweInstance,
  );

  it('BLAgent: swe_data_index is the position in id order; a differing issue text is reported, not guessed', () => {
    const rows = [
      {
        swe_data_index: 0,
        problem_statement: 'issue a__a-1\r\n',
        ranked_scores: { 'x.py': 9, 'y.py': 3 },
        ranked_files: ['x.py', 'y.py'],
        final_reranked_files: [{ 'a__a-1.py': ['f'] }, { 'x.py': [] }],
        retrieved_files_t0: ['a__a-1.py'],
        retrieved_files_t1: ['z.py'],
        token_usage: { prompt_tokens: 10, output_tokens: 2 },
      },
      { swe_data_index: 1, problem_statement: 'something else', final_reranked_files: ['q.py'] },
      { swe_data_index: 7, final_reranked_files: ['q.py'] },
      { nothing: true },
    ];
    const parsed = parseBlagentResults(JSON.stringify(rows), dataset);
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.rows[0]).toMatchObject({
      instanceId: 'a__a-1',
      files: ['a__a-1.py', 'x.py'],
      functions: [{ path: 'a__a-1.py', name: 'f' }],
      tokens: { promptTokens: 10, completionTokens: 2 },
      confidence: { 'top-ratio': 3, 'query-agreement': 0.5 },
    });
    expect(parsed.problems.map((p) => p.reason)).toEqual([
      "swe_data_index 1 is b__b-2, whose issue text differs from the row's",
      "swe_data_index 7 is outside the dataset's 3 rows",
      'no integer swe_data_index',
    ]);
    // counted from 1, as the dataset loader counts rows (they counted from 0)
    expect(parsed.problems.map((p) => p.row)).toEqual([2, 3, 4]);
    expect(parsed.rows[0]!.row).toBe(1);
  });
  it("BLAgent's RAG baselines (rq1-2): rag_ranked_files is the answer, retrieved_files the retrieval; a row with neither names the keys read", () => {
    // before: 0 rows imported, each reported as lacking "retrieved_files", a key the parser did not read
    const rows = [
      { swe_data_index: 0, problem_statement: 'issue a__a-1', retrieved_files: ['x.py', 'a__a-1.py'], rag_ranked_files: ['a__a-1.py', 'x.py'] },
      { swe_data_index: 1, problem_statement: 'issue b__b-2', retrieved_files: ['b__b-2.py'], rag_ranked_files: [] },
      { swe_data_index: 2, problem_statement: 'issue c__c-3', retrieved_files: [] },
    ];
    const parsed = parseBlagentResults(JSON.stringify(rows), dataset);
    expect(parsed.rows.map((r) => [r.instanceId, r.files, r.details?.stage])).toEqual([
      ['a__a-1', ['a__a-1.py', 'x.py'], 'rag'],
      ['b__b-2', ['b__b-2.py'], 'retrieval'],
    ]);
    expect(parsed.problems[0].reason).toMatch(/rag_ranked_files, retrieved_files_t0, retrieved_files_base, retrieved_files$/);
  });

  it('LocAgent per-sample lists are merged, with their agreement; malformed lines are problems', () => {
    const text = [
      JSON.stringify({ instance_id: 'a__a-1', found_files: [['p.py', 'q.py'], ['p.py']], found_entities: [['p.py:C.m'], ['p.py:C.m']] }),
      'not json',
      JSON.stringify({ instance_id: 'c__c-3', found_files: 'p.py' }),
    ].join('\n');
    const parsed = parseLocOutputs(text, 'locagent');
    expect(parsed.rows[0]).toMatchObject({ files: ['p.py', 'q.py'], functions: [{ path: 'p.py', name: 'C.m' }], confidence: { 'sample-agreement': 1 } });
    // lines 2 and 3, counted from 1 as the dataset loader counts them (they read 1 and 2)
    expect(parsed.problems.map((p) => p.row)).toEqual([2, 3]);
  });
  it('predictions: the files the patch edits; unknown instances and duplicates are reported; the run replays', async () => {
    const patch = dataset[2]!.patch;
    const text = [
      { instance_id: 'c__c-3', model_patch: patch },
      { instance_id: 'c__c-3', model_patch: '' },
      { instance_id: 'zz', model_patch: '' },
      { instance_id: 'a__a-1', model_patch: 'garbage' },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
    const parsed = parsePredictions(text);
    expect(parsed.problems).toHaveLength(1);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-import-'));
    const report = await writeImportedRun(dir, parsed, dataset, { format: 'predictions', source: 'preds.jsonl', label: 'preds', datasetName: 'test' });
    expect(report.imported).toBe(1);
    expect(report.missing.sort()).toEqual(['a__a-1', 'b__b-2']);
    expect(report.problems.map((p) => p.reason)).toContain('not an instance of the dataset');
    expect(report.problems.map((p) => p.reason)).toContain('a second row for this instance (the first was kept)');
    expect(JSON.parse(await readFile(path.join(dir, 'import-report.json'), 'utf8')).imported).toBe(1);
    const run = await loadTierRun(dir);
    expect(run.answers.get('c__c-3')).toMatchObject({ files: ['c__c-3.py'], usesLlm: true, tokensRecorded: false });
    expect(run.instances).toHaveLength(3);
  });
});

describe('calibration charts', () => {
  it('one bar per bucket, one point per share of the curve', async () => {
    const { reliabilityDiagram, escalationCurveChart } = await import('../../results/calibration-chart.ts');
    const svg = reliabilityDiagram({
      signal: 'm',
      n: 4,
      missing: 0,
      top1: 0.5,
      auroc: 0.75,
      buckets: buckets(
        [0, 1, 2, 3].map((value) => ({ value, hit: value > 1 ? 1 : 0 })),
        2,
      ),
    });
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('AUROC 0.750');
    const curve = escalationCurveChart(
      'm',
      [0, 0.5, 1].map((share) => ({ share, top1: 0.5 + share / 4, llmRuns: share * 10 })),
    );
    expect(curve.match(/<circle /g)).toHaveLength(3);
  });
});
