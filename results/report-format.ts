import type { ConfidenceInterval } from './statistics.ts';

/** How the reports write numbers and text: shares, p-values, metrics, and HTML-escaped strings. */

/** A p-value readable at any size: 4 decimals, or 2 significant digits below 0.0001 (never a bare 0.0000). */
export const pValue = (p: number) => (Number.isFinite(p) && p > 0 && p < 1e-4 ? p.toExponential(1) : num(p, 4));
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
/** A share, or "—" over nothing: no rate is given over an empty set. */
export const shareOf = (count: number, over: number) => (over > 0 ? pct(count / over) : '—');
export const num = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Under a table over fewer than 30 instances: a line that says so, so its intervals are read as what they are. */
export function smallSampleNote(n: number | undefined): string[] {
  return n !== undefined && n < SMALL_SAMPLE
    ? [`*Small sample: n = ${n} (< ${SMALL_SAMPLE}). Intervals and p-values over so few instances are wide and unstable; read them as indications.*`, '']
    : [];
}

const SMALL_SAMPLE = 30;

/** A Markdown table. */
export function mdTable(header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

/** A confidence interval as the reports write it. */
export function ci(m: ConfidenceInterval): string {
  if (m.noInterval) return `${num(m.estimate)} (no interval: ${m.noInterval})`;
  return `${num(m.estimate)} [${num(m.low)}, ${num(m.high)}]${m.excludesZero ? ' *' : ''}${m.caveat ? ` (${m.caveat})` : ''}`;
}
