/**
 * Applies parsed SEARCH/REPLACE edits to the files that were shown to the model.
 *
 * Matching is by whole lines and only inside the intervals the model saw (it cannot have meant code it was
 * never shown, and a match there would be a coincidence). Strategies, first hit wins:
 *  1. exact (trailing whitespace ignored), first with blank lines at the edges of SEARCH dropped, then as is;
 *  2. indentation-insensitive (same two variants): lines compared without leading whitespace, and REPLACE
 *     re-indented by the offset between the first non-blank SEARCH line and the file line it matched;
 *  3. as 2 but blank lines ignored on both sides.
 * Edits are applied in output order, each to the result of the previous ones; lines an edit inserts count
 * as shown. Splicing is line-based, so no stray newlines appear and the file keeps its final-newline state.
 */
import { splitLines } from './context.ts';
import type { AppliedEdit, ApplyFailure, SearchReplaceEdit, ShownFile } from './types.ts';

export interface ApplyResult {
  /** new content of every file whose content changed */
  changed: Map<string, string>;
  /** every file at least one edit was applied to (changed or not), with its new content */
  touched: Map<string, string>;
  applied: AppliedEdit[];
  failures: ApplyFailure[];
}

interface WorkingFile {
  path: string;
  original: string;
  lines: string[];
  shown: boolean[];
  finalNewline: boolean;
  /** the file uses CRLF line ends: inserted lines get them too (model output is read with LF) */
  crlf: boolean;
}

/** Split lines and shown-flags per shown file: the 10 samples of a location set all start from them. */
const prepared = new WeakMap<ShownFile, { lines: string[]; shown: boolean[] }>();

function workingFile(f: ShownFile): WorkingFile {
  let p = prepared.get(f);
  if (!p) {
    const lines = splitLines(f.content);
    const shown = new Array<boolean>(lines.length).fill(false);
    for (const iv of f.intervals) for (let i = Math.max(1, iv.start); i <= Math.min(lines.length, iv.end); i++) shown[i - 1] = true;
    p = { lines, shown };
    prepared.set(f, p);
  }
  return {
    path: f.path,
    original: f.content,
    lines: p.lines.slice(),
    shown: p.shown.slice(),
    finalNewline: f.content.endsWith('\n'),
    crlf: f.content.includes('\r\n'),
  };
}

function contentOf(w: WorkingFile): string {
  return w.lines.join('\n') + (w.finalNewline && w.lines.length > 0 ? '\n' : '');
}

/**
 * Maps the path an edit names onto a shown file: exactly, after dropping `./`, `/`, `a/`, `b/` or
 * `/testbed/` prefixes, or by a unique suffix match. With a single shown file, a missing path means it.
 */
