/**
 * Import text → repository files, with one rule for every language: an import names a path, written
 * with `.`, `/`, `::` or `\` between its parts (`django.db.models`, `./diff/index.js`,
 * `github.com/gin-gonic/gin/binding`, `com.google.gson.Gson`, `Carbon\Traits\Date`, `fluent/plugin`).
 * - Relative imports (`./x`, `../x`, Python's leading dots) resolve against the importing file's folder.
 * - Other imports match the repository path whose end (extension dropped) equals the import's parts; an
 *   index file (`__init__`, `index`, `mod`, `lib`) also answers for its folder; when nothing matches, the
 *   last part is dropped once (`from a.b import c` names module a.b; `a.b.Class` names file a/b).
 * - A folder that matches (a Go package) stands for the files directly in it; a module path that starts
 *   with a host (`github.com/…`) is matched by its longest tail that names a repository path.
 * - Several matches: the one sharing the longest folder prefix with the importing file wins.
 * External modules (the standard library, dependencies) match nothing and stay unresolved.
 */

const INDEX_STEMS = new Set(['__init__', 'index', 'mod', 'lib']);
/** leading parts that name the importing crate or file, not a path (Rust) */
const SELF_PARTS = new Set(['crate', 'self']);
const FOLDER_FILES_MAX = 50;

const stripExtension = (path: string) => path.replace(/\.[^./]+$/, '');
const dirname = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

export class ModuleResolver {
  /** every suffix of a path without extension (and of an index file's folder) → files */
  private readonly bySuffix = new Map<string, string[]>();
  /** every suffix of a folder → the files directly in it */
  private readonly folderBySuffix = new Map<string, string[]>();
  private readonly exact = new Map<string, string[]>();
  /** every suffix of a path with its extension (`#include "jv.h"`, `require 'x.rb'`) → files */
  private readonly byFileSuffix = new Map<string, string[]>();

  constructor(paths: readonly string[]) {
    for (const path of paths) {
      const bare = stripExtension(path);
      const keys = [bare];
      const stem = bare.slice(bare.lastIndexOf('/') + 1);
      if (INDEX_STEMS.has(stem) && bare.includes('/')) keys.push(dirname(bare));
      for (const key of keys) {
        add(this.exact, key, path);
        for (const suffix of suffixes(key)) add(this.bySuffix, suffix, path);
      }
      for (const suffix of suffixes(path)) add(this.byFileSuffix, suffix, path);
      const folder = dirname(path);
      if (folder) for (const suffix of suffixes(folder)) add(this.folderBySuffix, suffix, path);
    }
  }

  /** The files an import of `from` refers to (empty when it is external or unknown). */
  resolve(from: string, importText: string): string[] {
    const text = importText.trim();
    if (text.startsWith('.') && (text.startsWith('./') || text.startsWith('../../') || !text.includes('/'))) return this.resolveRelative(from, text);
    const asFile = this.byFileSuffix.get(text.replace(/^\/+/, ''));
    if (asFile) return [closest(from, asFile)];
    const segments = text.split('/');
    if (segments.length > 1 && segments[0]!.includes('.')) {
      // a module path that starts with a host (Go's `github.com/gin-gonic/gin/binding`): the repository is
      // some prefix of it, so its tail is tried from longest to shortest
      const tail = segments.slice(1).filter(Boolean);
      for (let i = 0; i < tail.length; i++) {
        const found = this.lookup(from, tail.slice(i).join('/'));
        if (found) return found;
      }
      return [];
    }
    let parts = text.split(/::|[./\\]+/).filter(Boolean);
    while (parts.length > 1 && SELF_PARTS.has(parts[0]!)) parts = parts.slice(1);
    if (parts.length === 0) return [];
    for (const candidate of [parts, parts.slice(0, -1)]) {
      if (candidate.length === 0) continue;
      const found = this.lookup(from, candidate.join('/'));
      if (found) return found;
    }
    return [];
  }

  /** files at a path suffix, or the files of a folder there; undefined when nothing is */
  private lookup(from: string, key: string): string[] | undefined {
    const files = this.bySuffix.get(key);
    if (files) return [closest(from, files)];
    const folder = this.folderBySuffix.get(key);
    if (folder) return folder.length <= FOLDER_FILES_MAX ? folder.filter((f) => f !== from) : [];
    return undefined;
  }

  private resolveRelative(from: string, text: string): string[] {
    let base = dirname(from).split('/').filter(Boolean);
    let rest: string[];
    if (text.startsWith('./') || text.startsWith('../../')) {
      rest = [];
      for (const part of text.split('/')) {
        if (part === '..') base = base.slice(0, -1);
        else if (part !== '.' && part !== '') rest.push(part);
      }
    } else {
      // Python: `.models` is a sibling, `..a.b` one folder up
      const dots = /^\.+/.exec(text)![0].length;
      base = base.slice(0, base.length - (dots - 1));
      rest = text.slice(dots).split('.').filter(Boolean);
    }
    const joined = [...base, ...rest].join('/');
    for (const key of [stripExtension(joined), joined]) {
      const files = this.exact.get(key);
      if (files) return [files[0]!];
    }
    return [];
  }
}

function suffixes(path: string): string[] {
  const parts = path.split('/');
  return parts.map((_, i) => parts.slice(i).join('/'));
}

function add(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

/** the file whose folder shares the longest prefix with `from`'s (then the shortest path, then by name) */
function closest(from: string, files: readonly string[]): string {
  if (files.length === 1) return files[0]!;
  const shared = (p: string) => {
    const a = from.split('/');
    const b = p.split('/');
    let n = 0;
    while (n < a.length - 1 && n < b.length - 1 && a[n] === b[n]) n++;
    return n;
  };
  return [...files].sort((x, y) => shared(y) - shared(x) || x.length - y.length || (x < y ? -1 : 1))[0]!;
}
