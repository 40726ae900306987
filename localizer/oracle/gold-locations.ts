/**
 * Perfect localization at every level, derived from the gold patch and the base commit's tree-sitter records:
 * what the ladder (`locfix ladder`, `locfix run --oracle-from`) hands a run in place of a localizer's answer.
 *
 * The rules, per run of changed lines of an existing file (consecutive added and removed lines), placed where
 * its first removed line is, or for a pure insertion where it goes (`placeRun`: before a `def` or after a body at
 * the definition's own indentation is the enclosing scope, not that definition):
 *
 *   files      the files the patch modifies, in patch order (new files do not exist at the base: nothing to show)
 *   functions  a run inside a function or method → that function (the innermost one; an insertion right after
 *              a body's last line, indented as its body, still belongs to it); a line in a class body outside its methods, or at module
 *              level, or in a file no registered language parses → that line itself (`line: N`)
 *   lines      the changed lines themselves: the removed lines (a replacement's added lines take their place), and
 *              for a pure insertion the lines before and after its point, merged into ranges per file
 *
 * `elements` names what each changed line is in as the failure analysis does (innermost function/method, else
 * class, else `<module>`), so a run given the function oracle is never a correlational "function" failure.
 */
import { MODULE_LEVEL, type CodeElement } from '../../src/artifacts/localization.ts';
import { languageForPath } from '../../src/languages/index.ts';
import { parsePatch, type FilePatch, type PatchLine } from '../../src/patch.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import type { Definition } from '../../src/parsing/types.ts';
import type { EditLocationSet, LineRange } from '../../repair/types.ts';

/** How one changed line was placed at function level. */
export type PlacementRule = 'function' | 'class-body' | 'module' | 'no-grammar';

export interface GoldFileLocations {
  path: string;
  /** Agentless location lines, as the function level answers them: `function: A.f`, `line: 12` */
  locations: string[];
  /** the changed lines, merged (1-based, inclusive, base-file numbering) */
  lines: LineRange[];
  /** each named function's whole range at the base commit */
  functionRanges: Record<string, LineRange>;
  /** runs of changed lines (consecutive added/removed lines) counted by the rule that placed them */
  rules: Partial<Record<PlacementRule, number>>;
}

export interface GoldLocations {
  /** every modified existing file, in patch order */
  files: GoldFileLocations[];
  /** the elements the patch edits, as the failure analysis judges function level */
  elements: CodeElement[];
  /** files the patch touches that no oracle can show: new files (absent at the base) and binary ones */
  unplaced: Array<{ path: string; reason: string }>;
}

/** The innermost definition holding `line` (an insertion just after a body's last line still belongs to it). */
export function innermostDefinition(defs: readonly Definition[], line: number, insertion: boolean): Definition | undefined {
  let best: Definition | undefined;
  for (const d of defs) {
    const end = insertion ? d.endLine + 1 : d.endLine;
    if (line < d.startLine || line > end) continue;
    if (!best || d.endLine - d.startLine < best.endLine - best.startLine) best = d;
  }
  return best;
}

/**
 * The changed lines of a file in runs (consecutive added/removed lines between context lines), each with the
 * base lines it marks: a run that removes lines marks those (its added lines replace them); a run that only
 * adds marks the lines on both sides of its insertion point.
 */
function changeRuns(file: FilePatch, lineCount: number): Array<{ lines: PatchLine[]; marked: number[] }> {
  const runs: PatchLine[][] = [];
  for (const hunk of file.hunks) {
    let run: PatchLine[] = [];
    for (const line of [...hunk.lines, undefined]) {
      if (line && line.kind !== 'context') run.push(line);
      else if (run.length) {
        runs.push(run);
        run = [];
      }
    }
  }
  const last = Math.max(lineCount, 1);
  return runs.map((lines) => {
    const removed = lines.filter((l) => l.kind === 'remove').map((l) => l.oldLine);
    if (removed.length) return { lines, marked: removed };
    const at = lines[0]!.oldLine;
    return { lines, marked: [...new Set([Math.min(Math.max(at - 1, 1), last), Math.min(at, last)])] };
  });
}

const indentOf = (text: string) => /^[ \t]*/.exec(text)![0].replace(/\t/g, '    ').length;

/**
 * The definition a run of changed lines is placed in. A run that removes lines: the innermost definition holding
 * its first removed line. A pure insertion before old line `at`: a definition it is strictly inside (after the
 * definition's first line, up to its last), or one whose last line it directly follows when its first added line
 * is indented deeper than the definition's own first line (appending to a body); an insertion right before a
 * `def`, or after a body at the definition's own indentation (a new method between two), is in the enclosing scope.
 */
