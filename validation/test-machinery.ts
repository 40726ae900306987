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
 * things (setup.cfg, pyproject.toml, package.json, Cargo.toml, pom.xml) are not covered here: their diffs are kept.
 */
import type { TestMachineryPolicy } from '../src/harness/constants.ts';
import { type FilePatch, patchSections } from '../src/patch.ts';

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

/**
 * The model patch with its test machinery left out (policy restore), or as it is (keep, refuse), and the edits
 * that were (or would be) left out. A rename into or out of machinery counts by either path.
 */
export function separateTestMachinery(patch: string, policy: TestMachineryPolicy = 'restore'): { patch: string; edits: MachineryEdit[] } {
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
