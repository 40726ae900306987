/**
 * Model-free structural query: the deterministic analogue of BLAgent's T0 (paper §2.2).
 *
 * An issue names code in a handful of recognisable shapes: traceback frames, file paths, dotted module
 * paths, `Class.method` chains, CamelCase classes, snake_case functions, and anything in backticks or
 * fenced code blocks. We pull those out with regular expressions (no model, no repository access) and keep
 * where each came from, because a name inside a traceback or backticks is far stronger evidence than a
 * capitalised word in prose. Mapping the signals onto repository files happens later (path-match.ts,
 * definition-boost.ts), when the file list is known.
 */
import { INDEXED_LANGUAGES } from '../../src/languages/index.ts';

/** Where a mention came from; the scorer weighs sources differently. */
export type MentionSource = 'frame' | 'backtick' | 'code' | 'prose';

export interface NameMention {
  /** bare identifier, e.g. "register_hook" or "QuerySet" */
  name: string;
  /** strongest source it was seen in (frame > backtick > code > prose) */
  source: MentionSource;
  /** how many times it was seen anywhere */
  count: number;
}

export interface TracebackFrame {
  /** path as written in the issue, normalised to POSIX separators */
  path: string;
  line: number;
  /** function name when the frame format gives one */
  func?: string;
}

export interface StructuralSignals {
  /** identifiers in order of first appearance, strongest source kept */
  names: NameMention[];
  /** dotted chains whose last two parts look like `Class.member`, e.g. "Request.register_hook" */
  qualifiedNames: string[];
  /** dotted module paths, e.g. "django.db.models.fields" */
  modules: string[];
  /** file paths mentioned outside traceback frames, e.g. "sklearn/linear_model/logistic.py" */
  paths: string[];
  /** traceback frames, innermost (last printed) first */
  frames: TracebackFrame[];
}

const SOURCE_RANK: Record<MentionSource, number> = { frame: 3, backtick: 2, code: 1, prose: 0 };

/**
 * Words that look like identifiers but name nothing a repository defines usefully: Python keywords and
 * builtins, and typical prose in CamelCase/snake_case shapes. Left in, they only add noise.
 */
const STOP_NAMES = new Set(
  (
    'self cls None True False and or not in is if else elif for while with as def class return yield lambda ' +
    'import from try except finally raise pass break continue global nonlocal assert del async await print ' +
    'len str int float bool list dict set tuple object type range super isinstance issubclass getattr setattr ' +
    'hasattr open repr hash id iter next map filter zip sorted reversed sum min max abs any all format vars dir ' +
    'bytes bytearray frozenset complex callable enumerate input round divmod pow ord chr bin hex oct slice ' +
    'property staticmethod classmethod Exception BaseException ValueError TypeError KeyError IndexError ' +
    'AttributeError RuntimeError NotImplementedError ImportError ModuleNotFoundError AssertionError OSError ' +
    'IOError StopIteration ZeroDivisionError OverflowError RecursionError UnicodeDecodeError UnicodeEncodeError ' +
    'DeprecationWarning UserWarning Warning FutureWarning SyntaxError NameError FileNotFoundError PermissionError ' +
    'Traceback File line module stdin string main args kwargs param params value values result results data ' +
    'foo bar baz spam eggs test tests example examples x y z a b c d e f g h i j k n m o p q r s t u v w ' +
    'np pd plt os sys re json math GitHub MacOS macOS JavaScript TypeScript iPython IPython PyPI PyCharm ' +
    'README TODO FIXME NOTE http https www com org html py txt e.g i.e etc'
  ).split(/\s+/),
);

