/**
 * Code context for one edit-location set: ±N lines around every location, merged, shown without line numbers
 * as `### path` sections with `...` marking the omitted parts — the shape Agentless' repair prompt uses.
 */
import type { EditLocationSet, LineRange, RepairContext, ShownFile } from './types.ts';

export const DEFAULT_CONTEXT_WINDOW = 10;

/** Splits file content into lines; a final newline does not start an extra (empty) line. */
export function splitLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Widens each range by `window` lines, clamps to the file, and merges ranges that overlap or touch (touching
 * ranges are merged so that no `...` ever stands for zero omitted lines). Ranges outside the file vanish.
 */
export function contextIntervals(ranges: readonly LineRange[], lineCount: number, window: number): LineRange[] {
  const widened: LineRange[] = [];
  for (const r of ranges) {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end)) continue;
    const lo = Math.min(r.start, r.end);
    const hi = Math.max(r.start, r.end);
    if (hi < 1 || lo > lineCount) continue;
    widened.push({ start: Math.max(1, lo - window), end: Math.min(lineCount, hi + window) });
  }
  widened.sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: LineRange[] = [];
  for (const r of widened) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged;
}

/** The shown text of one file: its intervals, `...` before, between and after omitted parts. */
export function renderShownFile(content: string, intervals: readonly LineRange[]): string {
  const lines = splitLines(content);
  const out: string[] = [];
  let gapMarked = false; // a `...` already stands for the gap before the next interval
  for (const iv of intervals) {
    if (iv.start > 1 && !gapMarked) out.push('...');
    for (let i = iv.start; i <= iv.end; i++) out.push(lines[i - 1]);
    gapMarked = iv.end < lines.length;
    if (gapMarked) out.push('...');
  }
  return out.join('\n');
}

/**
 * Builds the context for one location set. `contents` maps path → base content; a file the snapshot does not
 * have, or whose ranges all fall outside it, is left out (and listed in `missing`).
 */
export function buildRepairContext(
  set: EditLocationSet,
  contents: ReadonlyMap<string, string>,
  window = DEFAULT_CONTEXT_WINDOW,
): RepairContext & { missing: string[] } {
  // a file named twice in one set: its ranges are pooled, in first-appearance order of the files
  const rangesByPath = new Map<string, LineRange[]>();
  for (const loc of set.files) {
    const pooled = rangesByPath.get(loc.path) ?? [];
    pooled.push(...loc.ranges);
    rangesByPath.set(loc.path, pooled);
  }
  const files: ShownFile[] = [];
  const missing: string[] = [];
  for (const [path, ranges] of rangesByPath) {
    const content = contents.get(path);
    if (content === undefined) {
      missing.push(path);
      continue;
    }
    const intervals = contextIntervals(ranges, splitLines(content).length, window);
    if (intervals.length > 0) files.push({ path, content, intervals });
  }
  const text = files.map((f) => `### ${f.path}\n${renderShownFile(f.content, f.intervals)}`).join('\n\n\n');
  return { text, files, missing };
}
