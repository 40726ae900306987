/**
 * Tolerant parser for SEARCH/REPLACE edits in model output.
 *
 * Models drift from the requested format in predictable ways; each is tolerated and noted rather than
 * failing the sample:
 * - fences: ```python, ``` or ~~~ with any language tag, or no fence at all (markers are found anywhere);
 * - the `### path` header: also `# path`, a bare `path`, `path:` or a backticked path; an edit without a
 *   header reuses the previous edit's file;
 * - CRLF line ends, trailing spaces, 5–9 marker characters, indented markers;
 * - a missing `>>>>>>> REPLACE` right before a fence close or the next SEARCH (accepted), or before the end
 *   of the output (dropped: the output was most likely cut off by the token limit);
 * - the same edit twice (dropped);
 * - the `...` conventions of the prompt's excerpts (unindented `...` lines only: an indented `...` is a
 *   Python Ellipsis statement): leading/trailing `...` lines are dropped, a SEARCH of just `...` means
 *   "insert REPLACE", and SEARCH/REPLACE pairs with the same number of interior `...` lines are split into
 *   one edit per segment.
 */
import type { ParsedEdits, SearchReplaceEdit } from './types.ts';

const SEARCH_MARKER = /^\s*<{5,9}\s*SEARCH\b/i;
const DIVIDER = /^\s*={5,9}\s*$/;
const REPLACE_MARKER = /^\s*>{5,9}\s*REPLACE\b/i;
const FENCE = /^\s*(`{3,}|~{3,})/;
const GAP = '...';

/** The file path a header-like line names, or undefined when the line is not a path header. */
export function pathFromHeader(line: string): string | undefined {
  let s = line.trim();
  if (!s) return undefined;
  s = s.replace(/^#+\s*/, '').replace(/\*\*/g, '');
  s = s.replace(/^(?:file(?:name)?|path)\s*:\s*/i, '');
  s = s.replace(/^[*_`'"]+|[*_`'"]+$/g, '');
  s = s.replace(/:$/, '');
  s = s.replace(/^[*_`'"]+|[*_`'"]+$/g, '');
  if (!s || /\s/.test(s)) return undefined;
  if (!/[A-Za-z0-9_]/.test(s)) return undefined;
  // a path has a folder separator or a file extension; dotted prose ("e.g.") has neither shape
  if (!s.includes('/') && !/^[\w.-]*\w\.[A-Za-z0-9]+$/.test(s)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return undefined; // a URL
  return s;
}

interface RawEdit {
  path: string | undefined;
  search: string[];
  replace: string[];
}

export function parseSearchReplace(output: string): ParsedEdits {
  const lines = output.replace(/\r\n?/g, '\n').split('\n');
  const notes: string[] = [];
  const raws: RawEdit[] = [];

  let state: 'outside' | 'search' | 'replace' = 'outside';
  let pendingPath: string | undefined; // header seen since the last edit
  let lastPath: string | undefined; // file of the previous edit
  let current: RawEdit | undefined;
  let ordinal = 0; // edits started so far, for notes

  const finish = (why?: string) => {
    if (current) {
      raws.push(current);
      if (why) notes.push(`edit ${ordinal}: ${why} (accepted)`);
    }
    current = undefined;
    state = 'outside';
  };
  const drop = (why: string) => {
    notes.push(`edit ${ordinal}: ${why} (dropped)`);
    current = undefined;
    state = 'outside';
  };

  for (const rawLine of lines) {
    const line = rawLine.trimEnd();
    if (SEARCH_MARKER.test(line)) {
      if (state === 'replace') finish('no REPLACE marker before the next SEARCH');
      else if (state === 'search') drop('no ======= divider before the next SEARCH');
      ordinal++;
      const path = pendingPath ?? lastPath;
      if (!pendingPath && lastPath) notes.push(`edit ${ordinal}: no file header, reusing ${lastPath}`);
      lastPath = path;
      pendingPath = undefined;
      current = { path, search: [], replace: [] };
      state = 'search';
      continue;
    }
    if (state === 'outside') {
      if (FENCE.test(line)) continue;
      const p = pathFromHeader(line);
      if (p !== undefined) pendingPath = p;
      continue;
    }
    if (state === 'search') {
      if (DIVIDER.test(line)) state = 'replace';
      else if (REPLACE_MARKER.test(line)) drop('REPLACE marker without a ======= divider');
      else if (FENCE.test(line)) drop('code fence closed inside SEARCH');
      else current!.search.push(line);
      continue;
    }
    // state === 'replace'
    if (REPLACE_MARKER.test(line)) finish();
    else if (FENCE.test(line)) finish('code fence closed before the REPLACE marker');
    else current!.replace.push(line);
  }
  if (state === 'replace') drop('no REPLACE marker before the end of the output');
  else if (state === 'search') drop('output ended inside SEARCH');

  const edits: SearchReplaceEdit[] = [];
  const seen = new Set<string>();
  let duplicatesDropped = 0;
  for (const raw of raws) {
    for (const piece of applyGapConventions(raw, notes)) {
      const key = JSON.stringify([piece.path, piece.search, piece.replace, piece.insertOnly ?? false]);
      if (seen.has(key)) {
        duplicatesDropped++;
        continue;
      }
      seen.add(key);
      edits.push({ ...piece, index: edits.length });
    }
  }
  return { edits, duplicatesDropped, notes };
}

function isGap(line: string): boolean {
  return line === GAP;
}

function trimGaps(lines: string[]): string[] {
  let lo = 0;
  let hi = lines.length;
  while (lo < hi && isGap(lines[lo])) lo++;
  while (hi > lo && isGap(lines[hi - 1])) hi--;
  return lines.slice(lo, hi);
}

function splitOnGaps(lines: string[]): string[][] {
  const parts: string[][] = [[]];
  for (const l of lines) {
    if (isGap(l)) parts.push([]);
    else parts[parts.length - 1].push(l);
  }
  return parts;
}

function applyGapConventions(raw: RawEdit, notes: string[]): Array<Omit<SearchReplaceEdit, 'index'>> {
  const hadGap = raw.search.some(isGap) || raw.replace.some(isGap);
  if (!hadGap) return [{ path: raw.path, search: raw.search, replace: raw.replace }];
  const search = trimGaps(raw.search);
  const replace = trimGaps(raw.replace);
  if (search.every((l) => l.trim() === '') && raw.search.some(isGap)) {
    notes.push('a SEARCH of only `...` read as an insertion');
    return [{ path: raw.path, search: [], replace, insertOnly: true }];
  }
  const searchParts = splitOnGaps(search);
  const replaceParts = splitOnGaps(replace);
  if (searchParts.length === 1 && replaceParts.length === 1) return [{ path: raw.path, search, replace }];
  if (searchParts.length === replaceParts.length) {
    notes.push(`an edit with ${searchParts.length - 1} interior \`...\` split into ${searchParts.length} edits`);
    return searchParts.map((s, i) => ({ path: raw.path, search: s, replace: replaceParts[i] })).filter((e) => e.search.length > 0 || e.replace.length > 0);
  }
  notes.push('interior `...` lines do not pair up between SEARCH and REPLACE; kept literally');
  return [{ path: raw.path, search, replace }];
}
