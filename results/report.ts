/**
 * Reports for one or more runs: JSON for machines, Markdown for reading in a terminal or a PR (here), and one
 * self-contained HTML page (report-html.ts) (inline CSS and SVG, no scripts, no network) with the charts researchers look
 * for — per-stage failure bars like the BLAgent paper's Figure 18, the overlap of resolved sets, metric
 * tables with confidence intervals, and cost per stage.
 */
import { headline } from './instance-account.ts';
import { mdTable, num, pct, shareOf } from './report-format.ts';
import { comparisonMarkdown } from './report-comparison.ts';
import type { SignalCalibration } from './calibration.ts';
import { formatCascadeSummary, type CascadeSummary } from './cascade-summary.ts';
import type { Comparison } from './compare.ts';
import { FAILURE_CATEGORIES, NOT_JUDGED, type FailureCategory } from './failure-analysis.ts';
import type { FailureSummary } from './failure-summary.ts';
import type { Handoff } from '../src/artifacts/localization.ts';
import type { InstanceMetrics } from './instance-metrics.ts';

export interface StageCost {
  stage: string;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  calls: number;
  /** summed wall time of the stage over instances */
  wallMs: number;
}

import { formatRunnerMetrics, type RunnerMetrics } from './runner-metrics.ts';
import { ladderSection, type RunLadderSummary } from './ladder-report.ts';

export interface RunReport {
  runId: string;
  localizer: string;
  /** instances that reached file localization: the localization metrics' denominator */
  localized?: number;
  upperBound: boolean;
  model?: string;
  instances: number;
  resolved: number;
  failures: FailureSummary;
  localization: InstanceMetrics;
  costs: StageCost[];
  /** spend caps and what the run spent under them (`<run>/spend.json`); absent for runs without a ledger */
  spend?: RunSpend;
  /** how file localization was handed to the hierarchy, and what that contract let through */
  handoff?: HandoffSummary;
  /** the explorer study's runner metrics of the file-localization stage */
  runner?: RunnerMetrics;
  /** per tier of a cascade localizer: reached, answered, their Top-1, cost */
  cascade?: CascadeSummary;
  /** Top-1 by confidence bucket and AUROC of each confidence signal of the file localization */
  calibration?: SignalCalibration[];
  /** the counterfactual ladder's causes, when a ladder ran this run as its as-run rung */
  ladder?: RunLadderSummary;
  startedAt?: string;
  finishedAt?: string;
}

export interface HandoffSummary {
  contract: Handoff;
  /** instances whose function level followed files beyond the handed ones (soft) */
  beyond: number;
  /** of those, instances where a gold file was reached only beyond the handoff */
  goldReachedBeyond: string[];
  /** instances whose localizer ranked a gold file that the contract kept from the later stages */
  goldRankedButNotHanded: string[];
}

export interface RunSpend {
  caps: { instance: { tokens?: number; dollars?: number }; run: { tokens?: number; dollars?: number } };
  run: { promptTokens: number; completionTokens: number; cost: number; calls: number };
  /** instances whose spend cap stopped them */
  budgetExhausted: number;
  /** the most any one instance spent */
  maxInstance: { instanceId: string; tokens: number; cost: number } | undefined;
}

export interface Report {
  generatedAt: string;
  runs: RunReport[];
  comparison?: Comparison;
}

export const CATEGORY_LABEL: Record<FailureCategory, string> = {
  resolved: 'resolved',
  'not-evaluated': 'not evaluated',
  'evaluation-error': 'evaluation error',
  'budget-exhausted': 'spend cap reached',
  'not-reached': 'not reached',
  'empty-patch': 'empty patch',
  file: 'file-level localization',
  function: 'function-level localization',
  line: 'line-level localization',
  'patch-generation': 'patch generation',
};

