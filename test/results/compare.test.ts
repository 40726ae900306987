import { describe, expect, it } from 'vitest';
import { compareRuns, type RunOutcome } from '../../results/compare.ts';
import { instanceMetrics, ndcgAt } from '../../results/instance-metrics.ts';

describe('instance metrics', () => {
  it('computes hit, MRR, R@3, F1, exact match and NDCG by hand', () => {
    const m = instanceMetrics(['x.py', 'a.py', 'y.py', 'b.py'], ['a.py', 'b.py']);
    expect(m).toMatchObject({ hit1: 0, hit3: 1, hit5: 1, hit10: 1, mrr: 0.5, r3: 0.5, exactMatch: 0 });
    // both gold files only by rank 4
    expect(m).toMatchObject({ acc1: 0, acc3: 0, acc5: 1, acc10: 1 });
    // predicted set {x, a, y}: precision 1/3, recall 1/2 -> F1 = 0.4
    expect(m.f1).toBeCloseTo(0.4, 12);
    // DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
    expect(m.ndcg10).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)), 12);
    expect(instanceMetrics(['a.py', 'b.py'], ['a.py', 'b.py'])).toMatchObject({ exactMatch: 1, f1: 1, ndcg10: 1 });
    expect(instanceMetrics(undefined, ['a.py'])).toMatchObject({ hit1: 0, acc10: 0, mrr: 0, f1: 0, exactMatch: 0 });
    expect(ndcgAt(['a', 'a', 'b'], new Set(['b']), 10)).toBeCloseTo(1 / Math.log2(3), 12);
  });
});

function run(
  runId: string,
  localizer: string,
  resolved: string[],
  rankings: Record<string, string[]>,
  emptyPatch: string[] = [],
  armKey: string | null = localizer,
): RunOutcome {
  const instances = ['r1__a-1', 'r1__a-2', 'r2__b-1', 'r2__b-2'];
  return {
    runId,
    localizer,
    ...(armKey !== null ? { armKey } : {}),
    instances,
    repoOf: Object.fromEntries(instances.map((id) => [id, id.split('__')[0]])),
    goldFiles: Object.fromEntries(instances.map((id) => [id, [`${id}.py`]])),
    rankings,
    resolved,
    emptyPatch,
  };
}

describe('compareRuns', () => {
  const hitAll = { 'r1__a-1': ['r1__a-1.py'], 'r1__a-2': ['r1__a-2.py'], 'r2__b-1': ['r2__b-1.py'], 'r2__b-2': ['r2__b-2.py'] };
  const missB2 = { ...hitAll, 'r2__b-2': ['x.py', 'y.py', 'z.py', 'r2__b-2.py'] };
  const outcomes = [
    run('agentless-1', 'agentless', ['r1__a-1'], missB2, ['r2__b-1']),
    run('agentless-2', 'agentless', ['r1__a-1', 'r1__a-2'], missB2),
    run('blagent-1', 'blagent', ['r1__a-1', 'r2__b-2'], hitAll),
    run('blagent-2', 'blagent', ['r2__b-2'], hitAll),
  ];
  const c = compareRuns(outcomes, { resamples: 2000 });

  it('counts resolved sets, unions, overlaps and empty patches', () => {
    expect(c.alignedInstances).toBe(4);
    expect(c.runs.map((r) => r.resolved)).toEqual([1, 2, 2, 1]);
    const [agentless, blagent] = c.arms;
    expect(agentless).toMatchObject({ meanResolved: 1.5, resolvedUnion: ['r1__a-1', 'r1__a-2'], resolvedInAllRuns: ['r1__a-1'], meanEmptyPatches: 0.5 });
    expect(blagent).toMatchObject({ resolvedUnion: ['r1__a-1', 'r2__b-2'], resolvedInAllRuns: ['r2__b-2'] });
    expect(c.resolvedUnion).toEqual(['r1__a-1', 'r1__a-2', 'r2__b-2']);
    expect(c.resolvedByAll).toEqual(['r1__a-1']);
  });

  it('lists unique fixes and whether the other localizer had the gold file (Table 10)', () => {
    expect(c.uniqueFixes).toEqual([
      { instanceId: 'r1__a-2', fixedBy: 'agentless', other: 'blagent', otherHadGoldFileInTop3: true },
      { instanceId: 'r2__b-2', fixedBy: 'blagent', other: 'agentless', otherHadGoldFileInTop3: false },
    ]);
  });

  it('tests solve frequencies with Wilcoxon and localization metrics with bootstrap and McNemar + Holm', () => {
    // solve frequencies: agentless [1, .5, 0, 0], blagent [.5, 0, 0, 1]
    expect(c.wilcoxon[0]).toMatchObject({ reference: 'agentless', alternative: 'blagent', referenceMean: 0.375, alternativeMean: 0.375 });
    const hit3 = c.metrics.find((m) => m.metric === 'hit3')!;
    expect(hit3.referenceMean).toBe(0.75);
    expect(hit3.alternativeMean).toBe(1);
    expect(hit3.bootstrap.estimate).toBeCloseTo(0.25, 12);
    expect(hit3.mcnemar).toMatchObject({ referenceOnly: 0, alternativeOnly: 1, pValue: 1 });
    expect(hit3.mcnemar!.holmPValue).toBe(1);
    expect(c.metrics.find((m) => m.metric === 'mrr')!.mcnemar).toBeUndefined();
    // deterministic with the fixed seed
    expect(compareRuns(outcomes, { resamples: 2000 }).metrics).toEqual(c.metrics);
  });
});

