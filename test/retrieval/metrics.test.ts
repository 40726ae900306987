import { describe, expect, it } from 'vitest';
import { goldFilesFromPatch, goldPaths } from '../../src/dataset/gold.ts';
import { computeLocMetrics, firstGoldRank, formatLocMetricsTable, metricsSummary, lastGoldRank } from '../../results/loc-metrics.ts';

const PATCH = `diff --git a/pkg/core.py b/pkg/core.py
index 1111111..2222222 100644
--- a/pkg/core.py
+++ b/pkg/core.py
@@ -1,3 +1,3 @@
-x = 1
+x = 2
diff --git a/pkg/new_mod.py b/pkg/new_mod.py
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/pkg/new_mod.py
@@ -0,0 +1 @@
+y = 1
diff --git a/pkg/old.py b/pkg/old.py
deleted file mode 100644
index 4444444..0000000
--- a/pkg/old.py
+++ /dev/null
@@ -1 +0,0 @@
-z = 1
diff --git a/pkg/a.py b/pkg/b.py
similarity index 90%
rename from pkg/a.py
rename to pkg/b.py
diff --git "a/pkg/sp ace\\303\\251.py" "b/pkg/sp ace\\303\\251.py"
--- "a/pkg/sp ace\\303\\251.py"
+++ "b/pkg/sp ace\\303\\251.py"
@@ -1 +1 @@
-a
+b
`;

describe('gold files', () => {
  it('reads modified, added, deleted, renamed and quoted paths', () => {
    expect(goldFilesFromPatch(PATCH)).toEqual([
      { path: 'pkg/core.py', status: 'modified' },
      { path: 'pkg/new_mod.py', status: 'added' },
      { path: 'pkg/old.py', status: 'deleted' },
      { path: 'pkg/a.py', status: 'renamed', newPath: 'pkg/b.py' },
      { path: 'pkg/sp aceé.py', status: 'modified' },
    ]);
    expect(goldPaths('')).toEqual([]);
    expect(() => goldPaths('not a patch')).toThrow(/diff --git/);
  });
});

describe('localization metrics', () => {
  it('first gold rank is 1-based; none is null', () => {
    expect(firstGoldRank(['a', 'b', 'c'], ['c', 'b'])).toBe(2);
    expect(firstGoldRank(['a'], ['z'])).toBeNull();
  });

  it('a miss and a failure count 0 and stay in the denominator', () => {
    const m = computeLocMetrics([
      { instanceId: 'i1', gold: ['g'], ranking: ['g', 'x'] }, // rank 1
      { instanceId: 'i2', gold: ['g'], ranking: ['a', 'b', 'c', 'g'] }, // rank 4
      { instanceId: 'i3', gold: ['g'], ranking: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, // rank 7
      { instanceId: 'i4', gold: ['g'], ranking: ['a'] }, // miss
      { instanceId: 'i5', gold: ['g'] }, // failed
    ]);
    expect(m.ranks).toEqual({ i1: 1, i2: 4, i3: 7, i4: null, i5: null });
    expect(m.n).toBe(5);
    expect(m.failed).toBe(1);
    expect(m.top1).toBeCloseTo(1 / 5, 12);
    expect(m.top3).toBeCloseTo(1 / 5, 12);
    expect(m.top5).toBeCloseTo(2 / 5, 12);
    expect(m.top10).toBeCloseTo(3 / 5, 12);
    expect(m.top15).toBeCloseTo(3 / 5, 12);
    expect(m.mrr).toBeCloseTo((1 + 1 / 4 + 1 / 7) / 5, 12);
    expect(Object.keys(metricsSummary(m))).toEqual(['n', 'top1', 'top3', 'top5', 'top10', 'top15', 'mrr', 'acc1', 'acc3', 'acc5', 'acc10', 'acc15']);
    // one gold file each: Acc@k equals Top-k
    expect([m.acc1, m.acc5, m.acc10]).toEqual([m.top1, m.top5, m.top10]);
  });

  it('Acc@k needs every gold file within the first k; Top-k only one', () => {
    const m = computeLocMetrics([
      { instanceId: 'both-early', gold: ['a', 'b'], ranking: ['a', 'b', 'x'] },
      { instanceId: 'one-late', gold: ['a', 'b'], ranking: ['a', 'x', 'y', 'z', 'w', 'b'] }, // b at 6
      { instanceId: 'one-missing', gold: ['a', 'b'], ranking: ['a', 'x'] },
      { instanceId: 'failed', gold: ['a'] },
    ]);
    expect([m.top1, m.top5, m.top10]).toEqual([0.75, 0.75, 0.75]);
    expect([m.acc1, m.acc3, m.acc5, m.acc10, m.acc15]).toEqual([0, 0.25, 0.25, 0.5, 0.5]);
    expect(lastGoldRank(['a', 'x', 'b'], ['b', 'a'])).toBe(3);
    expect(lastGoldRank(['a'], ['a', 'b'])).toBeNull();
  });

  it('rank 15 counts for Top-15 only', () => {
    const ranking = Array.from({ length: 14 }, (_, i) => `f${i}`).concat('g');
    const m = computeLocMetrics([{ instanceId: 'x', gold: ['g'], ranking }]);
    expect([m.top10, m.top15, m.mrr]).toEqual([0, 1, 1 / 15]);
  });

  it('empty selection gives zeros, and the table has one row per label', () => {
    const m = computeLocMetrics([]);
    expect(m.n).toBe(0);
    expect(m.mrr).toBe(0);
    const table = formatLocMetricsTable([{ label: 'bm25', metrics: m }]).split('\n');
    expect(table).toHaveLength(2);
    expect(table[0]).toMatch(/Top-1.*MRR/);
  });
});
