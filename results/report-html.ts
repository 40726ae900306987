/**
 * The self-contained HTML report: inline CSS and SVG charts (per-stage failure bars like the BLAgent paper's
 * Figure 18, resolved-set overlaps, costs), no scripts, no network. The Markdown and the shared labels are
 * in report.ts.
 */
import { ladderHtml } from './ladder-html.ts';
import { reliabilityDiagram } from './calibration-chart.ts';
import { type BarPart, categoryPart, htmlTable, simpleBars, stackedBars } from './html-charts.ts';
import { type FailureCategory, FAILURE_CATEGORIES } from './failure-analysis.ts';
import {
  CATEGORY_LABEL,
  LOCALIZATION_COLUMNS,
  METRIC_TABLE_HEADER,
  RESOLUTION_TABLE_HEADER,
  resolutionTableRows,
  metricTableRows,
  num,
  runLabel,
  escapeHtml,
  alignmentNote,
  JUDGED_NOTE,
  type Report,
} from './report.ts';

/** Fewer labelled answers than this make no reliability diagram (its buckets would hold one or two answers). */
const MIN_CALIBRATION_ANSWERS = 10;

type Runs = Report['runs'];

export function renderHtml(report: Report): string {
  const runs = report.runs;
  const sections = [
    ...outcomeSections(runs),
    ...localizationSections(runs),
    ...costSections(runs),
    ...fileStageSections(runs),
    ...tierSections(runs),
    ...runs.filter((r) => r.ladder).map((r) => ladderHtml(runLabel(r), r.ladder!)),
    ...(report.comparison ? comparisonSections(report.comparison) : []),
    ...instanceSections(runs),
  ];
  const upper = runs.some((r) => r.upperBound)
    ? '<p class="note">Runs marked <i>upper bound</i> use a localizer that reads the gold patch (oracle); they bound what better localization could give and are not results.</p>'
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>locfix report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1000px;color:#212121;padding:0 16px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #e0e0e0;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0;font-size:13px;display:block;max-width:100%;overflow-x:auto}th,td{border:1px solid #e0e0e0;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f5f5f5}
svg text{font:12px system-ui,sans-serif;fill:#212121}svg text.title{font-weight:600}svg text.inbar{font-size:11px}svg text.legend{font-size:11px}
.note{color:#616161}details{margin:6px 0}
</style></head><body>
<h1>locfix report</h1><p class="note">Generated ${escapeHtml(report.generatedAt)} · ${runs.length} run(s)</p>${upper}
${sections.join('\n')}
</body></html>
`;
}

/** Outcomes per run, and where the unresolved patches failed. */
function outcomeSections(runs: Runs): string[] {
  const sections: string[] = [];
  sections.push(
    `<section><h2>Outcomes</h2><p>${escapeHtml(JUDGED_NOTE)}</p>${stackedBars(
      runs.map((r) => {
        const judged = { value: r.failures.judged, what: 'judged' };
        const outcome = (key: FailureCategory): BarPart => ({ ...categoryPart(key, r.failures.categories[key].count), shareOf: judged });
        return {
          label: runLabel(r),
          parts: [
            categoryPart('not-reached', r.failures.categories['not-reached'].count),
            categoryPart('not-evaluated', r.failures.categories['not-evaluated'].count),
            outcome('resolved'),
            outcome('empty-patch'),
            outcome('evaluation-error'),
            outcome('budget-exhausted'),
            {
              label: 'unresolved (with a patch)',
              color: '#8d6e63',
              value: (['file', 'function', 'line', 'patch-generation'] as const).reduce((s, c) => s + r.failures.categories[c].count, 0),
              shareOf: judged,
            },
          ],
        };
      }),
      // short: the chart's caption is one line of its width (a longer one was clipped); the note above says the rest
      'Instances per run by outcome',
    )}</section>`,
  );
  const withPatchFailures = (r: (typeof runs)[number]) =>
    (['file', 'function', 'line', 'patch-generation'] as const).some((k) => r.failures.categories[k].count > 0);
  // a chart of nothing says nothing: only runs with unresolved patches get one
  if (runs.some(withPatchFailures))
    sections.push(
      `<section><h2>Where unresolved patches failed</h2>${stackedBars(
        runs.filter(withPatchFailures).map((r) => ({
          label: runLabel(r),
          parts: (['file', 'function', 'line', 'patch-generation'] as const).map((k) => categoryPart(k, r.failures.categories[k].count)),
        })),
        'Unresolved instances with a patch, by the first stage that went wrong',
      )}</section>`,
    );
  return sections;
}
/** Localization metrics per run. */
function localizationSections(runs: Runs): string[] {
  const sections: string[] = [];
  sections.push(
    `<section><h2>Localization</h2>${htmlTable(
      ['run', 'n', ...LOCALIZATION_COLUMNS.map(([label]) => label)],
      runs.map((r) => [runLabel(r), r.localized === undefined ? '–' : String(r.localized), ...LOCALIZATION_COLUMNS.map(([, key]) => num(r.localization[key]))]),
    )}</section>`,
  );
  return sections;
}
/** Tokens per stage, and each run's spend beside its caps. */
function costSections(runs: Runs): string[] {
  const sections: string[] = [];
  const costRows = runs.flatMap((r) =>
    r.costs.map((c) => ({
      label: `${r.runId} · ${c.stage}`,
      value: c.promptTokens + c.completionTokens,
      text: `${(c.promptTokens + c.completionTokens).toLocaleString('en-US')} tok · $${c.cost.toFixed(3)} · ${(c.wallMs / 1000).toFixed(1)} s`,
    })),
  );
  if (costRows.length)
    sections.push(
      `<section><h2>Cost per stage</h2><p>What the answers each stage used cost when they were made, cached and replayed answers included.</p>${simpleBars(costRows, 'Tokens (prompt + completion) per stage', '#00838f')}</section>`,
    );
  const spendRuns = runs.filter((r) => r.spend);
  if (spendRuns.length) {
    const cap = (c: { tokens?: number; dollars?: number }) =>
      [c.tokens !== undefined ? `${c.tokens.toLocaleString('en-US')} tok` : '', c.dollars !== undefined ? `$${c.dollars}` : ''].filter(Boolean).join(' · ') ||
      'none';
    const stageTokens = (r: (typeof runs)[number]) => r.costs.reduce((n, c) => n + c.promptTokens + c.completionTokens, 0);
    const free = spendRuns.some((r) => r.spend!.run.promptTokens + r.spend!.run.completionTokens < stageTokens(r));
    sections.push(
      `<section><h2>Spend and caps</h2>${
        free
          ? '<p>Spent counts the model calls this run paid for. Answers served from the response cache or replayed from a recording are free, so it is below the tokens per stage above, which count what the answers cost when they were made.</p>'
          : ''
      }${htmlTable(
        ['run', 'run cap', 'instance cap', 'spent (tokens)', 'spent ($)', 'calls', 'most by one instance', 'stopped by a cap'],
        spendRuns.map((r) => {
          const s = r.spend!;
          const most = s.maxInstance
            ? `${s.maxInstance.instanceId}: ${s.maxInstance.tokens.toLocaleString('en-US')} tok · $${s.maxInstance.cost.toFixed(3)}`
            : '–';
          return [
            runLabel(r),
            cap(s.caps.run),
            cap(s.caps.instance),
            (s.run.promptTokens + s.run.completionTokens).toLocaleString('en-US'),
            s.run.cost.toFixed(3),
            String(s.run.calls),
            most,
            String(s.budgetExhausted),
          ];
        }),
      )}</section>`,
    );
  }
  return sections;
}
/** File localization as a stage: runner metrics and hand-off. */
function fileStageSections(runs: Runs): string[] {
  const sections: string[] = [];
  const runnerRuns = runs.filter((r) => r.runner);
  if (runnerRuns.length) {
    const f = (x: number) => x.toFixed(3);
    sections.push(
      `<section><h2>File localization as a stage (runner metrics, handoff)</h2>${htmlTable(
        [
          'run',
          'attempted',
          'errors',
          'ErrorRate',
          'NonEmptyRate',
          'Hit@3',
          'R@3',
          'F1',
          'EM',
          'steps',
          'agent s',
          'tokens',
          'handoff',
          'gold beyond',
          'ranked gold not handed',
        ],
        runnerRuns.map((r) => {
          const m = r.runner!;
          return [
            runLabel(r),
            String(m.attempted),
            String(m.errors),
            f(m.errorRate),
            f(m.nonEmptyRate),
            f(m.hit3),
            f(m.r3),
            f(m.f1),
            f(m.exactMatch),
            m.steps.mean.toFixed(1),
            m.agentSeconds.mean.toFixed(1),
            m.tokens.n ? Math.round(m.tokens.total).toLocaleString('en-US') : '–',
            r.handoff?.contract ?? 'top',
            String(r.handoff?.goldReachedBeyond.length ?? 0),
            String(r.handoff?.goldRankedButNotHanded.length ?? 0),
          ];
        }),
      )}</section>`,
    );
  }

  return sections;
}

/** The file stage's cascade tiers and the confidence of its answers (reliability diagrams). */
function tierSections(runs: Runs): string[] {
  const sections: string[] = [];
  for (const r of runs.filter((x) => x.cascade)) {
    const tiers = r.cascade!.tiers.filter(Boolean);
    sections.push(
      `<section><h2>Cascade tiers of ${escapeHtml(runLabel(r))}</h2>${htmlTable(
        ['tier', 'localizer', 'reached', 'answered', 'Top-1 of its answers', 'gold handed on', 'failed', 'calls', 'tokens', 'cost'],
        tiers.map((t) => [
          t.name,
          t.localizer,
          String(t.reached),
          String(t.answered),
          t.answered ? (t.top1 / t.answered).toFixed(3) : '–',
          t.answered ? (t.handedCorrect / t.answered).toFixed(3) : '–',
          String(t.failed),
          String(t.calls),
          (t.promptTokens + t.completionTokens).toLocaleString('en-US'),
          t.cost.toFixed(4),
        ]),
      )}</section>`,
    );
  }
  // a reliability diagram needs a few answers per bucket: below MIN_CALIBRATION_ANSWERS it is noise, said so
  for (const r of runs.filter((x) => x.calibration?.length && x.calibration.every((c) => c.n < MIN_CALIBRATION_ANSWERS))) {
    sections.push(
      `<section><h2>Confidence of ${escapeHtml(runLabel(r))}'s file localization</h2><p>Only ${Math.max(...r.calibration!.map((c) => c.n))} labelled answers: too few for reliability diagrams (they need ${MIN_CALIBRATION_ANSWERS}).</p></section>`,
    );
  }
  for (const r of runs.filter((x) => x.calibration?.some((c) => c.n >= MIN_CALIBRATION_ANSWERS))) {
    sections.push(
      `<section><h2>Confidence of ${escapeHtml(runLabel(r))}'s file localization (reliability diagrams)</h2><p>Top-1 of the instances in each confidence bucket; the dashed line is the signal's overall Top-1. <code>locfix calibrate</code> adds the escalation curve to an upper tier.</p>${r
        .calibration!.filter((c) => c.n >= MIN_CALIBRATION_ANSWERS)
        .map(reliabilityDiagram)
        .join('')}</section>`,
    );
  }
  return sections;
}
/** The comparison across runs: resolved-set overlap, solve frequency, intervals. */
function comparisonSections(c: NonNullable<Report['comparison']>): string[] {
  const sections: string[] = [];
  for (const w of c.warnings ?? []) sections.push(`<section><p class="warning"><strong>Warning:</strong> ${escapeHtml(w)}</p></section>`);
  if (!c.resolutionInstances)
    sections.push(
      `<section><h2>Resolution</h2><p>${escapeHtml(alignmentNote(c))} No instance was judged by every run: no resolution statistics.</p></section>`,
    );
  else {
    const overlapRows = [
      ...c.arms.map((l) => ({ label: `${l.arm}: any run`, value: l.resolvedUnion.length, text: String(l.resolvedUnion.length) })),
      ...c.arms.map((l) => ({
        label: `${l.arm}: only this arm`,
        value: c.uniqueFixes.filter((u) => u.fixedBy === l.arm).length,
        text: String(c.uniqueFixes.filter((u) => u.fixedBy === l.arm).length),
      })),
      { label: 'every arm', value: c.resolvedByAll.length, text: String(c.resolvedByAll.length) },
      { label: 'any arm', value: c.resolvedUnion.length, text: String(c.resolvedUnion.length) },
    ];
    sections.push(
      `<section><h2>Overlap of resolved sets</h2><p>${escapeHtml(alignmentNote(c))}</p>${simpleBars(overlapRows, `Resolved instances (of ${c.alignedInstances} selected by every run)`, '#2e7d32')}`,
    );
    if (c.uniqueFixes.length)
      sections.push(
        htmlTable(
          ['instance', 'fixed by', 'other arm', 'other had a gold file in top 3'],
          c.uniqueFixes.map((u) => [u.instanceId, u.fixedBy, u.other, u.otherHadGoldFileInTop3 ? 'yes' : 'no']),
        ),
      );
    sections.push('</section>');
  }
  if (c.wilcoxon.length) {
    sections.push(
      `<section><h2>Solve frequency across runs (Wilcoxon signed-rank)</h2>${htmlTable(
        ['reference', 'alternative', 'mean (ref)', 'mean (alt)', 'W', 'p', 'method'],
        c.wilcoxon.map((w) => [w.reference, w.alternative, num(w.referenceMean), num(w.alternativeMean), String(w.statistic), num(w.pValue, 4), w.method]),
      )}</section>`,
    );
  }
  if (c.resolution?.length) {
    sections.push(
      `<section><h2>Resolved rate with confidence intervals</h2><p>Alternative − reference over every instance all runs selected (work not done counts as unresolved); paired bootstrap as below; exact McNemar on each arm's first run, Holm across arms.${c.resolutionInstances < 30 ? ` Small sample: n = ${c.resolutionInstances}.` : ''}</p>${htmlTable(
        RESOLUTION_TABLE_HEADER,
        resolutionTableRows(c),
      )}</section>`,
    );
  }
  if (c.metrics.length) {
    sections.push(
      `<section><h2>Localization metrics with confidence intervals</h2><p>Alternative − reference, 95% percentile bootstrap (10,000 resamples, seed 1729); * marks intervals that exclude zero. McNemar: exact two-sided on each arm's first run; Holm across all binary comparisons.</p>${htmlTable(
        METRIC_TABLE_HEADER,
        metricTableRows(c),
      )}</section>`,
    );
  }
  return sections;
}
/** The instances of each run by category. */
function instanceSections(runs: Runs): string[] {
  const sections: string[] = [];
  const details = runs
    .map((r) => {
      const items = FAILURE_CATEGORIES.filter((k) => r.failures.categories[k].count)
        .map(
          (k) =>
            `<li><b>${escapeHtml(CATEGORY_LABEL[k])}</b> (${r.failures.categories[k].count}): ${escapeHtml(r.failures.categories[k].instances.join(', '))}</li>`,
        )
        .join('');
      return `<details><summary>${escapeHtml(runLabel(r))}: instances per category</summary><ul>${items}</ul></details>`;
    })
    .join('');
  sections.push(`<section><h2>Instances</h2>${details}</section>`);
  return sections;
}
