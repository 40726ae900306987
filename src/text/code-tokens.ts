/**
 * Code-aware tokenization shared by the lexical embedder and BM25.
 *
 * Issues and code name the same things in different shapes: `QuerySet.bulk_create`, `bulk_create`,
 * "bulk create", `django/db/models/query.py`, `django.db.models.query`. To let those meet, every
 * identifier is emitted whole *and* split into its camelCase / snake_case / letter-digit parts, dotted
 * names are emitted whole and part by part, and paths are emitted whole, as a dotted module name, per
 * segment and by file stem. Everything is lowercased; English and Python stopwords, one-letter tokens and
 * pure numbers are dropped.
 *
 * This sits in the hot loop of indexing (millions of tokens per repository), so it is a hand-written
 * scanner over char codes with one callback per token, no intermediate arrays.
 */
import { INDEXED_LANGUAGES, languageForPath } from '../languages/index.ts';

/** What shape a token had in the text; embedders weight the shapes differently. */
export type TokenKind =
  /** a whole identifier, e.g. `bulk_create` */
  | 'identifier'
  /** one camelCase / snake_case / digit part of a longer identifier, e.g. `bulk` */
  | 'part'
  /** a whole dotted name, e.g. `models.query` or the module form of a path */
  | 'dotted'
  /** a whole repository path, e.g. `django/db/models/query.py` */
  | 'path';

export type TokenVisitor = (token: string, kind: TokenKind) => void;

// biome-ignore format: a word list reads better wrapped than one word a line
const ENGLISH_STOPWORDS = [
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as',
  'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by', 'can',
  'could', 'did', 'do', 'does', 'doing', 'done', 'down', 'during', 'each', 'either', 'etc', 'even', 'ever',
  'every', 'few', 'for', 'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers',
  'him', 'his', 'how', 'however', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'let',
  'like', 'may', 'me', 'might', 'more', 'most', 'much', 'must', 'my', 'no', 'nor', 'not', 'now', 'of',
  'off', 'on', 'once', 'one', 'only', 'or', 'other', 'our', 'ours', 'out', 'over', 'own', 'per', 'please',
  'quite', 'rather', 'really', 'same', 'seems', 'shall', 'she', 'should', 'since', 'so', 'some', 'still',
  'such', 'than', 'that', 'the', 'their', 'theirs', 'them', 'then', 'there', 'these', 'they', 'this',
  'those', 'though', 'through', 'thus', 'to', 'too', 'under', 'until', 'up', 'upon', 'us', 'very', 'was',
  'we', 'were', 'what', 'when', 'where', 'whether', 'which', 'while', 'who', 'whom', 'why', 'will',
  'with', 'within', 'without', 'would', 'yet', 'you', 'your', 'yours', 've', 'll', 're', 'don', 'doesn',
  'didn', 'isn', 'wasn', 'aren', 'won', 'can\'t', 'cannot', 'think', 'thanks', 'hi',
];

/** Words that say nothing about where code lives: English function words and every language's keywords. */
export const STOPWORDS: ReadonlySet<string> = new Set([...ENGLISH_STOPWORDS, ...INDEXED_LANGUAGES.flatMap((l) => l.stopwords)]);

// char-code classes
const enum C {
  Digit = 1,
  Lower = 2,
  Upper = 3,
  Underscore = 4,
}
const CLASS = new Uint8Array(128);
for (let c = 48; c <= 57; c++) CLASS[c] = C.Digit;
for (let c = 97; c <= 122; c++) CLASS[c] = C.Lower;
for (let c = 65; c <= 90; c++) CLASS[c] = C.Upper;
CLASS[95] = C.Underscore;

const DOT = 46;
const SLASH = 47;
const HYPHEN = 45;

function charClass(code: number): number {
  return code < 128 ? CLASS[code] : 0;
}

function isAllDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function hasAlphanumeric(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) !== 95) return true;
  return false;
}

function keep(token: string): boolean {
  return token.length > 1 && !STOPWORDS.has(token) && !isAllDigits(token) && hasAlphanumeric(token);
}

/**
 * Splits one identifier (ASCII word chars) into its parts: `_` separates, lower→Upper starts a part,
 * `HTTPResponse` splits before the last capital of a capital run, letters and digits separate.
 * Calls `visit` with each lowercased part; returns the number of parts.
 */
function splitIdentifier(word: string, visit: (part: string) => void): number {
  let parts = 0;
  let start = -1;
  let prev = 0;
  const n = word.length;
  for (let i = 0; i < n; i++) {
    const cls = charClass(word.charCodeAt(i));
    if (cls === C.Underscore) {
      if (start >= 0) {
        visit(word.slice(start, i).toLowerCase());
        parts++;
        start = -1;
      }
      prev = 0;
      continue;
    }
    if (start < 0) {
      start = i;
    } else {
      let boundary = false;
      if (cls === C.Upper && (prev === C.Lower || prev === C.Digit)) boundary = true;
      else if (cls === C.Digit && prev !== C.Digit) boundary = true;
      else if (cls !== C.Digit && prev === C.Digit) boundary = true;
      else if (cls === C.Lower && prev === C.Upper && i - start > 1) {
        // "HTTPResponse": the capital before this lowercase letter starts a new part
        visit(word.slice(start, i - 1).toLowerCase());
        parts++;
        start = i - 1;
      }
      if (boundary) {
        visit(word.slice(start, i).toLowerCase());
        parts++;
        start = i;
      }
    }
    prev = cls;
  }
  if (start >= 0) {
    visit(word.slice(start).toLowerCase());
    parts++;
  }
  return parts;
}

