/**
 * The HTML report's building blocks: stacked and simple bar charts as inline SVG, and tables. No scripts, no
 * network: the report is one self-contained file.
 */
import type { FailureCategory } from './failure-analysis.ts';
import { CATEGORY_COLOR, CATEGORY_LABEL, escapeHtml, pct } from './report.ts';

export interface BarPart {
  label: string;
  color: string;
  value: number;
  /** what the part's value is a share of, when not the bar's total (outcomes: the judged instances), for its tooltip */
  shareOf?: { value: number; what: string };
}

/** Dark text on a light fill, white on a dark one (relative luminance of a #rrggbb colour, WCAG's formula). */
function textOn(color: string): string {
  const channel = (i: number) => {
    const c = Number.parseInt(color.slice(1 + 2 * i, 3 + 2 * i), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return luminance > 0.4 ? '#212121' : '#fff';
}

export function categoryPart(key: FailureCategory, value: number): BarPart {
  return { label: CATEGORY_LABEL[key], color: CATEGORY_COLOR[key], value };
}

export function stackedBars(rows: Array<{ label: string; parts: BarPart[] }>, title: string): string {
  const width = 760;
  const labelWidth = 240;
  const barHeight = 26;
  const gap = 10;
  const top = 30;
  const legendHeight = 30;
  const height = top + rows.length * (barHeight + gap) + legendHeight + 10;
  const plot = width - labelWidth - 20;
  const parts: string[] = [];
  parts.push(`<text x="0" y="18" class="title">${escapeHtml(title)}</text>`);
  rows.forEach((row, i) => {
    const y = top + i * (barHeight + gap);
    const total = row.parts.reduce((s, p) => s + p.value, 0) || 1;
    parts.push(`<text x="${labelWidth - 8}" y="${y + barHeight * 0.68}" text-anchor="end">${escapeHtml(row.label)}</text>`);
    let x = labelWidth;
    for (const p of row.parts) {
      if (!p.value) continue;
      const w = (p.value / total) * plot;
      // the bar is drawn over every instance; a share is printed only over what it is a share of
      const share = p.shareOf ? (p.shareOf.value ? `, ${pct(p.value / p.shareOf.value)} of ${p.shareOf.what}` : '') : `, ${pct(p.value / total)}`;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${p.color}"><title>${escapeHtml(p.label)}: ${p.value} of ${total}${escapeHtml(share)}</title></rect>`,
      );
      if (w > 20)
        parts.push(
          `<text x="${(x + w / 2).toFixed(1)}" y="${y + barHeight * 0.68}" text-anchor="middle" class="inbar" style="fill:${textOn(p.color)}">${p.value}</text>`,
        );
      x += w;
    }
  });
  const legend = new Map<string, string>();
  for (const r of rows) for (const p of r.parts) if (p.value) legend.set(p.label, p.color);
  let lx = labelWidth;
  let ly = top + rows.length * (barHeight + gap) + 8;
  for (const [label, color] of legend) {
    const itemWidth = 24 + label.length * 6.6;
    if (lx + itemWidth > width && lx > labelWidth) {
      lx = labelWidth; // wrap the legend instead of drawing past the edge
      ly += 18;
    }
    parts.push(
      `<rect x="${lx}" y="${ly}" width="12" height="12" fill="${color}"/><text x="${lx + 16}" y="${ly + 11}" class="legend">${escapeHtml(label)}</text>`,
    );
    lx += itemWidth;
  }
  const fullHeight = Math.max(height, ly + 22);
  return `<svg viewBox="0 0 ${width} ${fullHeight}" width="${width}" height="${fullHeight}" role="img">${parts.join('')}</svg>`;
}

export function simpleBars(rows: Array<{ label: string; value: number; text: string }>, title: string, color = '#1565c0'): string {
  const width = 760;
  const labelWidth = 240;
  const barHeight = 20;
  const gap = 8;
  const top = 30;
  const height = top + rows.length * (barHeight + gap) + 10;
  const max = Math.max(...rows.map((r) => r.value), 1e-9);
  const plot = width - labelWidth - 230;
  const parts = [`<text x="0" y="18" class="title">${escapeHtml(title)}</text>`];
  rows.forEach((r, i) => {
    const y = top + i * (barHeight + gap);
    const w = (r.value / max) * plot;
    parts.push(`<text x="${labelWidth - 8}" y="${y + barHeight * 0.75}" text-anchor="end">${escapeHtml(r.label)}</text>`);
    parts.push(`<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${color}"/>`);
    parts.push(`<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + barHeight * 0.75}">${escapeHtml(r.text)}</text>`);
  });
  return `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img">${parts.join('')}</svg>`;
}

export function htmlTable(header: string[], rows: string[][]): string {
  return `<table><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}