function placeRun(lines: readonly PatchLine[], defs: readonly Definition[], baseLines: readonly string[]): Definition | undefined {
  const removed = lines.find((l) => l.kind === 'remove');
  if (removed) return innermostDefinition(defs, removed.oldLine, false);
  const at = lines[0]!.oldLine;
  const added = lines.find((l) => l.text.trim());
  const indent = added ? indentOf(added.text) : 0;
  let best: Definition | undefined;
  for (const d of defs) {
    const inside = at > d.startLine && at <= d.endLine;
    const appended = at === d.endLine + 1 && indent > indentOf(baseLines[d.startLine - 1] ?? '');
    if (!inside && !appended) continue;
    if (!best || d.endLine - d.startLine < best.endLine - best.startLine) best = d;
  }
  return best;
}

/** Ranges of consecutive line numbers. */
export function rangesOf(lines: Iterable<number>): LineRange[] {
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  const out: LineRange[] = [];
  for (const n of sorted) {
    const last = out.at(-1);
    if (last && n === last.end + 1) last.end = n;
    else out.push({ start: n, end: n });
  }
  return out;
}

/** Definitions of a base file, or none when no registered language parses it (a text file is all "lines"). */
export function baseDefinitions(path: string, source: string): Definition[] {
  return languageForPath(path) ? extractDefinitions(path, source) : [];
}

function placeFile(file: FilePatch, source: string, defs: readonly Definition[], elements: Map<string, CodeElement>): GoldFileLocations {
  const path = file.oldPath!;
  const baseLines = source.split('\n');
  const lineCount = baseLines.length - (source.endsWith('\n') ? 1 : 0);
  const functions: string[] = [];
  const functionRanges: Record<string, LineRange> = {};
  const looseLines = new Set<number>();
  const allLines = new Set<number>();
  const rules: GoldFileLocations['rules'] = {};
  const grammar = languageForPath(path) !== undefined;
  for (const run of changeRuns(file, lineCount)) {
    for (const n of run.marked) allLines.add(n);
    for (const line of run.lines) {
      const def = innermostDefinition(defs, line.oldLine, line.kind === 'add');
      elements.set(`${path}::${def?.qualifiedName ?? MODULE_LEVEL}`, { path, name: def?.qualifiedName ?? MODULE_LEVEL });
    }
    const def = placeRun(run.lines, defs, baseLines);
    const rule: PlacementRule = !grammar ? 'no-grammar' : !def ? 'module' : def.kind === 'class' ? 'class-body' : 'function';
    rules[rule] = (rules[rule] ?? 0) + 1;
    if (rule === 'function') {
      if (!functions.includes(def!.qualifiedName)) functions.push(def!.qualifiedName);
      functionRanges[def!.qualifiedName] = { start: def!.startLine, end: def!.endLine };
    } else for (const n of run.marked) looseLines.add(n);
  }
  const lineEntries = [...looseLines].sort((a, b) => a - b).map((n) => `line: ${n}`);
  return { path, locations: [...functions.map((f) => `function: ${f}`), ...lineEntries], lines: rangesOf(allLines), functionRanges, rules };
}

/**
 * The oracle's locations of a gold patch. `sourceOf(path)` gives a modified file's text at the base commit;
 * a file it cannot give is reported unplaced (the caller says why, e.g. an unreadable repository).
 */
export function goldLocations(patch: string, sourceOf: (path: string) => string | undefined, definitionsOf = baseDefinitions): GoldLocations {
  const files: GoldFileLocations[] = [];
  const unplaced: GoldLocations['unplaced'] = [];
  const elements = new Map<string, CodeElement>();
  for (const file of parsePatch(patch)) {
    if (file.isNew || !file.oldPath) {
      unplaced.push({ path: file.path, reason: 'a new file: absent at the base commit' });
      continue;
    }
    if (file.isBinary || file.hunks.length === 0) {
      if (file.isBinary) unplaced.push({ path: file.oldPath, reason: 'a binary file' });
      continue;
    }
    const source = sourceOf(file.oldPath);
    if (source === undefined) {
      unplaced.push({ path: file.oldPath, reason: 'not readable at the base commit' });
      continue;
    }
    const existing = files.find((f) => f.path === file.oldPath);
    const placed = placeFile(file, source, definitionsOf(file.oldPath, source), elements);
    if (!existing) files.push(placed);
    else Object.assign(existing, mergeFile(existing, placed));
  }
  return { files, elements: [...elements.values()], unplaced };
}

function mergeFile(a: GoldFileLocations, b: GoldFileLocations): GoldFileLocations {
  const rules = { ...a.rules };
  for (const [k, v] of Object.entries(b.rules) as Array<[PlacementRule, number]>) rules[k] = (rules[k] ?? 0) + v;
  const lines = rangesOf([...a.lines, ...b.lines].flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i)));
  return {
    path: a.path,
    locations: [...new Set([...a.locations, ...b.locations])],
    lines,
    functionRanges: { ...a.functionRanges, ...b.functionRanges },
    rules,
  };
}

/** The line oracle as repair takes it: one location set with every gold file's changed lines. */
export function goldEditLocationSet(gold: GoldLocations): EditLocationSet {
  return { files: gold.files.map((f) => ({ path: f.path, ranges: f.lines.map((r) => ({ ...r })), elements: f.locations })) };
}
