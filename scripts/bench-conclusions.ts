/**
 * The conclusions benchmark: one `compare` and one `report` over run folders of any kind, and every statistic
 * the comparison prints checked against SciPy/NumPy on the same per-instance values:
 *
 *   npm run bench:conclusions -- RUN RUN … [--arm NAME=RUN,RUN] [--out DIR] [--no-check]
 *
 * The first run's arm is the reference. It writes `<out>/report.{json,md,html}` (what `locfix report` writes) and
 * `<out>/statistics.json`: per pair of arms, the aligned per-instance values and locfix's McNemar (exact, Holm),
 * paired and repository-clustered bootstrap intervals, and a Wilcoxon signed-rank test on per-instance reciprocal
 * ranks. `scripts/check-statistics.py` recomputes each from those values with scipy.stats.binomtest,
 * scipy.stats.wilcoxon and numpy.percentile over the same seeded resamples, and prints the largest difference.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RunOutcome } from '../results/compare.ts';
import { instanceMetrics } from '../results/instance-metrics.ts';
import { analyzeRun } from '../results/run-analysis.ts';
import { clusteredBootstrap, pairedBootstrap, wilcoxonSignedRank, DEFAULT_BOOTSTRAP } from '../results/statistics.ts';
import { parseArmFlags } from '../app/commands/report.ts';
import { writeReports } from '../results/report-files.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    arm: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: path.join('runs', 'conclusions') },
    check: { type: 'boolean', default: true },
    'no-check': { type: 'boolean', default: false },
  },
});

if (positionals.length < 2) throw new Error('usage: npm run bench:conclusions -- RUN RUN [RUN …] [--arm NAME=RUN,RUN] [--out DIR]');
const arms = parseArmFlags(values.arm);
const out = path.resolve(values.out);

const started = Date.now();
const analyses = await Promise.all(positionals.map((dir) => analyzeRun(dir)));
const report = await writeReports(analyses, out, arms);
const comparison = report.comparison!;
const armOf = new Map(comparison.runs.map((r) => [r.runId, r.arm]));

// the per-instance values the comparison used: instances every run localized, first run of each arm
const outcomes = analyses.map((a) => a.outcome);
const localized = outcomes.reduce<string[]>(
  (ids, o) => ids.filter((id) => o.instances.includes(id) && (o.localized ?? o.instances).includes(id)),
  outcomes[0].instances,
);
const goldOf = (id: string) => outcomes.find((o) => o.goldFiles[id]?.length)?.goldFiles[id] ?? [];
const repoOf = (id: string) => outcomes.find((o) => o.repoOf[id])?.repoOf[id] ?? 'unknown';
const firstRunOf = (arm: string): RunOutcome => outcomes.find((o) => armOf.get(o.runId) === arm)!;
const rowsOf = (o: RunOutcome) => localized.map((id) => instanceMetrics(o.rankings[id], goldOf(id), 3, o.predicted?.[id]));

const reference = comparison.arms[0].arm;
const pairs = comparison.arms.slice(1).map(({ arm }) => {
  const ref = rowsOf(firstRunOf(reference));
  const alt = rowsOf(firstRunOf(arm));
  const mcnemar = Object.fromEntries(comparison.metrics.filter((m) => m.alternative === arm && m.mcnemar).map((m) => [m.metric, m.mcnemar!]));
  const vectors = {
    hit1: { reference: ref.map((r) => r.hit1), alternative: alt.map((r) => r.hit1) },
    hit5: { reference: ref.map((r) => r.hit5), alternative: alt.map((r) => r.hit5) },
    mrr: { reference: ref.map((r) => r.mrr), alternative: alt.map((r) => r.mrr) },
  };
  const clusters = localized.map(repoOf);
  return {
    reference,
    alternative: arm,
    n: localized.length,
    mcnemar,
    bootstrap: Object.fromEntries(
      Object.entries(vectors).map(([metric, v]) => [
        metric,
        { paired: pairedBootstrap(v.reference, v.alternative), clustered: clusteredBootstrap(v.reference, v.alternative, clusters) },
      ]),
    ),
    // not in the comparison (it tests solve frequencies, and these runs were not evaluated): the same test on
    // per-instance reciprocal ranks, so that the Wilcoxon implementation meets real data too
    wilcoxonMrr: wilcoxonSignedRank(vectors.mrr.alternative, vectors.mrr.reference),
    vectors,
    clusters,
  };
});

await writeJsonAtomic(path.join(out, 'statistics.json'), { bootstrap: DEFAULT_BOOTSTRAP, localized, pairs });
process.stdout.write(
  `compare + report of ${positionals.length} runs in ${((Date.now() - started) / 1000).toFixed(1)} s -> ${path.join(out, 'report.html')}\n` +
    `aligned ${comparison.alignedInstances}, localized by every run ${comparison.localizedInstances}, judged by every run ${comparison.judgedInstances}\n`,
);
for (const p of pairs) {
  const h1 = p.mcnemar.hit1;
  const b = p.bootstrap.hit1;
  process.stdout.write(
    `${p.alternative} - ${p.reference}: Hit@1 Δ ${b.paired.estimate.toFixed(3)} [${b.paired.low.toFixed(3)}, ${b.paired.high.toFixed(3)}], clustered [${b.clustered.low.toFixed(3)}, ${b.clustered.high.toFixed(3)}], McNemar ${h1.referenceOnly}/${h1.alternativeOnly} p ${h1.pValue.toPrecision(4)} (Holm ${h1.holmPValue.toPrecision(4)}); Wilcoxon on RR p ${p.wilcoxonMrr.pValue.toPrecision(4)}\n`,
  );
}
if (values.check && !values['no-check']) {
  const script = path.join(import.meta.dirname, 'check-statistics.py');
  process.stdout.write(execFileSync('python3', [script, path.join(out, 'statistics.json')], { encoding: 'utf8' }));
}