export function resolveShownPath(path: string | undefined, shownPaths: readonly string[]): string | undefined {
  if (path === undefined) return shownPaths.length === 1 ? shownPaths[0] : undefined;
  const candidates = [path, path.replace(/^\.\//, ''), path.replace(/^\/+/, ''), path.replace(/^[ab]\//, ''), path.replace(/^\/?testbed\//, '')];
  for (const c of candidates) if (shownPaths.includes(c)) return c;
  const bare = candidates[candidates.length - 1].replace(/^\/+/, '');
  const bySuffix = shownPaths.filter((s) => s.endsWith('/' + bare) || bare.endsWith('/' + s));
  return bySuffix.length === 1 ? bySuffix[0] : undefined;
}

const leadingWs = (s: string): string => /^\s*/.exec(s)![0];
const isBlank = (s: string): boolean => s.trim() === '';

type Mode = 'exact' | 'indentation' | 'ignoring-blank-lines';

interface Match {
  start: number; // 0-based first file line
  end: number; // 0-based exclusive
  /** 0-based file line matched by the first non-blank SEARCH line */
  anchor: number;
}

function linesEqual(mode: Mode, fileLine: string, searchLine: string): boolean {
  if (mode === 'exact') return fileLine.trimEnd() === searchLine;
  return fileLine.trim() === searchLine.trim();
}

/** All matches of `search` in `lines`; `requireShown` restricts them to shown lines. */
function findMatches(lines: readonly string[], shown: readonly boolean[], search: readonly string[], mode: Mode, requireShown: boolean): Match[] {
  const matches: Match[] = [];
  if (mode === 'ignoring-blank-lines') {
    const wanted = search.filter((l) => !isBlank(l)).map((l) => l.trim());
    if (wanted.length === 0) return matches;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i].trim() !== wanted[0] || (requireShown && !shown[i])) continue;
      let j = i;
      let k = 0;
      let ok = true;
      while (k < wanted.length) {
        if (j >= lines.length || (requireShown && !shown[j])) {
          ok = false;
          break;
        }
        if (isBlank(lines[j])) {
          j++;
          continue;
        }
        if (lines[j].trim() !== wanted[k]) {
          ok = false;
          break;
        }
        j++;
        k++;
      }
      if (ok) matches.push({ start: i, end: j, anchor: i });
    }
    return matches;
  }
  const m = search.length;
  if (m === 0) return matches;
  const firstNonBlank = search.findIndex((l) => !isBlank(l));
  outer: for (let i = 0; i + m <= lines.length; i++) {
    for (let k = 0; k < m; k++) {
      if (requireShown && !shown[i + k]) continue outer;
      if (!linesEqual(mode, lines[i + k], search[k])) continue outer;
    }
    matches.push({ start: i, end: i + m, anchor: i + Math.max(0, firstNonBlank) });
  }
  return matches;
}

/** Shifts every line of `replace` by the indentation difference between `searchLine` and `fileLine`. */
export function reindent(replace: readonly string[], searchLine: string, fileLine: string): string[] {
  const from = leadingWs(searchLine);
  const to = leadingWs(fileLine);
  if (from === to) return [...replace];
  return replace.map((line) => {
    if (isBlank(line)) return '';
    if (to.startsWith(from)) return to.slice(from.length) + line;
    if (from.startsWith(to)) {
      const remove = from.length - to.length;
      const own = leadingWs(line).length;
      return line.slice(Math.min(remove, own));
    }
    // mixed tabs/spaces: swap the SEARCH indentation prefix for the file's where present
    return line.startsWith(from) ? to + line.slice(from.length) : line;
  });
}

function trimBlankEdges(lines: readonly string[]): { lines: string[]; lead: number; trail: number } {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi && isBlank(lines[lo])) lo++;
  while (hi > lo && isBlank(lines[hi - 1])) hi--;
  return { lines: lines.slice(lo, hi), lead: lo, trail: lines.length - hi };
}

/** Drops up to `lead`/`trail` blank lines from the edges of `replace` (mirroring a trimmed SEARCH). */
function trimMirrored(replace: readonly string[], lead: number, trail: number): string[] {
  let lo = 0;
  let hi = replace.length;
  while (lo < hi && lo < lead && isBlank(replace[lo])) lo++;
  while (hi > lo && replace.length - hi < trail && isBlank(replace[hi - 1])) hi--;
  return replace.slice(lo, hi);
}

interface Placement {
  match: Match;
  how: AppliedEdit['how'];
  newLines: string[];
  others: number;
}

function place(w: WorkingFile, edit: SearchReplaceEdit): Placement | undefined {
  const trimmed = trimBlankEdges(edit.search);
  // blank lines at the edges of SEARCH are usually incidental: match without them first, so that a REPLACE
  // that does not repeat them does not delete the file's blank lines
  const variants: Array<{ search: string[]; replace: string[] }> = [];
  if (trimmed.lead + trimmed.trail > 0 && trimmed.lines.length > 0) {
    variants.push({ search: trimmed.lines, replace: trimMirrored(edit.replace, trimmed.lead, trimmed.trail) });
  }
  variants.push({ search: edit.search, replace: edit.replace });
  for (const mode of ['exact', 'indentation', 'ignoring-blank-lines'] as const) {
    for (const v of mode === 'ignoring-blank-lines' ? variants.slice(-1) : variants) {
      const found = findMatches(w.lines, w.shown, v.search, mode, true);
      if (found.length === 0) continue;
      const match = found[0];
      let newLines = v.replace;
      if (mode !== 'exact') {
        const firstSearch = v.search.find((l) => !isBlank(l))!;
        newLines = reindent(v.replace, firstSearch, w.lines[match.anchor]);
      }
      return { match, how: mode, newLines, others: found.length - 1 };
    }
  }
  return undefined;
}

