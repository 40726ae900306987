/**
 * Test machinery is not the patch's to change (issue 51). A model patch that edits the files that decide how tests
 * run — a `conftest.py` whose `pytest_runtest_makereport` hook turns failures into passes (SWE-bench issue #631),
 * the repository's own test files, a runner's configuration — wins a verdict without fixing anything, and pytest's
 * own report agrees with it. So before the test patch is applied, every such file of the model patch is kept at
 * the base commit: its diff is left out of the patch (a modified file stays as it was, an added one is not made),
 * and the evaluation records what it left out. Gold patches almost never touch these files (0 of 300 Lite).
 *
 * The rules are by path, per ecosystem (the harness' languages): a file is machinery when its name or a folder on
 * its path is one a runner reads tests or test configuration from. Files that hold test configuration beside other
 * things (setup.cfg, pyproject.toml, package.json, Cargo.toml, pom.xml, …) lose only their test sections' changes
 * (manifest-sections.ts), which needs the file at the base commit: the caller reads it (`mixedManifests` says which).
 */
import { applyPatch, structuredPatch } from 'diff';
import type { TestMachineryPolicy } from '../src/harness/constants.ts';
import { type FilePatch, patchSections } from '../src/patch.ts';
import { keepTestSections, mixedManifestRule } from './manifest-sections.ts';

export interface MachineryEdit {
  path: string;
  /** restored: a modified or deleted file kept at base; removed: an added file not made; kept: applied (policy keep) */
  action: 'restored' | 'removed' | 'kept';
  /** the rule that names it machinery */
  rule: string;
}

/** Folder names runners collect tests from, in any language the harness evaluates. */
const TEST_FOLDERS = new Set(['test', 'tests', 'testing', '__tests__', 'spec', 'specs', 'testdata', 'test-data']);

/** File names (exact) that configure a runner, with the runner they configure. */
const RUNNER_CONFIG: Record<string, string> = {
  'conftest.py': 'pytest conftest',
  'pytest.ini': 'pytest configuration',
  'tox.ini': 'tox/pytest configuration',
  '.rspec': 'RSpec configuration',
  'phpunit.xml': 'PHPUnit configuration',
  'phpunit.xml.dist': 'PHPUnit configuration',
  '.mocharc.js': 'mocha configuration',
  '.mocharc.cjs': 'mocha configuration',
  '.mocharc.json': 'mocha configuration',
  '.mocharc.yml': 'mocha configuration',
  '.mocharc.yaml': 'mocha configuration',
};

/** Name patterns of test files and runner configuration files. */
const NAME_RULES: Array<[RegExp, string]> = [
  [/^test_.*\.py$|^.*_test\.py$/, 'Python test file'],
  [/^(jest|vitest|vite|karma|playwright|cypress|ava|jasmine)\.conf(ig)?\.[cm]?[jt]sx?$/, 'JavaScript runner configuration'],
  [/^.*\.(test|spec)\.[cm]?[jt]sx?$/, 'JavaScript test file'],
  [/^.*_test\.go$/, 'Go test file'],
  [/^.*_spec\.rb$|^.*_test\.rb$/, 'Ruby test file'],
];

/** The rule that makes `path` test machinery, or undefined. */
export function testMachineryRule(path: string): string | undefined {
  const parts = path.split('/');
  const name = parts.at(-1) ?? '';
  if (RUNNER_CONFIG[name]) return RUNNER_CONFIG[name];
  for (const [pattern, rule] of NAME_RULES) if (pattern.test(name)) return rule;
  const folder = parts.slice(0, -1).find((part) => TEST_FOLDERS.has(part));
  if (folder) return `a file under ${folder}/`;
  return undefined;
}

function actionOf(file: FilePatch): 'restored' | 'removed' {
  return file.isNew ? 'removed' : 'restored';
}

/** The files at the base commit that mixed manifests need (undefined: the patch creates it). */
export type ManifestBases = ReadonlyMap<string, string | undefined>;