describe('arms', () => {
  const hitAll = { 'r1__a-1': ['r1__a-1.py'], 'r1__a-2': ['r1__a-2.py'], 'r2__b-1': ['r2__b-1.py'], 'r2__b-2': ['r2__b-2.py'] };
  const missAll = { 'r1__a-1': ['x.py'], 'r1__a-2': ['x.py'], 'r2__b-1': ['x.py'], 'r2__b-2': ['x.py'] };

  it('compares two configurations of one localizer pairwise instead of pooling them (an ablation)', () => {
    // before: both were the arm "retrieval", with no paired statistics and a pooled mean
    const c = compareRuns([run('ret-a', 'retrieval', [], hitAll, [], '{"history":1}'), run('ret-b', 'retrieval', [], missAll, [], '{"history":0}')], {
      resamples: 500,
    });
    expect(c.arms.map((a) => a.arm)).toEqual(['ret-a', 'ret-b']);
    const hit1 = c.metrics.find((m) => m.metric === 'hit1')!;
    expect([hit1.reference, hit1.alternative, hit1.referenceMean, hit1.alternativeMean]).toEqual(['ret-a', 'ret-b', 1, 0]);
  });

  it('keeps the reference unpooled beside a third localizer; runs differing by seed alone are one arm; --arm names arms', () => {
    const outcomes = [
      run('ret-a', 'retrieval', [], hitAll, [], 'A'),
      run('ret-b', 'retrieval', [], missAll, [], 'B'),
      run('bl-1', 'blagent', [], hitAll, [], 'K'),
      run('bl-2', 'blagent', [], missAll, [], 'K'),
    ];
    const c = compareRuns(outcomes, { resamples: 500 });
    expect(c.arms.map((a) => [a.arm, a.runs])).toEqual([
      ['ret-a', ['ret-a']],
      ['ret-b', ['ret-b']],
      ['blagent', ['bl-1', 'bl-2']],
    ]);
    expect(c.metrics.find((m) => m.metric === 'hit1' && m.alternative === 'blagent')!.referenceMean).toBe(1);
    const named = compareRuns(outcomes, { resamples: 500, arms: { full: ['ret-a'], ablated: ['ret-b'] } });
    expect(named.arms.map((a) => a.arm)).toEqual(['full', 'ablated', 'blagent']);
    expect(() => compareRuns(outcomes, { arms: { x: ['nope'] } })).toThrow(/no run "nope"/);
  });

  it('--arm pooling runs of different configurations is said, naming what differs (issue 41, item 8)', () => {
    const cascade = { ...run('casc', 'cascade', [], hitAll, [], 'C'), armSettings: { localizer: { name: 'cascade' }, topFiles: 3 } };
    const retrieval = { ...run('ret', 'retrieval', [], missAll, [], 'R'), armSettings: { localizer: { name: 'retrieval' }, topFiles: 3 } };
    const other = run('bl', 'blagent', [], hitAll, [], 'K');
    const pooled = compareRuns([cascade, retrieval, other], { resamples: 100, arms: { x: ['casc', 'ret'] } });
    const pooling = (c: ReturnType<typeof compareRuns>) => c.warnings.filter((w) => w.startsWith('--arm'));
    expect(pooling(pooled)).toEqual([
      '--arm x pools runs of different configurations (casc → ret: localizer.name: "cascade" → "retrieval"): its rates mix methods',
    ]);
    // repeats of one configuration pooled by name, and arms by key: nothing to say
    expect(pooling(compareRuns([cascade, { ...cascade, runId: 'casc-2' }, other], { resamples: 100, arms: { x: ['casc', 'casc-2'] } }))).toEqual([]);
    expect(pooling(compareRuns([cascade, retrieval], { resamples: 100 }))).toEqual([]);
    // an arm without recorded costs (an imported run) is said not to be compared on cost
    const costed = { ...cascade, operations: Object.fromEntries(cascade.instances.map((id) => [id, { agentSeconds: 1 }])) };
    expect(compareRuns([costed, retrieval], { resamples: 100 }).warnings).toEqual([
      'arm retrieval recorded no agent time or tokens on the instances compared (an imported run has what its source published): its cost is not compared',
    ]);
  });

  it('a run whose folder does not record its whole configuration is an arm of its own', () => {
    const c = compareRuns([run('old-a', 'retrieval', [], hitAll, [], null), run('old-b', 'retrieval', [], hitAll, [], null)], { resamples: 100 });
    expect(c.arms.map((a) => a.arm)).toEqual(['old-a', 'old-b']);
  });

  it('a run that judged none of the instances gives no resolution statistic, and no rate over nothing', () => {
    const evaluated = run('full', 'agentless', ['r1__a-1'], hitAll, [], 'X');
    const stopped = { ...run('no-docker', 'blagent', [], hitAll, [], 'Y'), judged: [] as string[] };
    const c = compareRuns([evaluated, stopped], { resamples: 100 });
    expect(c.judgedInstances).toBe(0);
    expect(c.resolutionInstances).toBe(0);
    expect(c.resolution).toEqual([]);
    expect(c.wilcoxon).toEqual([]);
    expect(c.runs.map((r) => [r.judged, r.resolved, r.notJudged])).toEqual([
      [0, 0, 0],
      [0, 0, 4],
    ]);
    expect(c.runs.every((r) => Number.isNaN(r.resolvedRate))).toBe(true);
    expect(c.localizedInstances).toBe(4);
  });
});

