/**
 * Gold files of an instance: the files its reference patch touches. SWE-bench patches are `git diff`
 * output, so each file section starts with `diff --git a/<old> b/<new>`; the `---`/`+++` lines (with
 * /dev/null for added/deleted files) and `rename from/to` lines tell what happened to it.
 */

export type GoldStatus = 'modified' | 'added' | 'deleted' | 'renamed';

export interface GoldFile {
  /** path at the base commit (for added files: the new path, which does not exist at the base) */
  path: string;
  status: GoldStatus;
  /** for renames: the new path */
  newPath?: string;
}

/** git quotes paths with unusual characters: "a/sp ace.py" with C escapes. */
function unquote(raw: string): string {
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

function stripPrefix(p: string, prefix: 'a/' | 'b/'): string {
  const unq = unquote(p.trim());
  return unq.startsWith(prefix) ? unq.slice(2) : unq;
}

/** Splits `a/x b/y` (possibly quoted) into both paths. */
function parseHeaderPaths(rest: string): [string, string] | undefined {
  const quoted = rest.match(/^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/);
  if (quoted && !rest.includes(' b/', 0)) return [stripPrefix(quoted[1], 'a/'), stripPrefix(quoted[2], 'b/')];
  // unquoted paths may contain spaces; a/X b/X with identical halves is the common case
  const idx = rest.indexOf(' b/');
  if (idx < 0) return quoted ? [stripPrefix(quoted[1], 'a/'), stripPrefix(quoted[2], 'b/')] : undefined;
  return [stripPrefix(rest.slice(0, idx), 'a/'), stripPrefix(rest.slice(idx + 1), 'b/')];
}

/** Every file the patch touches, in patch order, each once. Throws on a non-empty text with no file section. */
export function goldFilesFromPatch(patch: string): GoldFile[] {
  const out: GoldFile[] = [];
  const lines = patch.replace(/\r\n?/g, '\n').split('\n');
  let current: { a: string; b: string; status: GoldStatus } | undefined;
  const flush = (): void => {
    if (!current) return;
    const { a, b, status } = current;
    const entry: GoldFile =
      status === 'added' ? { path: b, status } : status === 'renamed' ? { path: a, status, newPath: b } : { path: a, status };
    if (!out.some((g) => g.path === entry.path)) out.push(entry);
    current = undefined;
  };
  for (const line of lines) {
    if (line.startsWith('diff --git ')) {
      flush();
      const paths = parseHeaderPaths(line.slice('diff --git '.length));
      if (!paths) throw new Error(`unreadable patch header: ${line}`);
      current = { a: paths[0], b: paths[1], status: paths[0] === paths[1] ? 'modified' : 'renamed' };
      continue;
    }
    if (!current) continue;
    if (line.startsWith('new file mode')) current.status = 'added';
    else if (line.startsWith('deleted file mode')) current.status = 'deleted';
    else if (line.startsWith('rename from ')) current.a = unquote(line.slice('rename from '.length));
    else if (line.startsWith('rename to ')) {
      current.b = unquote(line.slice('rename to '.length));
      current.status = 'renamed';
    } else if (line === '--- /dev/null') current.status = 'added';
    else if (line === '+++ /dev/null') current.status = 'deleted';
  }
  flush();
  if (out.length === 0 && patch.trim()) throw new Error('patch has no "diff --git" file sections');
  return out;
}

/** The paths metrics compare against. */
export function goldPaths(patch: string): string[] {
  return goldFilesFromPatch(patch).map((g) => g.path);
}
