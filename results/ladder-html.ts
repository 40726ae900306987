/** The report's HTML section on a run's counterfactual ladder (ladder-report.ts has the Markdown one). */
import { htmlTable } from './html-charts.ts';
import { CAUSE_LABEL, type RunLadderSummary } from './ladder-report.ts';
import { LADDER_CAUSES } from './ladder.ts';
import { escapeHtml } from './report-format.ts';

/** The same section in the HTML report. */
export function ladderHtml(runLabel: string, s: RunLadderSummary): string {
  const rows = Object.keys(s.agreement);
  const causes = LADDER_CAUSES.filter((c) => c !== 'resolved' && rows.some((r) => s.agreement[r]![c]));
  const counts = LADDER_CAUSES.filter((c) => s.causes[c]).map((c) => [CAUSE_LABEL[c], String(s.causes[c])]);
  return `<section><h2>Counterfactual ladder of ${escapeHtml(runLabel)}</h2><p class="note">Each instance rerun with perfect localization from the gold patch down to each level (seeds ${escapeHtml(
    s.seeds.join(', '),
  )}). The cause of an unresolved instance is the first level whose oracle resolves it${s.onOneSample ? `; ${s.onOneSample} causes rest on one sample` : ''}.</p>${htmlTable(
    ['cause', 'instances'],
    counts,
  )}${
    rows.length
      ? `<p>Per-stage category (rows) against the ladder's cause (columns), instances unresolved as run:</p>${htmlTable(
          ['category', ...causes.map((c) => CAUSE_LABEL[c])],
          rows.map((r) => [r, ...causes.map((c) => String(s.agreement[r]![c] ?? 0))]),
        )}`
      : ''
  }</section>`;
}
