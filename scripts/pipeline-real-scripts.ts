/**
 * What the scripted pipeline policy (test/e2e/pipeline-policy.ts) needs to know of a *real* SWE-bench row,
 * derived from the row and its repository at `base_commit` instead of written by hand:
 *
 *   goldFile        the first file the gold patch modifies in a language locfix parses (Python, C, Go, …)
 *   goldFunction    the innermost definition enclosing its first changed line, as the failure analysis
 *                   computes gold elements (results/failure-analysis.ts `goldElements`)
 *   otherFunction   a function or method of the gold file that neither contains nor is contained in a gold
 *                   element (the wrong answer at function level)
 *   wrongFiles      three files of the gold file's language next to it (same folder, else its parent), no tests
 *   goldLocations   every place the gold patch edits: `function:` entries for the definitions it changes,
 *                   `line:` entries for module-level changes (imports), so a perfect localization shows
 *                   repair every hunk (repair refuses edits outside the shown lines)
 *   noOpEdit        a no-op statement (`pass`, Ruby's `nil`, else an empty statement `;`) inserted at the
 *                   code line nearest the gold patch's first changed code line (as the line-level analysis
 *                   finds it) where the file still parses
 *   reproduceArgv   how the reproduction script runs the FAIL_TO_PASS tests in this repository: Django's
 *                   runtests.py with test labels (its modules when an id is a docstring), sympy's test functions
 *                   called directly, else pytest. Other languages have none: the pipeline records reproduction
 *                   as not available for them (validation/stages.ts)
 *
 * A row that cannot be scripted (gold patch only adds files, changes only module-level code, too few
 * neighbouring files, FAIL_TO_PASS ids that name no runnable test) gets a reason instead.
 */
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { goldFilesFromPatch } from '../src/dataset/gold.ts';
import { MODULE_LEVEL } from '../src/artifacts/localization.ts';
import { extractDefinitions } from '../src/parsing/definitions.ts';
import { testDirectives } from '../src/harness/eval-script.ts';
import type { RepoStore } from '../src/repo/store.ts';
import { firstChangedCodeLine, goldElements } from '../results/failure-analysis.ts';
import { parsePatch } from '../src/patch.ts';
import type { Definition } from '../src/parsing/types.ts';
import { PythonAnalyzer } from '../repair/analyzer.ts';
import { checkSyntax } from '../repair/syntax.ts';
import { languageForPath } from '../src/languages/index.ts';
import type { Edit, InstanceScript, PlannedCategory } from '../test/e2e/pipeline-policy.ts';

export type RealScript = InstanceScript & {
  /** false when the planned no-op edit at the gold line would not parse (the row cannot fail at patch generation) */
  noOpParses: boolean;
  /**
   * false when the gold patch also edits module-level code (a macro, a table, an import): the analysis counts
   * any selection in that file as right at function level, so the row cannot fail there
   */
  functionCanFail: boolean;
  /**
   * false when the gold patch regenerates a parser (it edits a Bison or Flex grammar and the generated C):
   * hundreds of table lines no localization names, so scripted gold edits cannot reproduce it
   */
  fixIsLocal: boolean;
  /**
   * false when none of the three wrong files defines a function (gin's any.go holds one type alias): a wrong file
   * answer then finds nothing to edit, and the row ends with an empty patch instead of failing at file level
   */
  fileCanFail: boolean;
};

const GRAMMAR = /\.(y|yy|l|ll)$/;

const isTestPath = (p: string) =>
  /(^|\/)(tests?|testing|spec|__tests__)(\/|$)|(^|\/)test_[^/]*\.py$|_tests?\.py$|conftest\.py$|_test\.go$|\.(test|spec)\.[jt]sx?$|Tests?\.java$/.test(p);

/** A statement that does nothing, in the language of `file`. */
const noOpStatement = (file: string) => ({ python: 'pass', ruby: 'nil' })[languageForPath(file)?.id ?? ''] ?? ';';

/** Django test labels (`mod.Class.test_x`) of dataset ids `test_x (mod.Class)` (py3.9) or `test_x (mod.Class.test_x)` (py3.11). */
export function djangoLabels(ids: readonly string[]): string[] {
  const out: string[] = [];
  for (const id of ids) {
    const m = /^(\w+) \(([\w.]+)\)$/.exec(id);
    if (!m) continue;
    const [, name, inner] = m as unknown as [string, string, string];
    out.push(inner.endsWith(`.${name}`) ? inner : `${inner}.${name}`);
  }
  return [...new Set(out)];
}

