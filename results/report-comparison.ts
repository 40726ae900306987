/** The comparison parts of the reports: its Markdown section and the tables the HTML report shares. */
import type { Comparison } from './compare.ts';
import { ci, mdTable, num, pct, pValue, smallSampleNote } from './report-format.ts';

/** The localization-metric comparison table, shared by the Markdown and the HTML report. */
export const METRIC_TABLE_HEADER = [
  'metric',
  'reference',
  'alternative',
  'ref',
  'alt',
  'Δ instance bootstrap',
  'Δ repository-clustered',
  'McNemar p',
  'Holm p',
];

export function metricTableRows(c: Comparison): string[][] {
  return c.metrics.map((m) => [
    m.metric,
    m.reference,
    m.alternative,
    num(m.referenceMean),
    num(m.alternativeMean),
    ci(m.bootstrap),
    ci(m.clusteredBootstrap),
    m.mcnemar ? pValue(m.mcnemar.pValue) : '',
    m.mcnemar ? pValue(m.mcnemar.holmPValue) : '',
  ]);
}

/** What the comparison's statistics are over: every aligned instance, with how many every run localized and judged. */
export function alignmentNote(c: Comparison): string {
  const parts = [
    `${c.alignedInstances} instances selected by every run (the tables); each pair's statistics are over the instances its runs selected (n in each row), work not done counting as a miss and as unresolved`,
  ];
  if (c.localizedInstances !== undefined) parts.push(`${c.localizedInstances} localized by every run`);
  if (c.judgedInstances !== undefined) parts.push(`${c.judgedInstances} judged by every run`);
  return `${parts.join('; ')}.`;
}

export const RESOLUTION_TABLE_HEADER = [
  'reference',
  'alternative',
  'n',
  'ref',
  'alt',
  'Δ instance bootstrap',
  'Δ repository-clustered',
  'ref only',
  'alt only',
  'McNemar p',
  'Holm p',
];

/** The rows of the resolved-rate table of both reports. */
export function resolutionTableRows(c: Comparison): string[][] {
  return (c.resolution ?? []).map((r) => [
    r.reference,
    r.alternative,
    String(r.n),
    pct(r.referenceRate),
    pct(r.alternativeRate),
    ci(r.bootstrap),
    ci(r.clusteredBootstrap),
    String(r.mcnemar.referenceOnly),
    String(r.mcnemar.alternativeOnly),
    pValue(r.mcnemar.pValue),
    pValue(r.mcnemar.holmPValue),
  ]);
}

/** The report's comparison section (Markdown lines). */
export function comparisonMarkdown(c: Comparison): string[] {
  const out: string[] = [];
  out.push('## Comparison', '', alignmentNote(c), '', ...(c.warnings ?? []).flatMap((w) => [`**Warning:** ${w}`, '']));
  if (!c.resolutionInstances)
    out.push(
      mdTable(
        ['arm', 'localizer', 'runs'],
        c.arms.map((l) => [l.arm + (l.upperBound ? ' (upper bound)' : ''), l.localizer, l.runs.join(', ')]),
      ),
      '',
    );
  else
    out.push(
      mdTable(
        ['arm', 'localizer', 'runs', 'mean resolved', 'resolved in any run', 'resolved in every run', 'mean empty patches', 'mean not judged'],
        c.arms.map((l) => [
          l.arm + (l.upperBound ? ' (upper bound)' : ''),
          l.localizer,
          String(l.runs.length),
          num(l.meanResolved, 1),
          String(l.resolvedUnion.length),
          String(l.resolvedInAllRuns.length),
          num(l.meanEmptyPatches, 1),
          num(l.meanNotJudged ?? 0, 1),
        ]),
      ),
      '',
      `Resolved by any arm: ${c.resolvedUnion.length}; by every arm: ${c.resolvedByAll.length}.`,
      '',
    );
  if (c.uniqueFixes.length) {
    out.push('### Fixed by only one arm', '');
    out.push(
      mdTable(
        ['instance', 'fixed by', 'other', 'other had a gold file in top 3'],
        c.uniqueFixes.map((u) => [u.instanceId, u.fixedBy, u.other, u.otherHadGoldFileInTop3 ? 'yes' : 'no']),
      ),
      '',
    );
  }
  if (!c.resolutionInstances) out.push('A run judged none of the instances (its evaluation left out, or nothing shared): no resolution statistics.', '');
  if (c.resolution?.length) {
    out.push('### Resolved rate: alternative − reference (paired bootstrap as below; exact McNemar on first runs, Holm across arms)', '');
    out.push(mdTable(RESOLUTION_TABLE_HEADER, resolutionTableRows(c)), '', ...smallSampleNote(c.resolutionInstances));
  }
  if (c.wilcoxon.length) {
    out.push('### Solve frequency (Wilcoxon signed-rank, paired by instance)', '');
    out.push(
      mdTable(
        ['reference', 'alternative', 'mean (ref)', 'mean (alt)', 'W', 'p', 'method'],
        c.wilcoxon.map((w) => [w.reference, w.alternative, num(w.referenceMean), num(w.alternativeMean), String(w.statistic), pValue(w.pValue), w.method]),
      ),
      '',
      ...smallSampleNote(c.resolutionInstances),
    );
  }
  if (c.metrics.length) {
    out.push('### Localization metrics: alternative − reference (95% percentile bootstrap, 10,000 resamples, seed 1729; * = interval excludes 0)', '');
    out.push(mdTable(METRIC_TABLE_HEADER, metricTableRows(c)), '', ...smallSampleNote(c.alignedInstances));
  }
  if (c.operational?.length) {
    out.push('### Localization cost: alternative − reference (first runs, pairwise-complete instances; same bootstrap)', '');
    out.push(
      mdTable(
        ['metric', 'reference', 'alternative', 'n', 'ref', 'alt', 'Δ instance bootstrap'],
        c.operational.map((o) => [o.metric, o.reference, o.alternative, String(o.n), num(o.referenceMean, 1), num(o.alternativeMean, 1), ci(o.bootstrap)]),
      ),
      '',
      ...smallSampleNote(Math.min(...c.operational.map((o) => o.n))),
    );
  }
  return out;
}