const IDENT = '[A-Za-z_][A-Za-z0-9_]*';
const DOTTED = new RegExp(`${IDENT}(?:\\.${IDENT})+`, 'g');
const IDENT_RE = new RegExp(IDENT, 'g');
/** Source paths of every language (languages/*.ts). A leading directory part is optional ("models.py" counts). */
const PATH_RE = new RegExp(INDEXED_LANGUAGES.map((l) => l.sourcePath.source).join('|'), 'g');
/** Traceback frames as each language's runtime and test runners print them. */
const FRAMES = INDEXED_LANGUAGES.flatMap((l) => l.frames);
/** Frames whose text would read as code; blanked before code and paths are scanned. */
const CODE_LIKE_FRAMES = FRAMES.filter((f) => f.blankInCode).map((f) => f.pattern);
const blankCodeLikeFrames = (text: string): string => CODE_LIKE_FRAMES.reduce((t, pattern) => t.replace(pattern, ' '), text);
/** Last words of a dotted chain that make it a file name or a host, not a module path. */
const NON_MODULE_SUFFIXES = new Set([
  ...INDEXED_LANGUAGES.flatMap((l) => l.fileSuffixWords),
  'txt',
  'rst',
  'md',
  'html',
  'com',
  'org',
  'io',
  'net',
  'cfg',
  'toml',
  'json',
  'yml',
  'yaml',
  'ini',
]);

function isCamelCase(word: string): boolean {
  // an inner capital after a lowercase letter (QuerySet, MatrixSymbol, iPython) or an acronym prefix
  // followed by a word (HTTPAdapter); plain capitalised English words ("The") do not qualify
  return /[a-z0-9][A-Z]/.test(word) || /^[A-Z]{2,}[a-z]/.test(word);
}

function isSnakeCase(word: string): boolean {
  return /[A-Za-z0-9]_[A-Za-z0-9]/.test(word) || /^_+[A-Za-z]/.test(word) || /^__\w+__$/.test(word);
}

function looksLikeIdentifier(word: string): boolean {
  if (word.length < 2 || STOP_NAMES.has(word) || /^\d/.test(word) || /^_+$/.test(word)) return false;
  // markdown emphasis such as _should_ is prose, not a private name (dunders like __init__ stay)
  if (/^_[^_].*[^_]_$/.test(word)) return false;
  return true;
}

/** A chain such as "1.2.3", "e.g", "www.example.com" or "foo.py" is not a module path. */
function looksLikeModule(chain: string): boolean {
  const parts = chain.split('.');
  if (parts.length < 2) return false;
  if (parts.some((p) => p.length === 0 || /^\d/.test(p))) return false;
  const last = parts[parts.length - 1];
  if (NON_MODULE_SUFFIXES.has(last)) return false;
  if (parts.length === 2 && parts[0].length <= 2 && parts[1].length <= 2) return false; // "e.g", "i.e"
  return true;
}