/** The `...`-only SEARCH: insert before the first unindented line of the shown code that is unique in the file. */
function placeInsertion(w: WorkingFile, edit: SearchReplaceEdit): Placement | string {
  const body = trimBlankEdges(edit.replace).lines;
  if (body.length === 0) return 'nothing to insert';
  if (/^\s/.test(body[0])) return 'an indented insertion has no place to go without a SEARCH block';
  const counts = new Map<string, number>();
  for (const l of w.lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  for (let i = 0; i < w.lines.length; i++) {
    const l = w.lines[i];
    if (!w.shown[i] || isBlank(l) || /^[\s)\]}]/.test(l) || counts.get(l) !== 1) continue;
    return { match: { start: i, end: i, anchor: i }, how: 'insert', newLines: [...body, ''], others: 0 };
  }
  return 'no unindented, unique line in the shown code to insert before';
}

export function applyEdits(edits: readonly SearchReplaceEdit[], shownFiles: readonly ShownFile[]): ApplyResult {
  const files = new Map(shownFiles.map((f) => [f.path, workingFile(f)]));
  const shownPaths = shownFiles.map((f) => f.path);
  const applied: AppliedEdit[] = [];
  const failures: ApplyFailure[] = [];
  const touchedPaths = new Set<string>();

  for (const edit of edits) {
    const path = resolveShownPath(edit.path, shownPaths);
    if (path === undefined) {
      failures.push(
        edit.path === undefined
          ? { editIndex: edit.index, path: undefined, kind: 'no-path', detail: `no file header and ${shownPaths.length} files shown` }
          : { editIndex: edit.index, path: edit.path, kind: 'file-not-shown', detail: `shown: ${shownPaths.join(', ')}` },
      );
      continue;
    }
    const w = files.get(path)!;
    let placement: Placement | undefined;
    if (edit.insertOnly) {
      const p = placeInsertion(w, edit);
      if (typeof p === 'string') {
        failures.push({ editIndex: edit.index, path, kind: 'no-match', detail: p });
        continue;
      }
      placement = p;
    } else {
      if (edit.search.every(isBlank)) {
        failures.push({ editIndex: edit.index, path, kind: 'empty-search', detail: 'SEARCH has no non-blank line' });
        continue;
      }
      placement = place(w, edit);
      if (!placement) {
        const elsewhere =
          findMatches(w.lines, w.shown, edit.search, 'indentation', false).length > 0 ||
          findMatches(w.lines, w.shown, edit.search, 'ignoring-blank-lines', false).length > 0;
        failures.push({
          editIndex: edit.index,
          path,
          kind: elsewhere ? 'outside-shown-lines' : 'no-match',
          detail: `SEARCH (${edit.search.length} lines, first: ${JSON.stringify(edit.search.find((l) => !isBlank(l)) ?? '')})`,
        });
        continue;
      }
    }
    const { match, how, others } = placement;
    const newLines = w.crlf ? placement.newLines.map((l) => (l.endsWith('\r') ? l : `${l}\r`)) : placement.newLines;
    w.lines.splice(match.start, match.end - match.start, ...newLines);
    w.shown.splice(match.start, match.end - match.start, ...new Array<boolean>(newLines.length).fill(true));
    touchedPaths.add(path);
    applied.push({ editIndex: edit.index, path, line: match.start + 1, matchedLines: match.end - match.start, how, otherMatches: others });
  }

  const changed = new Map<string, string>();
  const touched = new Map<string, string>();
  for (const path of touchedPaths) {
    const w = files.get(path)!;
    const content = contentOf(w);
    touched.set(path, content);
    if (content !== w.original) changed.set(path, content);
  }
  return { changed, touched, applied, failures };
}