/** The mixed manifests a patch creates or modifies, whose base text `separateTestMachinery` needs. */
export function mixedManifests(patch: string): string[] {
  try {
    return patchSections(patch)
      .files.map(({ file }) => file)
      .filter((file) => isSeparableManifest(file) && !testMachineryRule(file.path))
      .map((file) => file.path);
  } catch {
    return [];
  }
}

/** A manifest whose test sections can be kept apart: modified or made in place (no rename, delete, or binary). */
function isSeparableManifest(file: FilePatch): boolean {
  return mixedManifestRule(file.path) !== undefined && !file.isDeleted && !file.isBinary && (file.isNew || file.oldPath === file.newPath);
}

/**
 * A mixed manifest's diff with its test sections' changes left out, when it has any: undefined when it has none or
 * cannot be read on the base (the diff is kept as it is, and applying the patch says why it does not apply).
 */
function withoutTestSections(file: FilePatch, text: string, base: string | undefined): { text: string; sections: string[] } | undefined {
  const rule = mixedManifestRule(file.path);
  if (!rule) return undefined;
  const patched = applyPatch(base ?? '', text.endsWith('\n') ? text : `${text}\n`);
  if (patched === false) return undefined;
  const kept = keepTestSections(rule, base, patched);
  if (kept.sections.length === 0) return undefined;
  if (base !== undefined && kept.content === base) return { text: '', sections: kept.sections };
  return { text: fileDiff(text, base, kept.content), sections: kept.sections };
}

/** The file's diff from `base` to `content`, under the original's header lines (less its index line). */
function fileDiff(original: string, base: string | undefined, content: string): string {
  const lines = original.split('\n');
  const firstHunk = lines.findIndex((line) => line.startsWith('@@'));
  const header = lines.slice(0, firstHunk < 0 ? lines.length : firstHunk).filter((line) => !line.startsWith('index '));
  const hunks = structuredPatch('a', 'b', base ?? '', content, '', '', { context: 3 }).hunks.map((hunk) => {
    // an empty side starts at line 0, as git writes it
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    return [`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines].join('\n');
  });
  return [...header, ...hunks].join('\n');
}

/**
 * The model patch with its test machinery left out (policy restore), or as it is (keep, refuse), and the edits
 * that were (or would be) left out. A rename into or out of machinery counts by either path. A mixed manifest whose
 * base text is in `bases` loses only its test sections' changes (or is left out when nothing else changed).
 */
export function separateTestMachinery(
  patch: string,
  policy: TestMachineryPolicy = 'restore',
  bases: ManifestBases = new Map(),
): { patch: string; edits: MachineryEdit[] } {
  let sections: ReturnType<typeof patchSections>;
  try {
    sections = patchSections(patch);
  } catch {
    // a patch that cannot be read is left to patch application, which says why it does not apply
    return { patch, edits: [] };
  }
  const edits: MachineryEdit[] = [];
  const kept: string[] = [];
  for (const { file, text } of sections.files) {
    const rule = testMachineryRule(file.path) ?? (file.oldPath ? testMachineryRule(file.oldPath) : undefined);
    const manifest = !rule && bases.has(file.path) && isSeparableManifest(file) ? withoutTestSections(file, text, bases.get(file.path)) : undefined;
    if (manifest) {
      edits.push({
        path: file.path,
        action: policy === 'restore' ? 'restored' : 'kept',
        rule: `test sections of ${file.path.split('/').at(-1)}: ${manifest.sections.join(', ')}`,
      });
      if (policy !== 'restore') kept.push(text);
      else if (manifest.text !== '') kept.push(manifest.text);
      continue;
    }
    if (!rule) {
      kept.push(text);
      continue;
    }
    edits.push({ path: file.path, action: policy === 'restore' ? actionOf(file) : 'kept', rule });
    if (policy !== 'restore') kept.push(text);
  }
  if (policy !== 'restore' || edits.length === 0) return { patch, edits };
  const body = [sections.preamble, ...kept].filter((part) => part !== '').join('\n');
  return { patch: body === '' || body.endsWith('\n') ? body : `${body}\n`, edits };
}