describe('one denominator in compare (issue 52)', () => {
  const ids = ['r1__a-1', 'r1__a-2', 'r2__b-1', 'r2__b-2', 'r3__c-1'];
  const outcome = (runId: string, resolved: string[], judged: string[] = ids): RunOutcome => ({
    runId,
    localizer: runId,
    armKey: runId,
    instances: ids,
    judged,
    localized: judged,
    repoOf: Object.fromEntries(ids.map((id) => [id, id.split('__')[0]!])),
    goldFiles: Object.fromEntries(ids.map((id) => [id, [`${id}.py`]])),
    rankings: Object.fromEntries(judged.map((id) => [id, [`${id}.py`]])),
    resolved,
    emptyPatch: [],
  });

  it('work a server did not do counts as unresolved and as a miss, and is said before any statistic', () => {
    const honest = outcome('honest', ['r1__a-1']);
    // the same method, its hard instances failed by a 503: before, only the 1 shared judged instance was compared
    const gamed = outcome('gamed', ['r1__a-1'], ['r1__a-1']);
    const c = compareRuns([honest, gamed], { resamples: 200 });
    expect(c.resolutionInstances).toBe(5);
    expect(c.runs.map((r) => [r.resolved, r.resolvedRate, r.notJudged])).toEqual([
      [1, 0.2, 0],
      [1, 0.2, 4],
    ]);
    expect(c.resolution[0]).toMatchObject({ n: 5, referenceRate: 0.2, alternativeRate: 0.2 });
    // not localized is a miss: Hit@1 1.0 against 0.2, not 1.0 against 1.0
    expect(c.runs.map((r) => r.localization.hit1)).toEqual([1, 0.2]);
    expect(c.warnings[0]).toMatch(/^before any statistic: honest did not judge 0 of 5 \(0\.0 %\), gamed 4 of 5 \(80\.0 %\)/);
  });

  it('a run that resolved 1 of 5 keeps its 1 beside a run that judged only its failures; one broken run erases no instance', () => {
    const good = outcome('good', ['r1__a-1']);
    const other = outcome('other', []);
    const broken = outcome('broken', [], ['r2__b-1']);
    const c = compareRuns([good, other, broken], { resamples: 200 });
    // before: the shared judged set was r2__b-1 alone, and the good run's mean resolved was 0.0
    expect(c.arms.map((a) => a.meanResolved)).toEqual([1, 0, 0]);
    // work not done, each arm's own outcome
    expect(c.arms.map((a) => a.meanNotJudged)).toEqual([0, 0, 4]);
    expect(c.resolution.map((r) => r.n)).toEqual([5, 5]);
  });

  it('each pair is over the instances its own runs selected: a run that selected fewer shrinks only its own pairs', () => {
    const a = outcome('a', ['r1__a-1', 'r1__a-2']);
    const b = outcome('b', ['r1__a-1']);
    const limited = { ...outcome('limited', ['r1__a-1'], ['r1__a-1', 'r1__a-2']), instances: ['r1__a-1', 'r1__a-2'] };
    const c = compareRuns([a, b, limited], { resamples: 200 });
    // before: every statistic over the 2 instances all three selected
    expect(c.alignedInstances).toBe(2);
    expect(c.resolution.map((r) => [r.alternative, r.n, r.referenceRate, r.alternativeRate])).toEqual([
      ['b', 5, 0.4, 0.2],
      ['limited', 2, 1, 0.5],
    ]);
    expect([...new Set(c.metrics.map((m) => `${m.alternative} ${m.n}`))]).toEqual(['b 5', 'limited 2']);
    expect(c.wilcoxon.map((w) => w.alternative)).toEqual(['b', 'limited']);
  });

  it('runs that share no instance are told so, and no cost is said to be missing', () => {
    const a = outcome('a', []);
    const b = { ...outcome('b', []), instances: ['r9__z-1'], judged: ['r9__z-1'] };
    const c = compareRuns([a, b], { resamples: 100 });
    expect(c.alignedInstances).toBe(0);
    expect(c.warnings).toEqual(['the runs share no selected instance: nothing is compared']);
  });
});

