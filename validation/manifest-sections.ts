/**
 * Mixed manifests: files that hold test configuration beside everything else (issue 51). `setup.cfg` has
 * `[tool:pytest]` among packaging options, `package.json` a `test` script among dependencies, `Cargo.toml`
 * `[[test]] harness = false` among crates. A patch may need to change such a file (a gold patch adds a dependency),
 * so the file is not restored whole: only its test sections are kept at the base commit, line by line, and every
 * other change of the patch stays.
 *
 * Each format says which of a file's lines belong to a test section (`testLines`); `keepTestSections` walks the
 * line diff of base and patched text, keeps the removed lines that were test lines and drops the added lines that
 * are. What is read as a test section, per file name:
 *   setup.cfg                     [tool:pytest]
 *   pyproject.toml                [tool.pytest…], [tool.tox…], [tool.coverage…] tables
 *   Cargo.toml                    [[test]], [[bench]], [profile.test], [profile.bench]; `harness =` and `test =` keys
 *   package.json                  scripts test, pretest, posttest, test:*; jest, mocha, ava, vitest, c8, nyc
 *   composer.json                 scripts test*, pretest, posttest
 *   pom.xml                       the Surefire and Failsafe plugin blocks; skipTests, maven.test.skip, testFailureIgnore…
 *   build.gradle, build.gradle.kts  `test { … }` and `tasks.test`/`withType(Test)` blocks; `test.` settings
 * Not covered: a test setting written where these rules do not look (a TOML dotted key `pytest.ini_options.x` under
 * `[tool]`, JSON minified onto one line is one line: all of it is kept at base when any test key on it changed).
 */
import { diffLines } from 'diff';

/** Test lines of a file: 0-based line index → the section it belongs to (for the record). */
export type TestLines = Map<number, string>;

export interface ManifestRule {
  /** what the file is, for the record */
  kind: string;
  testLines(content: string): TestLines;
  /** mends what a line-wise restore can break in this format (JSON's commas) */
  mend?(content: string): string;
}

function linesOf(content: string): string[] {
  return content.split('\n');
}

