/**
 * Reading git-style unified diffs (SWE-bench `patch` / `test_patch` / model patches).
 *
 * One parser for every stage that needs to know what a patch touches: gold files for localization metrics,
 * gold functions and first changed lines for the failure analysis, test files for evaluation directives.
 * Line numbers are 1-based; `oldLine` is the position in the pre-patch file, which is what localization is
 * judged against.
 */

export interface PatchLine {
  kind: 'add' | 'remove' | 'context';
  text: string;
  /** line in the old file: the removed/context line itself, or for an added line the old line it precedes */
  oldLine: number;
  /** line in the new file (for removed lines: the new line they would have preceded) */
  newLine: number;
}

export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** text after the second @@, usually the enclosing def/class line */
  header: string;
  lines: PatchLine[];
}

export interface FilePatch {
  /** path before the change (undefined for a new file) */
  oldPath?: string;
  /** path after the change (undefined for a deleted file) */
  newPath?: string;
  /** the path to report: new path, or old path for deletions */
  path: string;
  isNew: boolean;
  isDeleted: boolean;
  isBinary: boolean;
  hunks: PatchHunk[];
}

/** git quotes paths with unusual characters: "a/sp ace.py", with C escapes (octal bytes for UTF-8). */
export function unquotePath(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const next = body[++i];
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(({ n: 10, t: 9, '"': 34, '\\': 92 } as Record<string, number>)[next] ?? next.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `a/x.py` → `x.py`; `/dev/null` → undefined. */
function stripPrefix(raw: string, prefix: 'a/' | 'b/'): string | undefined {
  const p = unquotePath(raw.trim());
  if (p === '/dev/null') return undefined;
  return p.startsWith(prefix) ? p.slice(2) : p;
}

/** Splits the `a/x b/y` of a `diff --git` line (paths may be quoted, or contain spaces). */
function parseHeaderPaths(rest: string): [string | undefined, string | undefined] | undefined {
  const quoted = rest.match(/^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/);
  if (quoted && !rest.includes(' b/')) return [stripPrefix(quoted[1], 'a/'), stripPrefix(quoted[2], 'b/')];
  // unquoted paths may contain spaces; `a/X b/X` is the common case
  const idx = rest.indexOf(' b/');
  if (idx < 0) return quoted ? [stripPrefix(quoted[1], 'a/'), stripPrefix(quoted[2], 'b/')] : undefined;
  return [stripPrefix(rest.slice(0, idx), 'a/'), stripPrefix(rest.slice(idx + 1), 'b/')];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/** Parses a unified diff. Tolerates text before the first file header and missing `diff --git` lines. */
export function parsePatch(patch: string, onFileStart?: (lineIndex: number) => void): FilePatch[] {
  const files: FilePatch[] = [];
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  let current: FilePatch | undefined;
  let hunk: PatchHunk | undefined;
  let oldLine = 0;
  let newLine = 0;
  let oldRemaining = 0;
  let newRemaining = 0;
  /** true between a `diff --git` line and its ---/+++ pair */
  let awaitingHeaders = false;

  const startFile = (oldPath?: string, newPath?: string): FilePatch => {
    const file: FilePatch = {
      oldPath,
      newPath,
      path: newPath ?? oldPath ?? '',
      isNew: false,
      isDeleted: false,
      isBinary: false,
      hunks: [],
    };
    files.push(file);
    hunk = undefined;
    return file;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (hunk && (oldRemaining > 0 || newRemaining > 0)) {
      const tag = line[0];
      const text = line.slice(1);
      if (tag === '+') {
        hunk.lines.push({ kind: 'add', text, oldLine, newLine });
        newLine++;
        newRemaining--;
        continue;
      }
      if (tag === '-') {
        hunk.lines.push({ kind: 'remove', text, oldLine, newLine });
        oldLine++;
        oldRemaining--;
        continue;
      }
      if (tag === ' ' || line === '') {
        hunk.lines.push({ kind: 'context', text, oldLine, newLine });
        oldLine++;
        newLine++;
        oldRemaining--;
        newRemaining--;
        continue;
      }
      if (tag === '\\') continue; // "\ No newline at end of file"
      // anything else ends the hunk early (a malformed count); fall through to header parsing
      oldRemaining = newRemaining = 0;
    }
    if (line.startsWith('\\')) continue;
    if (line.startsWith('diff --git ')) {
      const paths = parseHeaderPaths(line.slice('diff --git '.length));
      if (!paths) throw new Error(`unreadable patch header: ${line}`);
      current = startFile(paths[0], paths[1]);
      onFileStart?.(i);
      awaitingHeaders = true;
      continue;
    }
    if (line.startsWith('--- ')) {
      const oldPath = stripPrefix(line.slice(4).split('\t')[0], 'a/');
      const next = lines[i + 1] ?? '';
      if (next.startsWith('+++ ')) {
        const newPath = stripPrefix(next.slice(4).split('\t')[0], 'b/');
        // a ---/+++ pair without a preceding `diff --git` line (plain `diff -u` output) starts a file too
        if (!current || !awaitingHeaders) {
          current = startFile(oldPath, newPath);
          onFileStart?.(i);
        }
        awaitingHeaders = false;
        current.oldPath = oldPath;
        current.newPath = newPath;
        current.path = newPath ?? oldPath ?? current.path;
        current.isNew ||= oldPath === undefined;
        current.isDeleted ||= newPath === undefined;
        i++;
        continue;
      }
    }
    if (!current) continue;
    if (line.startsWith('new file mode')) current.isNew = true;
    else if (line.startsWith('deleted file mode')) {
      current.isDeleted = true;
      current.path = current.oldPath ?? current.path;
      current.newPath = undefined;
    } else if (line.startsWith('Binary files') || line.startsWith('GIT binary patch')) current.isBinary = true;
    else if (line.startsWith('rename from ')) current.oldPath = unquotePath(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) current.newPath = current.path = unquotePath(line.slice('rename to '.length));
    else {
      const h = HUNK_HEADER.exec(line);
      if (h) {
        hunk = {
          oldStart: Number(h[1]),
          oldLines: h[2] === undefined ? 1 : Number(h[2]),
          newStart: Number(h[3]),
          newLines: h[4] === undefined ? 1 : Number(h[4]),
          header: h[5] ?? '',
          lines: [],
        };
        current.hunks.push(hunk);
        // For an empty side (count 0) the start names the line before the change.
        oldLine = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
        newLine = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
        oldRemaining = hunk.oldLines;
        newRemaining = hunk.newLines;
      }
    }
  }
  return files;
}

/**
 * A patch cut into one text per file (each with its parsed form), in order; `preamble` is what stands before the
 * first file. Joining the preamble and the texts gives the patch back (with `\n` line ends).
 */
export function patchSections(patch: string): { preamble: string; files: Array<{ file: FilePatch; text: string }> } {
  const starts: number[] = [];
  const files = parsePatch(patch, (index) => starts.push(index));
  const lines = patch.replace(/\r\n/g, '\n').split('\n');
  const text = (from: number, to: number) => lines.slice(from, to).join('\n');
  return {
    preamble: text(0, starts[0] ?? lines.length),
    files: files.map((file, n) => ({ file, text: text(starts[n]!, starts[n + 1] ?? lines.length) })),
  };
}

/** Repository paths a patch modifies (old path for modifications and deletions, new path for additions). */
export function patchedFiles(patch: string): string[] {
  const seen = new Set<string>();
  for (const f of parsePatch(patch)) if (f.path) seen.add(f.path);
  return [...seen];
}

/** Files that existed before the patch and are modified by it (no new files): what localization can find. */
export function modifiedExistingFiles(patch: string): string[] {
  const seen = new Set<string>();
  for (const f of parsePatch(patch)) if (!f.isNew && f.oldPath) seen.add(f.oldPath);
  return [...seen];
}

/** Old-file line numbers touched by a file patch: removed lines, and the insertion point of added lines. */
export function touchedOldLines(file: FilePatch): number[] {
  const lines = new Set<number>();
  for (const h of file.hunks) for (const l of h.lines) if (l.kind !== 'context') lines.add(l.oldLine);
  return [...lines].sort((a, b) => a - b);
}