describe('resolution statistics between arms', () => {
  // 20 instances over 10 repositories; the reference resolves 0-6, alternative 1 resolves 7-19, alternative 2
  // resolves 1-6 and 7-11 (reference-only 1 — instance 0 —, alternative-only 5)
  const ids = Array.from({ length: 20 }, (_, i) => `r${i % 10}__x-${i}`);
  const outcome = (runId: string, localizer: string, resolved: number[]): RunOutcome => ({
    runId,
    localizer,
    armKey: localizer,
    instances: ids,
    repoOf: Object.fromEntries(ids.map((id) => [id, id.split('__')[0]!])),
    goldFiles: Object.fromEntries(ids.map((id) => [id, ['a.py']])),
    rankings: Object.fromEntries(ids.map((id) => [id, ['a.py']])),
    resolved: resolved.map((i) => ids[i]!),
    emptyPatch: [],
  });
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
  const c = compareRuns(
    [outcome('ref', 'retrieval', range(0, 7)), outcome('alt1', 'blagent', range(7, 20)), outcome('alt2', 'locagent', [...range(1, 7), ...range(7, 12)])],
    { resamples: 2000 },
  );

  it('gives the rate difference with paired intervals and exact McNemar, Holm across arms (SciPy values)', () => {
    const [alt1, alt2] = c.resolution;
    expect(alt1).toMatchObject({ reference: 'retrieval', alternative: 'blagent', n: 20, referenceRate: 0.35, alternativeRate: 0.65 });
    expect(alt1!.bootstrap.estimate).toBeCloseTo(0.3, 12);
    expect(alt1!.mcnemar).toMatchObject({ referenceOnly: 7, alternativeOnly: 13 });
    // scipy.stats.binomtest(7, 20, 0.5).pvalue and binomtest(1, 6, 0.5).pvalue
    expect(alt1!.mcnemar.pValue).toBeCloseTo(0.26317596435546875, 12);
    expect(alt2!.mcnemar).toMatchObject({ referenceOnly: 1, alternativeOnly: 5 });
    expect(alt2!.mcnemar.pValue).toBeCloseTo(0.21875, 12);
    // Holm over the two: 2 × 0.21875, and max(0.4375, 0.263…) for the other
    expect(alt1!.mcnemar.holmPValue).toBeCloseTo(0.4375, 12);
    expect(alt2!.mcnemar.holmPValue).toBeCloseTo(0.4375, 12);
    expect(alt1!.clusteredBootstrap.caveat).toBeUndefined();
  });

  it('has none when no instance was judged by every run', () => {
    const none = compareRuns([{ ...outcome('a', 'retrieval', [0]), judged: [] }, outcome('b', 'blagent', [1])], { resamples: 200 });
    expect(none.resolution).toEqual([]);
  });
});