/** Python that imports the test modules of a sympy test patch and calls each FAIL_TO_PASS function (an exception fails it). */
export function sympyCaller(testFiles: readonly string[], tests: readonly string[]): string {
  const modules = testFiles.filter((f) => f.endsWith('.py')).map((f) => f.slice(0, -3).replaceAll('/', '.'));
  return [
    'import importlib, sys',
    `mods = [importlib.import_module(m) for m in ${JSON.stringify(modules)}]`,
    `for name in ${JSON.stringify(tests)}:`,
    '    fns = [getattr(m, name) for m in mods if hasattr(m, name)]',
    '    if not fns:',
    "        sys.exit('no test function ' + name)",
    '    fns[0]()',
  ].join('\n');
}

function reproduceArgv(instance: SweInstance, goldFile: string): string[] | string | undefined {
  if (languageForPath(goldFile)?.id !== 'python') return undefined;
  if (instance.repo === 'django/django') {
    let labels = djangoLabels(instance.FAIL_TO_PASS);
    // a test named by its docstring (`A sentence.`) has no label: run the test patch's modules whole
    if (labels.length < instance.FAIL_TO_PASS.length) labels = testDirectives(instance.test_patch, 'django_modules');
    if (labels.length === 0) return 'the test patch names no Django test module';
    return ['python', 'tests/runtests.py', '--settings=test_sqlite', '--parallel', '1', ...labels];
  }
  if (instance.repo === 'sympy/sympy') {
    if (!instance.FAIL_TO_PASS.every((t) => /^\w+$/.test(t))) return 'a FAIL_TO_PASS id is not a plain test function name';
    return ['python', '-c', sympyCaller(testDirectives(instance.test_patch, 'paths'), instance.FAIL_TO_PASS)];
  }
  return undefined;
}

export async function realInstanceScript(instance: SweInstance, store: RepoStore, analyzer: PythonAnalyzer): Promise<RealScript | { reason: string }> {
  const gold = goldFilesFromPatch(instance.patch).find((g) => g.status === 'modified' && languageForPath(g.path) && !isTestPath(g.path));
  if (!gold) return { reason: 'the gold patch modifies no source file of a language locfix parses' };
  const extension = path.posix.extname(gold.path);
  const snapshot = await store.snapshot(instance.repo, instance.base_commit);
  const source = await snapshot.readFile(gold.path);
  if (source === undefined) return { reason: `${gold.path} is missing at base_commit` };
  const defs = extractDefinitions(gold.path, source);
  const elements = goldElements(instance.patch, (p) => (p === gold.path ? defs : [])).filter((e) => e.path === gold.path);
  const goldFunction = elements.find((e) => e.name !== MODULE_LEVEL)?.name;
  if (!goldFunction) return { reason: 'the gold patch changes only module-level code of its first file' };
  const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
  const other = defs.find((d) => d.kind !== 'class' && !elements.some((e) => related(e.name, d.qualifiedName)));
  if (!other) return { reason: `${gold.path} has no function besides the gold ones` };

  const goldPaths = new Set(goldFilesFromPatch(instance.patch).map((g) => g.path));
  const files = (await snapshot.listFiles()).map((f) => f.path).filter((p) => p.endsWith(extension) && !goldPaths.has(p) && !isTestPath(p));
  const near = (dir: string) => files.filter((p) => path.posix.dirname(p) === dir && !p.endsWith('__init__.py')).sort();
  const dir = path.posix.dirname(gold.path);
  const wrong = [...near(dir), ...near(path.posix.dirname(dir))].slice(0, 3);
  if (wrong.length < 3) return { reason: `fewer than 3 ${extension} files next to ${gold.path}` };
  // a fix in more files than the file stage hands on (topFiles, 3) cannot be made from a perfect localization
  const editedSources = goldFilesFromPatch(instance.patch).filter((g) => g.status === 'modified' && languageForPath(g.path));
  if (editedSources.length > 3) return { reason: `the gold patch edits ${editedSources.length} source files; the file stage hands on 3` };
  // the wrong answer below the file level: the first function of a wrong file that has one
  let wrongFunction: { path: string; name: string } | undefined;
  for (const file of wrong) {
    const text = await snapshot.readFile(file);
    const def = text === undefined ? undefined : extractDefinitions(file, text).find((d) => d.kind !== 'class');
    if (def) {
      wrongFunction = { path: file, name: def.qualifiedName };
      break;
    }
  }

  const argv = reproduceArgv(instance, gold.path);
  if (typeof argv === 'string') return { reason: argv };

  const sources = new Map<string, string>([[gold.path, source]]);
  for (const g of goldFilesFromPatch(instance.patch)) {
    if (g.status !== 'modified' || sources.has(g.path)) continue;
    const text = await snapshot.readFile(g.path);
    if (text !== undefined) sources.set(g.path, text);
  }
  const goldLocations = locationsOf(instance.patch, sources);
  const noOpEdit = noOpNearGoldLine(instance.patch, gold.path, source, analyzer);
  return {
    instance,
    goldFile: gold.path,
    goldFunction,
    otherFunction: other.qualifiedName,
    wrongFiles: wrong as [string, string, string],
    goldLocations,
    ...(argv ? { reproduceArgv: argv } : {}),
    ...(noOpEdit ? { noOpEdit } : {}),
    ...(wrongFunction ? { wrongFunction } : {}),
    noOpParses: noOpEdit !== undefined,
    fixIsLocal: !goldFilesFromPatch(instance.patch).some((g) => GRAMMAR.test(g.path)),
    fileCanFail: wrongFunction !== undefined,
    functionCanFail: !goldElements(instance.patch, (p) => definitionsIn(p, sources.get(p) ?? '')).some((e) => e.name === MODULE_LEVEL),
  };
}

