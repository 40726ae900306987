/**
 * A scripted "model" for the whole `locfix run` pipeline: it recognises which stage a request belongs to
 * (BLAgent T0/T1/Phase 1/EAR, Agentless files/irrelevant folders, related elements, edit locations,
 * repair, regression-test exclusion, reproduction scripts) and which instance it is about, and answers so that each instance
 * ends in the failure category the test chose for it in advance:
 *
 *   resolved          gold file first, gold function, gold lines, the gold SEARCH/REPLACE edit
 *   file              the gold file ranked below the top 3; the edit goes into a wrong file
 *   function          gold file, but a different function of it; the edit goes there
 *   patch-generation  gold file, function and lines; a no-op edit right at the gold line (unresolved)
 *   empty-patch       correct localization, repair answers that contain no edit at all
 *
 * The plan can change between runs (`setPlan`), so repeated runs have different solve frequencies. The
 * answers depend only on the request, never on earlier requests, so a killed and resumed run gets the same
 * answers as an uninterrupted one.
 */
import { parsePatch } from 'diff';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { goldEdits, type GoldEdit } from '../support/gold-edits.ts';
import { blagentPolicy, candidatesOf, defaultT0, defaultT1, earFilesOf, phaseOf } from '../blagent/scripted-policy.ts';

export type PlannedCategory = 'resolved' | 'file' | 'function' | 'patch-generation' | 'empty-patch';

export interface InstanceScript {
  instance: SweInstance;
  goldFile: string;
  /** qualified name of the gold function, as in the related-elements answer ("f" or "Class.method") */
  goldFunction: string;
  /** another function of the gold file */
  otherFunction: string;
  /** existing files that are not the gold file (the wrong answer at file level) */
  wrongFiles: [string, string, string];
  /**
   * The command the reproduction script runs after applying the test patch; a first element `python` is the
   * interpreter running the script. Default: pytest on the FAIL_TO_PASS tests.
   */
  reproduceArgv?: string[];
  /**
   * Every gold location, for gold patches with more than one place to edit (an import and two methods):
   * per file the `function:` / `line:` entries a perfect localizer names. Default: the gold function alone.
   */
  goldLocations?: Array<{ path: string; entries: string[] }>;
  /** the patch-generation plan's no-op edit near the gold line (default: `pass` before its first removed line) */
  noOpEdit?: Edit;
  /**
   * A function of the first wrong file, named by the file-level failure's later answers when the shown code
   * is not Python (whose first `def` the policy finds in the prompt itself).
   */
  wrongFunction?: { path: string; name: string };
}

export type PipelineStageName = 'files' | 'irrelevant' | 'related' | 'lines' | 'repair' | 'regression' | 'reproduction' | `blagent-${string}` | 'unknown';

/** Which pipeline stage asked. */
export function stageOfRequest(r: Pick<ScriptedChatRequest, 'text' | 'lastUser' | 'system' | 'messages'>): PipelineStageName {
  const blagent = phaseOf(r as ScriptedChatRequest);
  if (blagent !== 'unknown') return `blagent-${blagent}`;
  if (r.lastUser.includes('name the folders')) return 'irrelevant';
  if (r.lastUser.includes('name the files')) return 'files';
  if (r.lastUser.includes('skeletons of the relevant files')) return 'related';
  if (r.lastUser.includes('places that have to be edited')) return 'lines';
  if (r.text.includes('<<<<<<< SEARCH') && r.text.includes('You are fixing a reported problem')) return 'repair';
  if (r.text.includes('These existing tests pass on the repository before the fix')) return 'regression';
  if (r.text.includes('reproduces the following issue')) return 'reproduction';
  return 'unknown';
}

/** A distinctive piece of the issue text: the first 80 characters of its first non-blank line. */
export function issueKey(instance: SweInstance): string {
  const first = instance.problem_statement.split('\n').find((l) => l.trim()) ?? '';
  return first.trim().slice(0, 80);
}

/** a SEARCH/REPLACE edit as the model writes it */
export type Edit = Pick<GoldEdit, 'path' | 'search' | 'replace'>;

export const block = (e: Edit) => ['```python', `### ${e.path}`, '<<<<<<< SEARCH', ...e.search, '=======', ...e.replace, '>>>>>>> REPLACE', '```'].join('\n');