/** Strips interpreter/site-packages prefixes so a frame path can be matched against repository paths. */
export function normalizeIssuePath(raw: string): string {
  let p = raw.trim().replace(/\\/g, '/');
  const marker = p.search(/\/(?:site|dist)-packages\//);
  if (marker >= 0) p = p.slice(p.indexOf('-packages/', marker) + '-packages/'.length);
  p = p.replace(/^[a-zA-Z]:\//, '/');
  // egg directories inside site-packages: requests-2.3.0-py2.7.egg/requests/models.py
  p = p.replace(/^[^/]+\.egg\//, '');
  p = p.replace(/^(?:\.\/)+/, '');
  return p;
}

interface Extraction {
  names: Map<string, NameMention>;
  qualified: string[];
  modules: string[];
  paths: string[];
  frames: TracebackFrame[];
  /** what each list above already holds (a long issue can name thousands of chains) */
  listed: Map<string[], Set<string>>;
}

/**
 * Longest run of non-space characters the extraction reads; longer runs (base64 blobs, minified code,
 * hex dumps) are blanked first. They name nothing a repository defines, and the name and path patterns
 * backtrack over a run at every start position inside it: a 60,000-character blob took 13 s. The longest
 * token of any SWE-bench Lite issue is 152 characters.
 */
const MAX_TOKEN_CHARS = 400;
const LONG_TOKEN = new RegExp(`\\S{${MAX_TOKEN_CHARS + 1},}`, 'g');

function addName(into: Extraction, name: string, source: MentionSource): void {
  if (!looksLikeIdentifier(name)) return;
  const seen = into.names.get(name);
  if (!seen) {
    into.names.set(name, { name, source, count: 1 });
    return;
  }
  seen.count++;
  if (SOURCE_RANK[source] > SOURCE_RANK[seen.source]) seen.source = source;
}

function pushUnique(into: Extraction, list: string[], value: string): void {
  let seen = into.listed.get(list);
  if (!seen) into.listed.set(list, (seen = new Set()));
  if (seen.has(value)) return;
  seen.add(value);
  list.push(value);
}

/** Dotted chains: module paths, and `Class.member` pairs whose owner looks like a class. */
function addDottedChain(into: Extraction, chain: string, source: MentionSource): void {
  const parts = chain.split('.').filter(Boolean);
  if (parts.length < 2) return;
  for (let i = 0; i + 1 < parts.length; i++) {
    const owner = parts[i];
    const member = parts[i + 1];
    if (/^[A-Z]/.test(owner) && /^[A-Za-z_]/.test(member) && looksLikeIdentifier(member) && !STOP_NAMES.has(owner)) {
      pushUnique(into, into.qualified, `${owner}.${member}`);
    }
  }
  // "self.x", "np.array", "obj.attr": the final member is still a name worth looking up
  for (const part of parts) {
    if (source === 'prose' && !isCamelCase(part) && !isSnakeCase(part)) continue;
    addName(into, part, source);
  }
  const lowerPrefix: string[] = [];
  for (const part of parts) {
    if (/^[a-z_][a-z0-9_]*$/.test(part)) lowerPrefix.push(part);
    else break;
  }
  // django.db.models.fields.Field -> module "django.db.models.fields"
  if (lowerPrefix.length >= 2 && looksLikeModule(lowerPrefix.join('.'))) pushUnique(into, into.modules, lowerPrefix.join('.'));
}

/** Identifiers inside code: definitions, calls, attributes, imports; every non-stop identifier counts. */
function scanCode(into: Extraction, code: string, source: 'code' | 'backtick'): void {
  for (const m of code.matchAll(/\bfrom\s+([\w.]+)\s+import\s+([\w\s,()]+)/g)) {
    if (looksLikeModule(m[1])) pushUnique(into, into.modules, m[1]);
    for (const n of m[2].matchAll(IDENT_RE)) if (n[0] !== 'import' && n[0] !== 'as') addName(into, n[0], source);
  }
  for (const m of code.matchAll(/\bimport\s+([\w.]+)/g)) if (m[1].includes('.') && looksLikeModule(m[1])) pushUnique(into, into.modules, m[1]);
  const withoutStrings = code.replace(/(["'])(?:\\.|(?!\1)[^\\\n])*\1/g, ' ');
  for (const m of withoutStrings.matchAll(DOTTED)) addDottedChain(into, m[0], source);
  for (const m of withoutStrings.matchAll(IDENT_RE)) addName(into, m[0], source);
}

function scanFrames(into: Extraction, text: string): void {
  const frames: Array<TracebackFrame & { at: number }> = [];
  for (const { pattern } of FRAMES) {
    for (const m of text.matchAll(pattern)) frames.push({ path: normalizeIssuePath(m[1]), line: Number(m[2]), func: m[3], at: m.index ?? 0 });
  }
  // printed order is outermost first; the innermost frames (closest to the failure) are most telling
  frames.sort((a, b) => b.at - a.at);
  for (const f of frames) {
    if (f.path.startsWith('<')) continue; // <stdin>, <string>, <frozen importlib...>
    into.frames.push({ path: f.path, line: f.line, ...(f.func && !f.func.startsWith('<') ? { func: f.func } : {}) });
    if (f.func && !f.func.startsWith('<')) addName(into, f.func, 'frame');
  }
}

/** Extracts every structural signal from an issue text. Deterministic; never throws on odd input. */
export function extractStructuralSignals(issue: string): StructuralSignals {
  const into: Extraction = { names: new Map(), qualified: [], modules: [], paths: [], frames: [], listed: new Map() };
  const text = issue.replace(/\r\n?/g, '\n').replace(LONG_TOKEN, ' ');

  scanFrames(into, text);

  // fenced code blocks first, then remove them so prose scanning does not see code twice
  let prose = text.replace(/```[^\n]*\n([\s\S]*?)(?:```|$)/g, (_all, body: string) => {
    // a traceback inside a code block was already read as frames; its source lines are still code
    scanCode(into, blankCodeLikeFrames(body).replace(/^\s*Traceback \(most recent call last\):?\s*$/gm, ' '), 'code');
    return '\n';
  });
  // indented blocks (4 spaces / tab) and doctest prompts are code too
  prose = prose.replace(/^(?:>>>|\.\.\.) (.*)$/gm, (_all, body: string) => {
    scanCode(into, body, 'code');
    return '';
  });
  prose = prose.replace(/`([^`\n]+)`/g, (_all, body: string) => {
    scanCode(into, body, 'backtick');
    return ' ';
  });

  // source links (github.com/o/r/blob/<ref>/pkg/mod.py#L10) name a repository path; other URLs are noise
  const urlPaths: string[] = [];
  const pathText = blankCodeLikeFrames(text).replace(/\bhttps?:\/\/\S+/g, (url) => {
    const m = url.match(/\/(?:blob|tree|blame)\/[^/\s]+\/([^\s#?)\]>]+)/);
    if (m) urlPaths.push(m[1]);
    return ' ';
  });
  for (const p of urlPaths) for (const m of p.matchAll(PATH_RE)) pushUnique(into, into.paths, normalizeIssuePath(m[0]));
  const framePaths = new Set(into.frames.map((f) => f.path));
  for (const m of pathText.matchAll(PATH_RE)) {
    const p = normalizeIssuePath(m[0]);
    if (!framePaths.has(p)) pushUnique(into, into.paths, p);
  }

  const proseNoUrls = prose.replace(/\bhttps?:\/\/\S+/g, ' ').replace(PATH_RE, ' ');
  for (const m of proseNoUrls.matchAll(DOTTED)) {
    if (looksLikeModule(m[0]) || /[A-Z]/.test(m[0])) addDottedChain(into, m[0], 'prose');
  }
  // calls in prose: "is_upper() raises", "Matrix.is_upper()"
  for (const m of proseNoUrls.matchAll(new RegExp(`(${IDENT})\\(\\)`, 'g'))) addName(into, m[1], 'backtick');
  for (const m of proseNoUrls.matchAll(IDENT_RE)) {
    const w = m[0];
    if (isCamelCase(w) || isSnakeCase(w)) addName(into, w, 'prose');
  }

  return {
    names: [...into.names.values()],
    qualifiedNames: into.qualified,
    modules: into.modules,
    paths: into.paths,
    frames: into.frames,
  };
}

/**
 * The query text handed to text retrievers: strongest evidence first, each signal once. Frame lines keep
 * path and function together so a path-augmented chunk of that function matches on both.
 */
export function structuralQueryText(signals: StructuralSignals): string {
  const lines: string[] = [];
  for (const f of signals.frames) lines.push(f.func ? `${f.path} ${f.func}` : f.path);
  for (const p of signals.paths) lines.push(p);
  for (const m of signals.modules) lines.push(`${m} ${m.replace(/\./g, '/')}`);
  if (signals.qualifiedNames.length) lines.push(signals.qualifiedNames.join(' '));
  const ordered = [...signals.names].sort((a, b) => SOURCE_RANK[b.source] - SOURCE_RANK[a.source]);
  if (ordered.length) lines.push(ordered.map((n) => n.name).join(' '));
  return lines.join('\n');
}