const definitionsIn = (file: string, text: string): Definition[] => (languageForPath(file) ? extractDefinitions(file, text) : []);

/** Per gold file: `function: <innermost definition>` of each changed line inside one, `line: N` for the others. */
function locationsOf(patch: string, sources: ReadonlyMap<string, string>): NonNullable<InstanceScript['goldLocations']> {
  const out: NonNullable<InstanceScript['goldLocations']> = [];
  for (const file of parsePatch(patch)) {
    const text = file.oldPath && sources.get(file.oldPath);
    if (!file.oldPath || !text) continue;
    const defs = definitionsIn(file.oldPath, text);
    const entries = new Set<string>();
    for (const element of goldElements(patch, (p) => (p === file.oldPath ? defs : []))) {
      if (element.path === file.oldPath && element.name !== MODULE_LEVEL) entries.add(`function: ${element.name}`);
    }
    for (const hunk of file.hunks) {
      for (const l of hunk.lines) {
        if (l.kind === 'context' || !l.text.trim()) continue;
        const inside = defs.some((d) => l.oldLine >= d.startLine && l.oldLine <= (l.kind === 'add' ? d.endLine + 1 : d.endLine));
        if (!inside) entries.add(`line: ${l.oldLine}`);
      }
    }
    if (entries.size) out.push({ path: file.oldPath, entries: [...entries] });
  }
  return out;
}

/** The first position, nearest first within 4 lines of the gold patch's first changed code line, where a no-op parses. */
function noOpNearGoldLine(patch: string, goldPath: string, source: string, analyzer: PythonAnalyzer): Edit | undefined {
  const first = firstChangedCodeLine(patch, (p) => (p === goldPath ? source : undefined));
  if (!first || first.path !== goldPath) return undefined;
  const lines = source.split('\n');
  const offsets = [0, 1, -1, 2, -2, 3, -3, 4, -4];
  for (const d of offsets) {
    const at = first.line + d; // 1-based: `pass` goes before line `at`
    const line = lines[at - 1];
    const previous = lines[at - 2];
    if (line === undefined || previous === undefined || !line.trim() || /^(#|\/\/|\/\*|\*)/.test(line.trim())) continue;
    const indent = /^\s*/.exec(line)![0];
    const noOp = `${indent}${noOpStatement(goldPath)}`;
    const edited = [...lines.slice(0, at - 1), noOp, ...lines.slice(at - 1)].join('\n');
    if (!checkSyntax(goldPath, source, edited, analyzer).ok) continue;
    // two lines of SEARCH: a single line of code is often not unique in its file
    return { path: goldPath, search: [previous, line], replace: [previous, noOp, line] };
  }
  return undefined;
}

const CYCLE: PlannedCategory[] = ['resolved', 'file', 'function', 'resolved', 'patch-generation', 'empty-patch'];

/** What a row must allow for a category to be planned for it (the others fit every row). */
const FITS: Partial<Record<PlannedCategory, (s: DealtRow) => boolean>> = {
  resolved: (s) => s.fixIsLocal !== false,
  'patch-generation': (s) => s.noOpParses,
  file: (s) => s.fileCanFail !== false,
  function: (s) => s.functionCanFail !== false,
};
type DealtRow = Pick<RealScript, 'instance' | 'noOpParses'> & { functionCanFail?: boolean; fixIsLocal?: boolean; fileCanFail?: boolean };

/** The cycle's next category for each row; a category the row cannot show waits for the next row that can. */
export function dealPlans(scripts: ReadonlyArray<DealtRow>): Record<string, PlannedCategory> {
  const plan: Record<string, PlannedCategory> = {};
  const owed: PlannedCategory[] = [];
  let next = 0;
  for (const s of scripts) {
    const id = s.instance.instance_id;
    const debt = owed.findIndex((c) => FITS[c]!(s));
    if (debt >= 0) {
      plan[id] = owed.splice(debt, 1)[0]!;
      continue;
    }
    let category = CYCLE[next++ % CYCLE.length]!;
    while (FITS[category] && !FITS[category]!(s)) {
      owed.push(category);
      category = CYCLE[next++ % CYCLE.length]!;
    }
    plan[id] = category;
  }
  return plan;
}

export { PythonAnalyzer };