export const CATEGORY_COLOR: Record<FailureCategory, string> = {
  resolved: '#2e7d32',
  'not-evaluated': '#eceff1',
  'evaluation-error': '#757575',
  'budget-exhausted': '#37474f',
  'not-reached': '#f5f5f5',
  'empty-patch': '#bdbdbd',
  file: '#c62828',
  function: '#ef6c00',
  line: '#f9a825',
  'patch-generation': '#6a1b9a',
};

export { ci, escapeHtml, num, pct, pValue, shareOf, smallSampleNote } from './report-format.ts';
export { alignmentNote, METRIC_TABLE_HEADER, metricTableRows, RESOLUTION_TABLE_HEADER, resolutionTableRows } from './report-comparison.ts';

export function runLabel(r: Pick<RunReport, 'runId' | 'localizer' | 'upperBound'>): string {
  return `${r.runId} (${r.localizer}${r.upperBound ? ', upper bound' : ''})`;
}

// ---------------------------------------------------------------------------------------------------------
// Markdown

/** The per-run localization columns of both reports (label, metric). */
export const LOCALIZATION_COLUMNS: ReadonlyArray<readonly [string, keyof InstanceMetrics]> = [
  ['Hit@1', 'hit1'],
  ['Hit@3', 'hit3'],
  ['Hit@5', 'hit5'],
  ['Hit@10', 'hit10'],
  ['Acc@1', 'acc1'],
  ['Acc@3', 'acc3'],
  ['Acc@5', 'acc5'],
  ['Acc@10', 'acc10'],
  ['MRR', 'mrr'],
  ['R@3', 'r3'],
  ['F1', 'f1'],
  ['EM', 'exactMatch'],
  ['NDCG@10', 'ndcg10'],
];

export const JUDGED_NOTE =
  'The resolved rate is over every selected instance: work not done (not evaluated, not reached) counts as not resolved until it is rerun, so no failing server can shrink the denominator; a run marked incomplete owes that work. The rate of judged instances (evaluated, or stopped for a reason of their own) stands beside it, labelled; the category shares below are over the judged.';

export function renderMarkdown(report: Report): string {
  const out: string[] = [`# locfix report`, '', `Generated ${report.generatedAt}.`, ''];
  if (report.runs.some((r) => r.upperBound))
    out.push('Runs marked *upper bound* use a localizer that reads the gold patch (oracle); they are not results.', '');

  const runs = report.runs;
  out.push(...outcomesMarkdown(runs));
  for (const r of runs) if (r.ladder) out.push(...ladderSection(runLabel(r), r.ladder));
  out.push(...localizationMarkdown(runs), ...costMarkdown(runs));
  for (const r of runs) out.push(...failuresMarkdown(r));
  if (report.comparison) out.push(...comparisonMarkdown(report.comparison));
  return out.join('\n');
}

/** The outcomes table of every run, with the reasons work was not judged. */
function outcomesMarkdown(runs: Report['runs']): string[] {
  const out: string[] = [];
  out.push('## Outcomes per run', '');
  out.push(
    mdTable(
      [
        'run',
        'instances',
        'resolved (of all)',
        'judged',
        'resolved (of judged)',
        ...FAILURE_CATEGORIES.filter((c) => c !== 'resolved').map((c) => CATEGORY_LABEL[c]),
      ],
      runs.map((r) => [
        runLabel(r),
        String(r.instances),
        `${r.resolved} (${shareOf(r.resolved, r.failures.total)})${(r.failures.unfinished ?? []).length ? ', incomplete' : ''}`,
        String(r.failures.judged),
        `${r.resolved} (${shareOf(r.resolved, r.failures.judged)})${
          r.failures.flaggedResolves?.length ? `, ${r.failures.flaggedResolves.length} flagged by the runner audit` : ''
        }`,
        ...FAILURE_CATEGORIES.filter((c) => c !== 'resolved').map((c) => String(r.failures.categories[c].count)),
      ]),
    ),
    '',
    JUDGED_NOTE,
    '',
  );
  for (const r of runs) {
    const reasons = Object.entries(r.failures.notJudgedReasons ?? {});
    if (reasons.length) out.push(`- ${r.runId}: ${reasons.map(([why, n]) => `${n} ${why}`).join('; ')}`);
    if (r.failures.gate) out.push(`- ${r.runId}: ${headline(r.failures)} (gate: gold resolves and the empty patch does not, on this machine)`);
  }
  if (runs.some((r) => Object.keys(r.failures.notJudgedReasons ?? {}).length)) out.push('');

  return out;
}

