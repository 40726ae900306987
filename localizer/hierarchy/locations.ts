/**
 * Location answers (`path.py` headers followed by `function: A.f`, `class: B`, `variable: X`, `line: 12`
 * lines) — parsing and resolution to line ranges, shared by the related-elements and edit-locations stages.
 *
 * Parsing follows Agentless (extract_code_blocks + extract_locs_for_files) and tolerates more: fences
 * with a language tag or none at all, indented lines, list markers, `### path` / `path:` headers,
 * `method:` for `function:`. Lines for files that were not shown are dropped (and reported).
 *
 * Resolution follows Agentless' transfer_arb_locs_to_locs: `class: C` → the class; `function: C.m` → the
 * method; `function: f` → the module-level function, else a method of the class named just before, else a
 * method whose name is unique in the file; `variable: v` → the module-level assignment; `line: N` → line N
 * when the file has it. Ranges include decorators (locfix's Definition convention).
 */
import { sourceExtensions } from '../../src/languages/index.ts';
import type { Definition, ModuleAssignment } from '../../src/parsing/types.ts';
import type { LineRange } from '../../repair/types.ts';

export type LocationKind = 'class' | 'function' | 'variable' | 'line';

/** Code inside ``` fences; the text after an unclosed fence; the whole text when there is no fence. */
export function extractCodeBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /```[^\n`]*\n([\s\S]*?)\n?```/g;
  for (const m of text.matchAll(fence)) blocks.push(m[1]);
  if (blocks.length > 0) return blocks;
  if (text.includes('```')) {
    // an unclosed fence: what follows it, without a language tag
    const rest = text.slice(text.indexOf('```') + 3).replace(/^[A-Za-z0-9_+-]*\n/, '');
    return [rest.replace(/```/g, '').trim()];
  }
  return [text.trim()];
}

const KIND_PREFIX = /^(class|function|method|def|variable|var|line|lines)\s*:\s*(.*)$/i;

/** A location line without list markers/backticks, or undefined when it is not one. */
export function parseLocationLine(line: string): { kind: LocationKind; value: string } | undefined {
  const cleaned = line
    .trim()
    .replace(/^(?:[-*•+]\s+|\d+[.)]\s+)/, '')
    .replace(/`/g, '')
    .trim();
  const m = KIND_PREFIX.exec(cleaned);
  if (!m) return undefined;
  const word = m[1].toLowerCase();
  const value = m[2].trim();
  if (!value) return undefined;
  const kind: LocationKind = word === 'class' ? 'class' : word === 'variable' || word === 'var' ? 'variable' : word.startsWith('line') ? 'line' : 'function';
  return { kind, value };
}

const SOURCE_EXTENSIONS = sourceExtensions();

