/**
 * Tolerant readers for what chat models answer in BLAgent's phases: a JSON value found in free text
 * (fenced or bare, trailing commas, single quotes, Python literals), file paths mapped onto the candidate
 * set (relative, absolute, with a leading repository folder, dotted module names), scores as numbers or
 * numeric strings. Everything that cannot be mapped is returned as `dropped`, never silently ignored.
 */

/** A value parsed from a model answer, or why none could be. */
export type JsonExtraction = { ok: true; value: unknown; source: string } | { ok: false; reason: string };

const FENCE = /```[A-Za-z0-9_-]*[ \t]*\r?\n([\s\S]*?)```/g;

/**
 * Finds the answer's JSON value: the last fenced block that parses, else the last balanced `{…}` / `[…]`
 * region that parses (models often restate the question's example before their own answer).
 */
export function extractJson(text: string, want: 'object' | 'array' | 'any' = 'any'): JsonExtraction {
  const fits = (v: unknown): boolean =>
    want === 'any' ? v !== null && typeof v === 'object' : want === 'array' ? Array.isArray(v) : v !== null && typeof v === 'object' && !Array.isArray(v);
  const fenced = [...text.matchAll(FENCE)].map((m) => m[1]!);
  for (const block of fenced.reverse()) {
    const value = parseLenientJson(block.trim());
    if (value.ok && fits(value.value)) return { ok: true, value: value.value, source: block.trim() };
  }
  const regions = balancedRegions(text);
  for (const region of regions.reverse()) {
    const value = parseLenientJson(region);
    if (value.ok && fits(value.value)) return { ok: true, value: value.value, source: region };
  }
  if (regions.length === 0 && fenced.length === 0) return { ok: false, reason: `no JSON ${want === 'any' ? 'value' : want} in the answer` };
  return { ok: false, reason: `no parseable JSON ${want === 'any' ? 'value' : want} in the answer` };
}

/** Every top-level balanced bracket region (`{…}` or `[…]`), skipping brackets inside string literals. */
export function balancedRegions(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  let quote: string | null = null;
  const stack: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote || (ch === '\n' && quote === "'")) quote = null;
      continue;
    }
    if (depth > 0 && (ch === '"' || ch === "'")) {
      // an apostrophe inside prose ("don't") is not a string start when outside any bracket
      quote = ch;
      continue;
    }
    if (ch === '{' || ch === '[') {
      if (depth === 0) start = i;
      stack.push(ch === '{' ? '}' : ']');
      depth++;
    } else if ((ch === '}' || ch === ']') && depth > 0) {
      if (stack[stack.length - 1] !== ch) {
        // mismatched: abandon this region
        depth = 0;
        stack.length = 0;
        continue;
      }
      stack.pop();
      depth--;
      if (depth === 0) out.push(text.slice(start, i + 1));
    }
  }
  return out;
}