/** The localization metrics of every run. */
function localizationMarkdown(runs: Report['runs']): string[] {
  const out: string[] = [];
  out.push('## Localization per run', '');
  out.push(
    mdTable(
      ['run', 'n', ...LOCALIZATION_COLUMNS.map(([label]) => label)],
      runs.map((r) => [runLabel(r), r.localized === undefined ? '–' : String(r.localized), ...LOCALIZATION_COLUMNS.map(([, key]) => num(r.localization[key]))]),
    ),
    '',
  );

  return out;
}

/** What each stage of each run cost. */
function costMarkdown(runs: Report['runs']): string[] {
  const out: string[] = [];
  out.push('## Cost and time per stage', '');
  out.push(
    mdTable(
      ['run', 'stage', 'calls', 'prompt tokens', 'completion tokens', 'cost (USD)', 'wall time (s)'],
      runs.flatMap((r) =>
        r.costs.map((c) => [
          r.runId,
          c.stage,
          String(c.calls),
          String(c.promptTokens),
          String(c.completionTokens),
          c.cost.toFixed(4),
          (c.wallMs / 1000).toFixed(1),
        ]),
      ),
    ),
    '',
  );

  return out;
}

/** One run's failures by category, with what explains them. */
function failuresMarkdown(r: RunReport): string[] {
  const out: string[] = [];
  out.push(`## Failures of ${runLabel(r)}`, '');
  for (const c of FAILURE_CATEGORIES) {
    const entry = r.failures.categories[c];
    if (!entry.count) continue;
    if (NOT_JUDGED.has(c)) {
      out.push(`- **${CATEGORY_LABEL[c]}**: ${entry.count} (not judged; the instances are in the run's analysis.json)`);
      continue;
    }
    out.push(
      `- **${CATEGORY_LABEL[c]}**: ${entry.count} (${pct(entry.share)}${entry.shareOfUnresolved !== undefined ? `, ${pct(entry.shareOfUnresolved)} of unresolved` : ''}) — ${entry.instances.join(', ')}`,
    );
  }
  const reasons = Object.entries(r.failures.emptyReasons);
  if (reasons.length) out.push(`- empty-patch reasons: ${reasons.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const infra = Object.entries(r.failures.infraFailures ?? {});
  if (infra.length) {
    out.push(`- evaluation logs showing an infrastructure fault (harness 5.0's tiers, advisory): ${infra.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  if (r.failures.knownGoldFailures?.length) {
    out.push(
      `- unresolved that the dataset's own gold patch does not resolve either (the dataset's, not the method's): ${r.failures.knownGoldFailures.join(', ')}`,
    );
  }
  if (r.runner) out.push(`- ${formatRunnerMetrics('file localization', r.runner).replace(/\n\s*/g, ' · ')}`);
  if (r.handoff) {
    const h = r.handoff;
    out.push(
      `- handoff **${h.contract}**: ${h.beyond} instances looked beyond the handed files; a gold file reached only beyond them: ${h.goldReachedBeyond.length}${h.goldReachedBeyond.length ? ` (${h.goldReachedBeyond.join(', ')})` : ''}; a ranked gold file not handed on: ${h.goldRankedButNotHanded.length}${h.goldRankedButNotHanded.length ? ` (${h.goldRankedButNotHanded.join(', ')})` : ''}`,
    );
  }
  if (r.cascade) out.push('', '**Cascade tiers**', '', ...formatCascadeSummary(r.cascade));
  out.push('');
  return out;
}
