/**
 * Finds the environment reports that bug templates ask for — `pip list` / `pip freeze` / `conda list`
 * output, `show_versions()` tables, "Versions" sections — and removes them from an issue before it is
 * used as a search query.
 *
 * Such a block names dozens of packages (`attrs`, `packaging`, `setuptools`, `py`, `pluggy` …) that say
 * nothing about where the bug is, yet every one of them is a query term: in a BM25 or lexical search they
 * pull up `setup.py`, packaging helpers and whatever module happens to share a package's name. A block
 * is recognised by shape only: at least `minVersionLines` lines that each read "name version" (with `==`,
 * `:` or spaces between, optionally a build string or location after), possibly interleaved with the
 * table's header, ruler and section lines. Everything else of the issue is kept as written.
 */

export interface EnvironmentReportOptions {
  /** a block needs this many version lines; fewer is left alone (one "pytest 6.2.5" line is prose) */
  minVersionLines: number;
}

const DEFAULTS: EnvironmentReportOptions = { minVersionLines: 3 };

/** "name version [extra …]" (up to three columns after the version): pip list/freeze, conda list, show_versions ("numpy: 1.19.2"), "NumPy 1.13.3" */
const VERSION_LINE =
  /^\s*(?:[-*•]\s+)?[A-Za-z_][\w.\-[\]]+(?:\s*(?:==|>=|<=|~=|=|:)\s*|\s+)v?\d+(?:\.[0-9A-Za-z+_-]+)+\S*(?:\s+(\S+))?(?:\s+(\S+))?(?:\s+(\S+))?\s*$/;
/** a version line's trailing columns are build strings, channels or paths, never plain numbers (a data table) */
const NUMERIC = /^[-+]?\d*\.?\d+(?:e[-+]?\d+)?$/i;
/** lines that belong to a report around its version lines: headers, rulers, "key: None", section titles */
const REPORT_FURNITURE = [
  /^\s*$/,
  /^\s*[-=_~*\s]{3,}\s*$/,
  /^\s*Package\s+Version\b.*$/i,
  /^\s*(?:Name|Version|Build|Channel|Location)(?:\s+(?:Name|Version|Build|Channel|Location))+\s*$/i,
  /^\s*#\s*(?:packages in environment|Name\s+Version).*$/i,
  /^\s*[A-Za-z][\w .-]*:\s*(?:None|unknown|installed|not installed|\S*\/\S*)?\s*$/i,
];

/** no package row is this long; longer lines are not even tried (keeps the regular expression linear) */
const MAX_VERSION_LINE = 300;

function isVersionLine(line: string): boolean {
  if (line.length > MAX_VERSION_LINE) return false;
  const m = VERSION_LINE.exec(line);
  if (!m) return false;
  return ![m[1], m[2], m[3]].some((column) => column !== undefined && NUMERIC.test(column));
}

function isFurniture(line: string): boolean {
  return REPORT_FURNITURE.some((re) => re.test(line));
}

export interface EnvironmentReportBlock {
  /** 0-based first and last line of the block */
  startLine: number;
  endLine: number;
  versionLines: number;
}

/** Locates environment-report blocks (line ranges) in a text. */
export function findEnvironmentReports(text: string, options: Partial<EnvironmentReportOptions> = {}): EnvironmentReportBlock[] {
  const { minVersionLines } = { ...DEFAULTS, ...options };
  const lines = text.split('\n');
  const blocks: EnvironmentReportBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!isVersionLine(lines[i]!)) {
      i++;
      continue;
    }
    // grow from this version line over version lines and report furniture; trailing furniture is not ours
    let end = i;
    let versionLines = 0;
    let j = i;
    for (;;) {
      if (j < lines.length && isVersionLine(lines[j]!)) {
        versionLines++;
        end = j;
      } else if (j < lines.length && isFurniture(lines[j]!)) {
        // part of the report if more version lines follow
      } else if (j + 1 < lines.length && lines[j]!.trim() !== '' && isVersionLine(lines[j + 1]!)) {
        // one odd row inside a table ("diff-match-patch 20181111 py_0": a version without dots) is the table's
      } else {
        break;
      }
      j++;
    }
    if (versionLines >= minVersionLines) {
      // a header or ruler right above the first version line ("Package Version", "-------") goes too
      let start = i;
      while (start > 0 && lines[start - 1]!.trim() !== '' && isFurniture(lines[start - 1]!)) start--;
      blocks.push({ startLine: start, endLine: end, versionLines });
    }
    i = j;
  }
  return blocks;
}

/** The text without its environment-report blocks (each replaced by nothing; other lines untouched). */
export function stripEnvironmentReports(text: string, options: Partial<EnvironmentReportOptions> = {}): string {
  const blocks = findEnvironmentReports(text, options);
  if (blocks.length === 0) return text;
  const lines = text.split('\n');
  const drop = new Set<number>();
  for (const b of blocks) for (let k = b.startLine; k <= b.endLine; k++) drop.add(k);
  return lines.filter((_, k) => !drop.has(k)).join('\n');
}