/** Emits an identifier whole and, when it has several parts, each part. */
function emitIdentifier(word: string, visit: TokenVisitor): void {
  const whole = word.toLowerCase();
  if (keep(whole)) visit(whole, 'identifier');
  // cheap pre-check: a single all-lowercase/digit-free run has no parts beyond itself
  let needsSplit = false;
  for (let i = 0; i < word.length; i++) {
    const cls = charClass(word.charCodeAt(i));
    if (cls === C.Underscore || cls === C.Digit || cls === C.Upper) {
      needsSplit = true;
      break;
    }
  }
  if (!needsSplit) return;
  const parts: string[] = [];
  splitIdentifier(word, (p) => parts.push(p));
  if (parts.length < 2) return;
  for (const p of parts) if (keep(p)) visit(p, 'part');
}

/**
 * Handles one maximal run of word chars joined by `.` and `/`.
 * `start`/`end` index into `text`; `hasSlash`/`hasDot` were noted by the scanner.
 */
function emitCompound(text: string, start: number, end: number, hasSlash: boolean, hasDot: boolean, visit: TokenVisitor): void {
  if (!hasSlash && !hasDot) {
    emitIdentifier(text.slice(start, end), visit);
    return;
  }
  const raw = text.slice(start, end);
  // trailing/leading separators ("foo." at the end of a sentence, "/usr") are punctuation
  const pieces = raw.split(/[./-]/).filter((p) => p.length > 0);
  if (pieces.length === 0) return;
  if (pieces.length === 1) {
    emitIdentifier(pieces[0], visit);
    return;
  }
  if (hasSlash) {
    const lower = raw.toLowerCase();
    visit(lower, 'path');
    // tracebacks give absolute paths ("/usr/lib/python3/site-packages/requests/models.py"), issues give
    // partial ones ("models/query.py"); suffixes let both meet the repository-relative path
    for (let slash = lower.indexOf('/'); slash >= 0 && lower.indexOf('/', slash + 1) >= 0; slash = lower.indexOf('/', slash + 1)) {
      visit(lower.slice(slash + 1), 'path');
    }
    // "django/db/models/query.py" also names the module "django.db.models.query"
    const module = modulePathOf(lower);
    if (module) visit(module, 'dotted');
    const segments = lower.split('/');
    const last = segments[segments.length - 1];
    const dot = last.lastIndexOf('.');
    if (dot > 0) {
      const stem = last.slice(0, dot);
      for (const s of segments.slice(0, -1)) emitPathPiece(s, visit);
      emitPathPiece(stem, visit);
    } else {
      for (const s of segments) emitPathPiece(s, visit);
    }
    return;
  }
  // dotted name: version numbers ("1.11.2") carry nothing
  if (pieces.every(isAllDigits)) return;
  let first = 0;
  // self.foo / cls.foo: the receiver is noise, the attribute is the signal
  const head = pieces[0].toLowerCase();
  if (head === 'self' || head === 'cls') first = 1;
  const named = pieces.slice(first);
  if (named.length >= 2) visit(named.join('.').toLowerCase(), 'dotted');
  for (const p of named) emitIdentifier(p, visit);
}

function emitPathPiece(segment: string, visit: TokenVisitor): void {
  // segments may themselves be dotted or hyphenated ("foo.bar" packages, "site-packages")
  for (const piece of segment.split(/[.-]/)) if (piece) emitIdentifier(piece, visit);
}

/** The dotted module a file is imported as, by its language's rule ("django/db/models/query.py" → "django.db.models.query"). */
export function modulePathOf(path: string): string | undefined {
  return languageForPath(path)?.modulePath(path);
}

/** Calls `visit` for every token of `text` in order (tokens may repeat). */
export function forEachCodeToken(text: string, visit: TokenVisitor): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    // skip to the next word char
    let c = text.charCodeAt(i);
    if (charClass(c) === 0) {
      i++;
      continue;
    }
    const start = i;
    let end = i;
    let hasSlash = false;
    let hasDot = false;
    let hasHyphen = false;
    while (i < n) {
      c = text.charCodeAt(i);
      if (charClass(c) !== 0) {
        i++;
        end = i;
      } else if ((c === DOT || c === SLASH || c === HYPHEN) && i + 1 < n && charClass(text.charCodeAt(i + 1)) !== 0) {
        if (c === DOT) hasDot = true;
        else if (c === SLASH) hasSlash = true;
        else hasHyphen = true;
        i++;
      } else {
        break;
      }
    }
    if (hasHyphen && !hasSlash) {
      // "foo-bar", "x-1": hyphens join words only inside paths ("site-packages/requests")
      for (const piece of text.slice(start, end).split('-')) {
        emitCompound(piece, 0, piece.length, false, piece.includes('.'), visit);
      }
    } else {
      emitCompound(text, start, end, hasSlash, hasDot, visit);
    }
  }
}

/** All tokens of `text` in order. */
export function codeTokens(text: string): string[] {
  const out: string[] = [];
  forEachCodeToken(text, (t) => out.push(t));
  return out;
}
