/**
 * The reliability diagram of a confidence signal as inline SVG: one bar per confidence bucket (least
 * confident on the left), its height the share of the bucket's first files that are gold, its width the
 * bucket's share of the instances; the dashed line is the signal's overall Top-1. A well-behaved signal
 * climbs from left to right.
 */
import type { SignalCalibration } from './calibration.ts';
import { escapeHtml } from './report.ts';
const short = (x: number): string => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

export function reliabilityDiagram(s: SignalCalibration): string {
  const width = 400;
  const height = 220;
  const left = 36;
  const bottom = 40;
  const top = 26;
  const plotW = width - left - 10;
  const plotH = height - top - bottom;
  const parts = [
    `<text x="0" y="16" class="title">${escapeHtml(s.signal)} — AUROC ${s.auroc === undefined ? '–' : s.auroc.toFixed(3)}, n ${s.n}</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#555"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#555"/>`,
  ];
  for (const tick of [0, 0.5, 1]) {
    const y = top + plotH * (1 - tick);
    parts.push(`<text x="${left - 4}" y="${y + 4}" text-anchor="end">${tick}</text>`);
  }
  let x = left;
  for (const b of s.buckets) {
    const w = s.n ? (b.n / s.n) * plotW : 0;
    const h = b.top1 * plotH;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="${(top + plotH - h).toFixed(1)}" width="${Math.max(1, w - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="#1565c0"><title>${escapeHtml(
        `${short(b.lo)} … ${short(b.hi)}: Top-1 ${b.top1.toFixed(3)} of ${b.n}`,
      )}</title></rect>`,
    );
    if (w > 28) parts.push(`<text x="${(x + w / 2).toFixed(1)}" y="${top + plotH + 14}" text-anchor="middle">${escapeHtml(short(b.lo))}</text>`);
    x += w;
  }
  const overall = top + plotH * (1 - s.top1);
  parts.push(`<line x1="${left}" y1="${overall.toFixed(1)}" x2="${left + plotW}" y2="${overall.toFixed(1)}" stroke="#c62828" stroke-dasharray="4 3"/>`);
  parts.push(`<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle">buckets by lowest value, least sure left; width = share</text>`);
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img">${parts.join('')}</svg>`;
}

/** A curve point as the chart needs it: the share actually escalated (not the share asked for), Top-1, and what it cost. */
export interface CurvePointView {
  share: number;
  top1: number;
  llmRuns: number;
}

/** Top-1 against the share escalated (0–100 %), with the LLM localizer runs of each point as labels. */
export function escalationCurveChart(signal: string, points: readonly CurvePointView[]): string {
  const width = 520;
  const height = 260;
  const left = 44;
  const top = 26;
  const plotW = width - left - 20;
  const plotH = height - top - 46;
  const lo = Math.max(0, Math.floor(Math.min(...points.map((p) => p.top1)) * 10) / 10);
  const hi = Math.min(1, Math.ceil(Math.max(...points.map((p) => p.top1)) * 10) / 10);
  const y = (v: number) => top + plotH * (1 - (v - lo) / Math.max(1e-9, hi - lo));
  const x = (share: number) => left + share * plotW;
  const parts = [
    `<text x="0" y="16" class="title">Top-1 as the least confident share by ${escapeHtml(signal)} is escalated</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#555"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#555"/>`,
    `<text x="${left - 4}" y="${y(lo) + 4}" text-anchor="end">${lo.toFixed(1)}</text>`,
    `<text x="${left - 4}" y="${y(hi) + 4}" text-anchor="end">${hi.toFixed(1)}</text>`,
    `<polyline fill="none" stroke="#1565c0" stroke-width="2" points="${points.map((p) => `${x(p.share).toFixed(1)},${y(p.top1).toFixed(1)}`).join(' ')}"/>`,
  ];
  const always = points.at(-1);
  if (always)
    parts.push(
      `<line x1="${left}" y1="${y(always.top1).toFixed(1)}" x2="${left + plotW}" y2="${y(always.top1).toFixed(1)}" stroke="#c62828" stroke-dasharray="4 3"/>`,
    );
  for (const p of points) {
    parts.push(
      `<circle cx="${x(p.share).toFixed(1)}" cy="${y(p.top1).toFixed(1)}" r="3" fill="#1565c0"><title>${escapeHtml(`${(p.share * 100).toFixed(0)} %: Top-1 ${p.top1.toFixed(3)}, ${p.llmRuns} LLM runs`)}</title></circle>`,
    );
    parts.push(`<text x="${x(p.share).toFixed(1)}" y="${top + plotH + 14}" text-anchor="middle">${(p.share * 100).toFixed(0)}</text>`);
  }
  parts.push(`<text x="${left + plotW / 2}" y="${height - 8}" text-anchor="middle">% escalated (dashed: always escalating)</text>`);
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img">${parts.join('')}</svg>`;
}