/** A no-op `pass` inserted just before the gold patch's first removed line: the right place, a useless edit. */
export function noOpAtGoldLine(instance: SweInstance): Edit {
  for (const file of parsePatch(instance.patch)) {
    for (const h of file.hunks) {
      const removed = h.lines.find((l) => l[0] === '-' && l.slice(1).trim() && !l.slice(1).trim().startsWith('#'));
      if (!removed) continue;
      const text = removed.slice(1);
      const indent = /^\s*/.exec(text)![0];
      return { path: file.oldFileName!.replace(/^a\//, ''), search: [text], replace: [`${indent}pass`, text] };
    }
  }
  throw new Error(`${instance.instance_id}: the gold patch removes no code line`);
}

/** Sections of the repair prompt's <code> block: `### path` followed by the shown lines. */
export function shownFiles(prompt: string): Array<{ path: string; lines: string[] }> {
  const code = prompt.split('<code>')[1]?.split('</code>')[0] ?? '';
  const out: Array<{ path: string; lines: string[] }> = [];
  for (const line of code.split('\n')) {
    const header = /^### (\S+)$/.exec(line);
    if (header) out.push({ path: header[1]!, lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

/**
 * A no-op `pass` as the first statement of the first one-line `def` shown, else just before the first shown
 * `return`/`pass`/`raise`/import statement (excerpts without a function): an applicable, useless edit.
 */
export function noOpInFirstShownFunction(prompt: string): Edit | undefined {
  const files = shownFiles(prompt);
  for (const file of files) {
    const def = file.lines.find((l) => /^\s*def \w+\(.*\):\s*$/.test(l));
    if (!def) continue;
    const indent = /^\s*/.exec(def)![0];
    return { path: file.path, search: [def], replace: [def, `${indent}    pass`] };
  }
  for (const file of files) {
    const statement = file.lines.find((l) => /^\s*(return\b|pass$|raise\b|import \w|from [\w.]+ import \w)/.test(l));
    if (!statement || !file.path.endsWith('.py')) continue;
    const indent = /^\s*/.exec(statement)![0];
    return { path: file.path, search: [statement], replace: [`${indent}pass`, statement] };
  }
  // other languages (C, Go, Java, JavaScript …): an empty statement before the first indented `…;` statement
  for (const file of files) {
    if (file.path.endsWith('.py')) continue;
    const statement = file.lines.find((l) => /^\s+(return\b|[\w*(][^;{}]*;\s*$)/.test(l) && !/^\s*(\/\/|\/\*|\*)/.test(l));
    if (!statement) continue;
    const indent = /^\s*/.exec(statement)![0];
    return { path: file.path, search: [statement], replace: [`${indent};`, statement] };
  }
  return undefined;
}

/** The first file of a related-elements prompt and its first top-level function. */
export function firstShownFunction(prompt: string): { path: string; name: string } | undefined {
  const m = /### File: (\S+) ###\n```python\n([\s\S]*?)```/.exec(prompt);
  if (!m) return undefined;
  const fn = /^def (\w+)\(/m.exec(m[2]!) ?? /^class (\w+)/m.exec(m[2]!);
  return fn ? { path: m[1]!, name: fn[1]! } : undefined;
}

/** The first file of an edit-locations prompt (`### path` then numbered lines) and its first top-level def. */
export function firstNumberedFunction(prompt: string): { path: string; name: string } | undefined {
  const m = /^### (\S+\.py)\n([\s\S]*?)(?=^### |$(?![\s\S]))/m.exec(prompt);
  if (!m) return undefined;
  const fn = /^\d+\|def (\w+)\(/m.exec(m[2]!) ?? /^\d+\|class (\w+)/m.exec(m[2]!);
  return fn ? { path: m[1]!, name: fn[1]! } : undefined;
}

export const locations = (path: string, fn: string) => `\`\`\`\n${path}\nfunction: ${fn}\n\`\`\``;

/** The gold answer of a localization level: every gold location, or (`functionsOnly`) its functions. */
function goldAnswer(script: InstanceScript, functionsOnly: boolean): string {
  if (!script.goldLocations) return locations(script.goldFile, script.goldFunction);
  const files = script.goldLocations
    .map((f) => ({ path: f.path, entries: f.entries.filter((e) => !functionsOnly || !e.startsWith('line:')) }))
    .filter((f) => f.entries.length > 0);
  return `\`\`\`\n${files.map((f) => [f.path, ...f.entries].join('\n')).join('\n\n')}\n\`\`\``;
}

/**
 * A reproduction script that really tells the bug apart: it applies the instance's hidden test patch to the
 * checkout it runs in (the testbed resets /testbed after every script) and runs the FAIL_TO_PASS tests —
 * failing tests mean "Issue reproduced", passing ones "Issue resolved". What a good model's script does,
 * with the benchmark's own tests as its knowledge of the bug. The test command is pytest unless the script
 * names another (`reproduceArgv`: Django's runtests.py, sympy's test functions called directly).
 */
export function reproducerFor(script: Pick<InstanceScript, 'instance' | 'reproduceArgv'>): string {
  const { instance } = script;
  const argv = script.reproduceArgv ?? ['python', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...instance.FAIL_TO_PASS];
  return [
    'import json, subprocess, sys, tempfile',
    `TEST_PATCH = json.loads(${JSON.stringify(JSON.stringify(instance.test_patch))})`,
    `ARGV = json.loads(${JSON.stringify(JSON.stringify(argv))})`,
    "if ARGV[0] == 'python':",
    '    ARGV[0] = sys.executable',
    "with tempfile.NamedTemporaryFile('w', suffix='.diff', delete=False) as f:",
    '    f.write(TEST_PATCH)',
    "if subprocess.run(['git', 'apply', f.name]).returncode != 0:",
    "    print('Other issues')",
    '    sys.exit(0)',
    'result = subprocess.run(ARGV, capture_output=True, text=True)',
    "print('Issue resolved' if result.returncode == 0 else 'Issue reproduced')",
    '',
  ].join('\n');
}

export class PipelinePolicy {
  private plan = new Map<string, PlannedCategory>();
  /** requests the policy could not place (stage or instance unknown): the test expects none */
  readonly unplaced: string[] = [];

  constructor(private readonly scripts: readonly InstanceScript[]) {}

  setPlan(plan: Record<string, PlannedCategory>): void {
    this.plan = new Map(Object.entries(plan));
  }

  /** The instance a request is about (by its issue text). */
  instanceOf(r: Pick<ScriptedChatRequest, 'text'>): InstanceScript | undefined {
    return this.scripts.find((s) => r.text.includes(issueKey(s.instance)));
  }

  readonly respond = (request: ScriptedChatRequest): ScriptedReply | undefined => {
    const stage = stageOfRequest(request);
    const script = this.instanceOf(request);
    const category = script && this.plan.get(script.instance.instance_id);
    if (stage === 'unknown' || !script || !category) {
      this.unplaced.push(`${stage} / ${script?.instance.instance_id ?? 'unknown instance'}: ${request.lastUser.slice(0, 120)}`);
      return undefined;
    }
    const fileWrong = category === 'file';
    switch (stage) {
      case 'files': {
        // every file the gold patch edits first (a fix in several files needs them all), then wrong ones
        const gold = [...new Set([script.goldFile, ...(script.goldLocations ?? []).map((l) => l.path)])];
        return `\`\`\`\n${(fileWrong ? script.wrongFiles : [...gold, ...script.wrongFiles].slice(0, Math.max(3, gold.length))).join('\n')}\n\`\`\``;
      }
      case 'irrelevant':
        // naming the gold file irrelevant keeps retrieval from bringing it back into the top 3
        return fileWrong ? `\`\`\`\n${script.goldFile}\n\`\`\`` : '```\n```';
      case 'related': {
        if (fileWrong) {
          const shown = firstShownFunction(request.lastUser) ?? script.wrongFunction;
          return shown ? locations(shown.path, shown.name) : 'nothing relevant';
        }
        return category === 'function' ? locations(script.goldFile, script.otherFunction) : goldAnswer(script, true);
      }
      case 'lines': {
        if (fileWrong) {
          const shown = firstNumberedFunction(request.lastUser) ?? script.wrongFunction;
          return shown ? locations(shown.path, shown.name) : 'nothing relevant';
        }
        return category === 'function' ? locations(script.goldFile, script.otherFunction) : goldAnswer(script, false);
      }
      case 'repair': {
        if (category === 'empty-patch') return 'The report is unclear to me, so I will not propose an edit.';
        if (category === 'resolved') return 'The fix:\n\n' + goldEdits(script.instance).map(block).join('\n\n');
        if (category === 'patch-generation') return block(script.noOpEdit ?? noOpAtGoldLine(script.instance));
        const edit = noOpInFirstShownFunction(request.lastUser);
        return edit ? block(edit) : 'no function shown';
      }
      case 'regression':
        return '```\n```';
      case 'reproduction':
        return '```python\n' + reproducerFor(script) + '```';
      default: {
        // BLAgent: scores and the EAR order put the gold file first, or (file-level failure) last
        const gold = script.goldFile;
        // a good structural query names the module and the function, so retrieval puts the gold file in the pool
        const goldQuery = `${gold.replace(/\.py$/, '').replace(/\//g, ' ')} ${script.goldFunction.replace('.', ' ')}`;
        return blagentPolicy({
          t0: (issue) => (fileWrong ? defaultT0(issue) : `${goldQuery} ${defaultT0(issue)}`),
          t1: (issue) => (fileWrong ? defaultT1(issue) : `${goldQuery} ${defaultT1(issue)}`),
          scores: (candidates, inspected) => {
            const scored = [...new Set([...(fileWrong ? [] : candidates.filter((c) => c === gold)), ...inspected])];
            const scores = Object.fromEntries(scored.map((p, i) => [p, p === gold ? (fileWrong ? 0 : 10) : Math.max(1, 8 - i)]));
            return `Thought: I have seen enough.\nFinal Answer:\n\`\`\`json\n${JSON.stringify(scores, null, 2)}\n\`\`\``;
          },
          ear: (files) => {
            const order = fileWrong ? files.filter((f) => f !== gold) : [gold, ...files.filter((f) => f !== gold)];
            return `\`\`\`json\n${JSON.stringify(order)}\n\`\`\``;
          },
        })(request);
      }
    }
  };
}

export { candidatesOf, earFilesOf };