/** INI and TOML: a section runs from its header to the next; `isTest` names the test tables, `isTestKey` keys elsewhere. */
function tableLines(content: string, isTest: (table: string) => boolean, isTestKey: (key: string) => boolean = () => false): TestLines {
  const found: TestLines = new Map();
  let table: string | undefined;
  let label = '';
  linesOf(content).forEach((line, index) => {
    const header = /^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(?:[#;].*)?$/.exec(line);
    if (header) {
      table = header[2]!.replace(/\s+/g, '');
      label = header[1] === '[[' ? `[[${table}]]` : `[${table}]`;
    }
    const key = /^\s*([A-Za-z0-9_.-]+)\s*[=:]/.exec(line)?.[1];
    if (table !== undefined && isTest(table)) found.set(index, label);
    else if (!header && key && isTestKey(key)) found.set(index, `${label} ${key}`.trim());
  });
  return found;
}

const PYPROJECT_TEST_TABLES = /^tool\.(pytest|tox|coverage)(\.|$)/;
const CARGO_TEST_TABLES = new Set(['test', 'bench', 'profile.test', 'profile.bench']);

/** Where each key of a JSON document spans (first and last line, 0-based), by a small recursive scanner. */
function jsonKeySpans(content: string): Array<{ path: string[]; from: number; to: number }> {
  const lineStarts = [0];
  for (let i = 0; i < content.length; i++) if (content[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (at: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const spans: Array<{ path: string[]; from: number; to: number }> = [];
  let i = 0;
  const space = () => {
    while (i < content.length && /\s/.test(content[i]!)) i++;
  };
  const string = (): string => {
    let end = i + 1;
    while (end < content.length && content[end] !== '"') end += content[end] === '\\' ? 2 : 1;
    const raw = content.slice(i, end + 1);
    i = end + 1;
    return JSON.parse(raw) as string;
  };
  const value = (path: string[], depth: number): void => {
    if (depth > 64) throw new Error('nested too deep');
    space();
    const open = content[i];
    if (open === '"') return void string();
    if (open !== '{' && open !== '[') {
      while (i < content.length && !/[,}\]\s]/.test(content[i]!)) i++;
      return;
    }
    i++;
    for (;;) {
      space();
      if (content[i] === (open === '{' ? '}' : ']')) return void i++;
      if (open === '{') {
        const from = lineOf(i);
        const key = [...path, string()];
        space();
        i++; // the colon (the document parsed as JSON before the scan)
        value(key, depth + 1);
        spans.push({ path: key, from, to: lineOf(i - 1) });
      } else value(path, depth + 1);
      space();
      if (content[i] === ',') i++;
    }
  };
  value([], 0);
  return spans;
}

/** The lines of a JSON document's test keys; none when it is not JSON (the runner cannot read it either). */
function jsonTestLines(content: string, isTest: (path: string[]) => boolean): TestLines {
  const found: TestLines = new Map();
  try {
    JSON.parse(content);
    for (const span of jsonKeySpans(content)) {
      if (isTest(span.path)) for (let line = span.from; line <= span.to; line++) found.set(line, span.path.join('.'));
    }
  } catch {
    return new Map();
  }
  return found;
}

/**
 * Commas after lines came back or went: none before a closing bracket on a later line, one between a value that ends
 * a line and a key that starts the next. JSON strings hold no raw newline, so a match across lines is never inside one.
 */
function mendJsonCommas(content: string): string {
  return content.replace(/,([ \t]*\r?\n\s*[}\]])/g, '$1').replace(/(["\d}\]el])([ \t]*\r?\n\s*")/g, '$1,$2');
}

const TEST_SCRIPT = /^(pre|post)?test([:-].*)?$/;
const NODE_TEST_KEYS = new Set(['jest', 'mocha', 'ava', 'vitest', 'c8', 'nyc']);

/** XML (pom.xml): the lines of Surefire and Failsafe `<plugin>` blocks, and of the properties that skip tests. */
function pomTestLines(content: string): TestLines {
  const found: TestLines = new Map();
  const lines = linesOf(content);
  let block: number | undefined;
  lines.forEach((line, index) => {
    if (/<plugin>/.test(line)) block = index;
    if (block !== undefined && /<\/plugin>/.test(line)) {
      const text = lines.slice(block, index + 1).join('\n');
      const plugin = /maven-(surefire|failsafe)-plugin/.exec(text)?.[0];
      if (plugin) for (let l = block; l <= index; l++) found.set(l, plugin);
      block = undefined;
    }
    const property = /<(skipTests|skipITs|maven\.test\.skip|maven\.test\.failure\.ignore|testFailureIgnore|surefire\.[\w.]+|failsafe\.[\w.]+)>/.exec(line);
    if (property) found.set(index, property[1]!);
  });
  return found;
}

/** Gradle: `test { … }` blocks (by brace depth) and `test.x = …` settings. */
function gradleTestLines(content: string): TestLines {
  const found: TestLines = new Map();
  let depth = 0;
  let start: number | undefined;
  linesOf(content).forEach((line, index) => {
    if (start === undefined && /^\s*(test|tasks\.test|tasks\.named\(["']test["']\)|tasks\.withType\(Test(::class(\.java)?)?\))\s*(\{|$)/.test(line)) {
      start = index;
      depth = 0;
    }
    if (start !== undefined) {
      found.set(index, 'test block');
      depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
      if (depth <= 0 && line.includes('}')) start = undefined;
    } else if (/^\s*test\.\w+/.test(line)) found.set(index, 'test setting');
  });
  return found;
}

/** The mixed manifests by file name. */
const MANIFESTS: Record<string, ManifestRule> = {
  'setup.cfg': { kind: 'setup.cfg', testLines: (c) => tableLines(c, (t) => t === 'tool:pytest') },
  'pyproject.toml': { kind: 'pyproject.toml', testLines: (c) => tableLines(c, (t) => PYPROJECT_TEST_TABLES.test(t)) },
  'Cargo.toml': {
    kind: 'Cargo.toml',
    testLines: (c) =>
      tableLines(
        c,
        (t) => CARGO_TEST_TABLES.has(t),
        (k) => k === 'harness' || k === 'test',
      ),
  },
  'package.json': {
    kind: 'package.json',
    mend: mendJsonCommas,
    testLines: (c) =>
      jsonTestLines(c, (p) => (p.length === 2 && p[0] === 'scripts' && TEST_SCRIPT.test(p[1]!)) || (p.length === 1 && NODE_TEST_KEYS.has(p[0]!))),
  },
  'composer.json': {
    kind: 'composer.json',
    mend: mendJsonCommas,
    testLines: (c) => jsonTestLines(c, (p) => p.length === 2 && p[0] === 'scripts' && TEST_SCRIPT.test(p[1]!)),
  },
  'pom.xml': { kind: 'pom.xml', testLines: pomTestLines },
  'build.gradle': { kind: 'build.gradle', testLines: gradleTestLines },
  'build.gradle.kts': { kind: 'build.gradle.kts', testLines: gradleTestLines },
};

/** The rule of a mixed manifest at `path`, or undefined. */
export function mixedManifestRule(path: string): ManifestRule | undefined {
  return MANIFESTS[path.split('/').at(-1) ?? ''];
}

/**
 * `patched` with its test sections as they are in `base` (undefined: the file is new): removed test lines come
 * back, added ones go, every other change stays. `sections` names what was restored (empty: nothing was).
 * When the result's test lines still differ from the base's, the base comes back whole.
 */
export function keepTestSections(rule: ManifestRule, base: string | undefined, patched: string): { content: string; sections: string[] } {
  const before = base ?? '';
  const baseTest = rule.testLines(before);
  const patchedTest = rule.testLines(patched);
  const out: string[] = [];
  const sections = new Set<string>();
  let baseLine = 0;
  let patchedLine = 0;
  for (const change of diffLines(before, patched)) {
    const lines = change.value.match(/[^\n]*\n|[^\n]+$/g) ?? [];
    for (const line of lines) {
      if (change.removed) {
        const section = baseTest.get(baseLine++);
        if (section !== undefined) {
          out.push(line);
          sections.add(section);
        }
      } else if (change.added) {
        const section = patchedTest.get(patchedLine++);
        if (section === undefined) out.push(line);
        else sections.add(section);
      } else {
        out.push(line);
        baseLine++;
        patchedLine++;
      }
    }
  }
  const joined = out.join('');
  const content = rule.mend && joined !== patched ? rule.mend(joined) : joined;
  // an edit that moves test lines between sections (a new header inside a test table) is not separable line by
  // line: then the whole file stays at base
  if (testPart(rule, content) !== testPart(rule, before)) return { content: before, sections: [...sections, 'the whole file (test lines moved)'] };
  return { content, sections: [...sections] };
}

/** A file's test lines in order, with their sections: equal for two files whose test configuration is the same. */
function testPart(rule: ManifestRule, content: string): string {
  const lines = linesOf(content);
  // a JSON line's trailing comma depends on what follows it, not on the setting
  return [...rule.testLines(content)].map(([index, section]) => `${section}\t${lines[index]?.replace(/,?\s*$/, '')}`).join('\n');
}