/** A header naming a source file of any language (`path.py`, `### path.py`, `File: path.py`, `path.py:`), or undefined. */
function fileHeader(line: string): string | undefined {
  let s = line
    .trim()
    .replace(/^#+\s*/, '')
    .replace(/^(?:[-*•+]\s+|\d+[.)]\s+)/, '');
  s = s
    .replace(/^file\s*:\s*/i, '')
    .replace(/[`'"*]/g, '')
    .replace(/:\s*$/, '')
    .trim()
    .replace(/^\.\//, '');
  return /^[^\s:]+$/.test(s) && SOURCE_EXTENSIONS.some((ext) => s.endsWith(ext)) ? s : undefined;
}

export interface ParsedLocations {
  /** shown file → its location lines (normalized `kind: value`), in answer order; every shown file present */
  byFile: Map<string, string[]>;
  /** lines naming files that were not shown, or location lines before any file header */
  ignored: string[];
  /** the shown files the answer names, in order of first mention */
  mentioned: string[];
  /** files the answer names that were not shown → their location lines (a soft handoff follows them) */
  unshown: Map<string, string[]>;
}

/**
 * Groups the location lines of an answer by file. Files are matched exactly, or by a unique path suffix
 * (`models.py` for `pkg/models.py` when only one shown file ends so). Order: files in order of first
 * mention, then the shown files never mentioned.
 */
export function parseLocations(answer: string, shownFiles: readonly string[]): ParsedLocations {
  const byFile = new Map<string, string[]>();
  const ignored: string[] = [];
  const mentioned: string[] = [];
  const unshown = new Map<string, string[]>();
  let current: string | undefined;
  let currentKnown = false;
  const match = (name: string): string | undefined => {
    if (shownFiles.includes(name)) return name;
    const bySuffix = shownFiles.filter((f) => f.endsWith(`/${name}`));
    return bySuffix.length === 1 ? bySuffix[0] : undefined;
  };
  for (const block of extractCodeBlocks(answer)) {
    for (const line of block.split('\n')) {
      if (!line.trim()) continue;
      const loc = parseLocationLine(line);
      if (loc) {
        if (current && currentKnown) byFile.get(current)!.push(`${loc.kind}: ${loc.value}`);
        else {
          ignored.push(line.trim());
          if (current) unshown.get(current)?.push(`${loc.kind}: ${loc.value}`);
        }
        continue;
      }
      const header = fileHeader(line);
      if (header) {
        const known = match(header);
        current = known ?? header;
        currentKnown = known !== undefined;
        if (known && !byFile.has(known)) {
          byFile.set(known, []);
          mentioned.push(known);
        }
        if (!known) {
          ignored.push(line.trim());
          if (!unshown.has(header)) unshown.set(header, []);
        }
      }
    }
  }
  for (const f of shownFiles) if (!byFile.has(f)) byFile.set(f, []);
  return { byFile, ignored, mentioned, unshown };
}

export interface FileSymbolsView {
  path: string;
  lineCount: number;
  definitions: readonly Definition[];
  assignments: readonly ModuleAssignment[];
}

export interface ResolvedLocation {
  path: string;
  kind: LocationKind;
  /** as written (normalized `kind: value`) */
  raw: string;
  /** "Class.method", "func", "Class", variable name, or "<line N>" */
  name: string;
  range: LineRange;
}

export interface Resolution {
  resolved: ResolvedLocation[];
  unresolved: Array<{ path: string; raw: string; reason: string }>;
}

function rangeOf(d: { startLine: number; endLine: number }): LineRange {
  return { start: d.startLine, end: d.endLine };
}

/** Resolves one file's location lines (as produced by parseLocations) against its symbols. */
export function resolveLocations(file: FileSymbolsView, lines: readonly string[]): Resolution {
  const out: Resolution = { resolved: [], unresolved: [] };
  let currentClass: Definition | undefined;
  const defs = file.definitions;
  const fail = (raw: string, reason: string): void => {
    out.unresolved.push({ path: file.path, raw, reason });
  };
  const add = (kind: LocationKind, raw: string, name: string, range: LineRange): void => {
    out.resolved.push({ path: file.path, kind, raw, name, range });
  };
  for (const raw of lines) {
    const loc = parseLocationLine(raw);
    if (!loc) {
      fail(raw, 'not a location');
      continue;
    }
    const value = loc.value
      .replace(/\(.*$/, '')
      .replace(/[`'":]/g, '')
      .trim();
    if (loc.kind === 'line') {
      const m = /^(\d+)(?:\s*[-–]\s*(\d+))?/.exec(value);
      if (!m) {
        fail(raw, 'no line number');
        continue;
      }
      const start = Number(m[1]);
      const end = m[2] ? Number(m[2]) : start;
      if (start < 1 || end < start || end > file.lineCount) {
        fail(raw, `line out of range (file has ${file.lineCount} lines)`);
        continue;
      }
      add('line', raw, start === end ? `<line ${start}>` : `<lines ${start}-${end}>`, { start, end });
      continue;
    }
    if (loc.kind === 'variable') {
      let any = false;
      for (const v of value.split(/[\s,]+/).filter(Boolean)) {
        const a = file.assignments.find((x) => x.name === v);
        if (a) {
          add('variable', raw, v, rangeOf(a));
          any = true;
        }
      }
      if (!any) fail(raw, 'no module-level assignment of that name');
      continue;
    }
    if (loc.kind === 'class' && !value.includes('.')) {
      const c = defs.find((d) => d.kind === 'class' && d.qualifiedName === value) ?? defs.find((d) => d.kind === 'class' && d.name === value);
      if (c) {
        add('class', raw, c.qualifiedName, rangeOf(c));
        currentClass = c;
      } else {
        fail(raw, 'no class of that name');
      }
      continue;
    }
    // function (or a dotted class/method name)
    if (value.includes('.')) {
      const exact = defs.find((d) => d.qualifiedName === value);
      const parts = value.split('.');
      const method = parts[parts.length - 1];
      const owner = parts[parts.length - 2];
      const loose = exact ?? defs.find((d) => d.name === method && d.qualifiedName.split('.').slice(-2, -1)[0] === owner);
      if (loose) add(loose.kind === 'class' ? 'class' : 'function', raw, loose.qualifiedName, rangeOf(loose));
      else fail(raw, 'no method of that name in that class');
      continue;
    }
    const fn = defs.find((d) => d.kind === 'function' && d.qualifiedName === value);
    if (fn) {
      add('function', raw, fn.qualifiedName, rangeOf(fn));
      continue;
    }
    if (currentClass) {
      const m = defs.find((d) => d.qualifiedName === `${currentClass!.qualifiedName}.${value}`);
      if (m) {
        add('function', raw, m.qualifiedName, rangeOf(m));
        continue;
      }
    }
    const candidates = defs.filter((d) => d.kind !== 'class' && d.name === value);
    if (candidates.length === 1) {
      add('function', raw, candidates[0].qualifiedName, rangeOf(candidates[0]));
      continue;
    }
    const asClass = loc.kind === 'function' ? defs.filter((d) => d.kind === 'class' && d.name === value) : [];
    if (asClass.length === 1) {
      add('class', raw, asClass[0].qualifiedName, rangeOf(asClass[0]));
      continue;
    }
    fail(raw, candidates.length > 1 ? `ambiguous: ${candidates.map((c) => c.qualifiedName).join(', ')}` : 'no function of that name');
  }
  return out;
}

/** Sorts and merges overlapping ranges (touching ones stay apart, as Agentless' merge_intervals does). */
export function mergeRanges(ranges: readonly LineRange[]): LineRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: LineRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ ...r });
  }
  return out;
}