/** JSON.parse after repairing what models commonly get wrong. */
export function parseLenientJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    /* repaired below */
  }
  const repaired = repairJson(text);
  try {
    return { ok: true, value: JSON.parse(repaired) };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/**
 * Rewrites single-quoted strings to double-quoted ones, drops comments and trailing commas, and maps
 * Python's True/False/None — token by token, so text inside strings is never touched.
 */
export function repairJson(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      let body = '';
      while (j < text.length && text[j] !== ch) {
        if (text[j] === '\\' && j + 1 < text.length) {
          const next = text[j + 1]!;
          body += next === "'" ? "'" : `\\${next}`;
          j += 2;
          continue;
        }
        body += text[j] === '"' ? '\\"' : text[j] === '\n' ? '\\n' : text[j];
        j++;
      }
      out += `"${body}"`;
      i = j;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === '}' || text[j] === ']') continue;
    }
    const word = /^[A-Za-z_]+/.exec(text.slice(i))?.[0];
    if (word) {
      out += word === 'True' ? 'true' : word === 'False' ? 'false' : word === 'None' ? 'null' : word;
      i += word.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// paths

/** Maps model-written paths onto a fixed candidate set. */
export class CandidateMatcher {
  private readonly exact: Set<string>;

  constructor(readonly candidates: readonly string[]) {
    this.exact = new Set(candidates);
  }

  /** The candidate a written path means, or undefined (outside the set, or ambiguous). */
  resolve(written: string): string | undefined {
    const cleaned = cleanPath(written);
    if (!cleaned) return undefined;
    if (this.exact.has(cleaned)) return cleaned;
    const forms = [cleaned];
    if (!cleaned.includes('/') && !/\.pyi?$/.test(cleaned) && /^[A-Za-z_][\w.]*$/.test(cleaned)) {
      // dotted module "django.db.models.query" → path, also as a package
      forms.push(`${cleaned.replace(/\./g, '/')}.py`, `${cleaned.replace(/\./g, '/')}/__init__.py`);
    }
    for (const form of forms) {
      if (this.exact.has(form)) return form;
      // written has a leading folder the candidate lacks ("repo/src/x.py", "/abs/checkout/src/x.py")
      const longer = this.candidates.filter((c) => form.endsWith(`/${c}`));
      if (longer.length > 0) return longer.sort((a, b) => b.length - a.length)[0];
      // written lacks leading folders ("models/query.py" for "django/db/models/query.py"): must be unique
      const shorter = this.candidates.filter((c) => c.endsWith(`/${form}`));
      if (shorter.length === 1) return shorter[0];
    }
    return undefined;
  }
}

/** Strips quotes, backticks, "./", a line suffix (":123", "#L5") and backslashes from a written path. */
export function cleanPath(written: string): string {
  let p = written
    .trim()
    .replace(/^[`'"*]+|[`'"*,;]+$/g, '')
    .trim();
  p = p
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
  p = p.replace(/(\.pyi?)(:\d+(-\d+)?|#L\d+.*)$/, '$1');
  return p;
}

// ---------------------------------------------------------------------------------------------------
// Phase 1 scores

export interface ScoreParse {
  /** candidate → score, in the order the answer gave them */
  scores: Map<string, number>;
  /** entries the answer gave that are not candidates (or not scores), with the reason */
  dropped: Array<{ entry: string; reason: string }>;
}

export const MIN_SCORE = 0;
export const MAX_SCORE = 10;

/**
 * Reads a path→score mapping: `{"a.py": 8}`, `[{"path"|"file": "a.py", "score": 8}]` or `[["a.py", 8]]`,
 * optionally wrapped (`{"scores": {...}}`). Scores outside 0–10 are clamped (recorded); a score that is not
 * a number drops its entry. Throws (a message for the retry prompt) when no candidate got a score.
 */
export function parseScores(answer: string, matcher: CandidateMatcher): ScoreParse {
  const extraction = extractJson(answer);
  if (!extraction.ok) throw new Error(extraction.reason);
  const entries = scoreEntries(extraction.value);
  if (entries.length === 0) throw new Error('the JSON holds no path → score entries');
  const scores = new Map<string, number>();
  const dropped: ScoreParse['dropped'] = [];
  for (const [written, raw] of entries) {
    const path = matcher.resolve(written);
    if (!path) {
      dropped.push({ entry: written, reason: 'not a candidate' });
      continue;
    }
    const score = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim().replace(/\/\s*10$/, '')) : NaN;
    if (!Number.isFinite(score)) {
      dropped.push({ entry: written, reason: `score ${JSON.stringify(raw)} is not a number` });
      continue;
    }
    const clamped = Math.min(MAX_SCORE, Math.max(MIN_SCORE, score));
    if (clamped !== score) dropped.push({ entry: written, reason: `score ${score} clamped to ${clamped}` });
    if (!scores.has(path)) scores.set(path, clamped);
  }
  if (scores.size === 0) throw new Error(`no scored path is a candidate (${dropped.map((d) => d.entry).join(', ')})`);
  return { scores, dropped };
}

function scoreEntries(value: unknown): Array<[string, unknown]> {
  if (Array.isArray(value)) {
    const out: Array<[string, unknown]> = [];
    for (const item of value) {
      if (Array.isArray(item) && item.length >= 2 && typeof item[0] === 'string') out.push([item[0], item[1]]);
      else if (item && typeof item === 'object') {
        const o = item as Record<string, unknown>;
        const path = o.path ?? o.file ?? o.file_path ?? o.filename;
        if (typeof path === 'string') out.push([path, o.score ?? o.relevance ?? o.rating]);
      }
    }
    return out;
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const key of ['scores', 'final_answer', 'files', 'relevance']) {
      const inner = o[key];
      if (inner && typeof inner === 'object' && Object.keys(o).length === 1) return scoreEntries(inner);
    }
    return Object.entries(o);
  }
  return [];
}

// ---------------------------------------------------------------------------------------------------
// Phase 2 ranking

export interface RankingParse {
  /** candidates, best first, each once */
  ranking: string[];
  dropped: Array<{ entry: string; reason: string }>;
}

/**
 * Reads a ranked list of paths: `["a.py", "b.py"]`, `[{"path": "a.py"}]`, or `{"ranking": [...]}`.
 * Throws when no entry is a candidate.
 */
export function parseRanking(answer: string, matcher: CandidateMatcher): RankingParse {
  const extraction = extractJson(answer);
  if (!extraction.ok) throw new Error(extraction.reason);
  let list: unknown = extraction.value;
  if (list && typeof list === 'object' && !Array.isArray(list)) {
    const o = list as Record<string, unknown>;
    list = o.ranking ?? o.ranked_files ?? o.files ?? o.paths ?? Object.values(o).find(Array.isArray);
  }
  if (!Array.isArray(list)) throw new Error('expected a JSON list of file paths');
  const ranking: string[] = [];
  const dropped: RankingParse['dropped'] = [];
  for (const item of list) {
    const written =
      typeof item === 'string'
        ? item
        : item && typeof item === 'object'
          ? ((item as Record<string, unknown>).path ?? (item as Record<string, unknown>).file)
          : undefined;
    if (typeof written !== 'string') {
      dropped.push({ entry: JSON.stringify(item), reason: 'not a path' });
      continue;
    }
    const path = matcher.resolve(written);
    if (!path) dropped.push({ entry: written, reason: 'not a candidate' });
    else if (!ranking.includes(path)) ranking.push(path);
  }
  if (ranking.length === 0) throw new Error(`no listed path is one of the files shown (${dropped.map((d) => d.entry).join(', ') || 'empty list'})`);
  return { ranking, dropped };
}

// ---------------------------------------------------------------------------------------------------
// function-level entities

export interface EntityParse {
  /** best first; `name` is the dotted qualified name ("Class.method"), each (path, name) once */
  entities: Array<{ path: string; name: string }>;
  dropped: Array<{ entry: string; reason: string }>;
}

/**
 * Reads a ranked list of `path::Class::method` / `path::function` entries (also `path::Class.method`, and
 * `{"path": "...", "entity"|"function"|"name": "..."}` objects, or `{"path": ["Class::method", ...]}`).
 * `definitions(path)` gives the file's qualified names: an entity that is not defined there is dropped.
 */
export function parseEntities(answer: string, matcher: CandidateMatcher, definitions: (path: string) => ReadonlySet<string>): EntityParse {
  const extraction = extractJson(answer);
  if (!extraction.ok) throw new Error(extraction.reason);
  const raw: Array<[string, string]> = [];
  const value = extraction.value;
  const fromString = (s: string): void => {
    const at = s.indexOf('::');
    raw.push(at < 0 ? [s, ''] : [s.slice(0, at), s.slice(at + 2)]);
  };
  const list = Array.isArray(value)
    ? value
    : value && typeof value === 'object'
      ? ((value as Record<string, unknown>).entities ?? (value as Record<string, unknown>).functions)
      : undefined;
  if (Array.isArray(list)) {
    for (const item of list) {
      if (typeof item === 'string') fromString(item);
      else if (item && typeof item === 'object') {
        const o = item as Record<string, unknown>;
        const path = o.path ?? o.file;
        const name = o.entity ?? o.function ?? o.name ?? o.method;
        if (typeof path === 'string' && typeof name === 'string') raw.push([path, name]);
        else if (typeof path === 'string' && typeof name !== 'string' && typeof o.entity !== 'string') fromString(path);
      }
    }
  } else if (value && typeof value === 'object') {
    for (const [path, names] of Object.entries(value as Record<string, unknown>)) {
      for (const name of Array.isArray(names) ? names : [names]) if (typeof name === 'string') raw.push([path, name]);
    }
  }
  const entities: EntityParse['entities'] = [];
  const dropped: EntityParse['dropped'] = [];
  const seen = new Set<string>();
  for (const [writtenPath, writtenName] of raw) {
    const entry = `${writtenPath}::${writtenName}`;
    const path = matcher.resolve(writtenPath);
    if (!path) {
      dropped.push({ entry, reason: 'file not shown' });
      continue;
    }
    const name = writtenName
      .trim()
      .replace(/\(.*\)$/, '')
      .replace(/::/g, '.')
      .replace(/^\.+|\.+$/g, '');
    if (!name) {
      dropped.push({ entry, reason: 'no function or method named' });
      continue;
    }
    const known = definitions(path);
    // a bare method name is accepted when exactly one definition in the file ends with it
    const resolved = known.has(name) ? name : uniqueSuffix(known, name);
    if (!resolved) {
      dropped.push({ entry, reason: `not defined in ${path}` });
      continue;
    }
    const key = `${path}::${resolved}`;
    if (seen.has(key)) continue;
    seen.add(key);
    entities.push({ path, name: resolved });
  }
  if (entities.length === 0)
    throw new Error(`no listed entity is a function or method of the files shown (${dropped.map((d) => d.entry).join(', ') || 'empty list'})`);
  return { entities, dropped };
}

function uniqueSuffix(known: ReadonlySet<string>, name: string): string | undefined {
  const matches = [...known].filter((k) => k.endsWith(`.${name}`));
  return matches.length === 1 ? matches[0] : undefined;
}
