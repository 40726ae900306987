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
  const width = 360;
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
  parts.push(`<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle">confidence bucket (lowest value shown), width = share of instances</text>`);
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img">${parts.join('')}</svg>`;
}
