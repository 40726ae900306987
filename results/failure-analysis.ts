/**
 * Per-stage failure analysis (BLAgent paper §4, RQ2.1/RQ2.2, Figure 18).
 *
 * Each instance lands in exactly one category, judged against the gold patch in pipeline order:
 *   resolved → not-evaluated → evaluation-error → budget-exhausted → not-reached → empty-patch → file →
 *   function → line → patch-generation.
 * (budget-exhausted: a spend cap stopped the instance before it had a patch; see src/llm/spend.ts.)
 * Two categories are work that did not happen, never an outcome: **not-evaluated** (a patch exists but was never
 * graded: no Docker, --stop-after, the run stopped) and **not-reached** (no patch because a stage never ran for
 * the instance, or its run was misconfigured). They are kept out of every rate's denominator and counted apart.
 * The localization flags are recorded for every instance (also for resolved and empty ones), so the
 * categories can be re-cut later without rerunning anything.
 *
 * - file level: a gold file is among the files handed to repair (top 3 by default);
 * - function level: a gold function/method is among the selected elements of that file (a selected class
 *   covers its methods; edits outside any function are covered when their file was selected at all);
 * - line level: the paper's approximation, see `lineLevelMatch`.
 */
import { modifiedExistingFiles, parsePatch, type FilePatch, type PatchLine } from '../src/patch.ts';
import { MODULE_LEVEL, type CodeElement } from '../src/artifacts/localization.ts';
import type { Definition } from '../src/parsing/types.ts';
import { sequenceRatio } from './sequence-similarity.ts';
import { innermostDefinition } from '../localizer/oracle/gold-locations.ts';

export type FailureCategory =
  | 'resolved'
  | 'not-evaluated'
  | 'evaluation-error'
  | 'budget-exhausted'
  | 'not-reached'
  | 'empty-patch'
  | 'file'
  | 'function'
  | 'line'
  | 'patch-generation';

/** Categories of work that did not happen: not outcomes, so outside every rate's denominator. */
export const NOT_JUDGED: ReadonlySet<FailureCategory> = new Set(['not-evaluated', 'not-reached']);

export const FAILURE_CATEGORIES: readonly FailureCategory[] = [
  'resolved',
  'not-evaluated',
  'evaluation-error',
  'not-reached',
  'budget-exhausted',
  'empty-patch',
  'file',
  'function',
  'line',
  'patch-generation',
];

export interface InstanceEvidence {
  instanceId: string;
  repo: string;
  goldPatch: string;
  /** files handed to the repair stage, in rank order */
  handedFiles: string[];
  /** elements chosen by function-level localization; undefined when that stage produced nothing */
  selectedElements?: CodeElement[];
  /** false when the run has no function-level stage at all (an evaluation of predictions): not judged there */
  functionLevelRecorded?: boolean;
  /** elements the gold patch edits (see `goldElements`) */
  goldElements: CodeElement[];
  /** the selected (final) patch; empty string when none */
  modelPatch: string;
  /** why the patch is empty, from the repair/selection stage */
  emptyReason?: string;
  resolved: boolean;
  /** resolved, and the patch talks past the test runner (validation/runner-audit.ts): a resolve kept apart */
  flagged?: boolean;
  /** the patch did not apply or the harness failed */
  evaluationError?: string;
  /** that failure's cause (failure-cause.ts), with the harness tier: "evaluation-ambiguous (tier ambiguous)" */
  evaluationCause?: string;
  /** harness 5.0's advisory infrastructure label of the evaluation logs (validation/infra-failure.ts) */
  infraFailure?: { reason: string; tier: string };
  /** the dataset's own gold patch does not resolve the instance (src/harness/known-gold-failures.json) */
  knownGoldFailure?: string;
  /** the stage whose spend cap stopped the instance, and what it had spent */
  budgetExhausted?: string;
  /** the patch was never graded, and why (evaluation left out of the run, or not reached yet) */
  notEvaluated?: string;
  /** the class and cause of a stage failure that stopped the instance outside the method (failure-cause.ts) */
  notReachedCause?: string;
  /** there is no patch because a stage never ran for the instance: the stage and why */
  notReached?: string;
  /** the work not done (not evaluated, not reached) was left out by the run's plan (--stop-after, no Docker): not owed */
  leftOut?: boolean;
  /** the gold files, when the gold patch itself is not at hand (an imported or stage-only folder) */
  goldFiles?: readonly string[];
  /** the pre-patch text of the gold files, when the repository was readable (docstring state at hunk starts) */
  baseSource?: BaseSource;
}

export interface LineMatch {
  correct: boolean;
  /** how it was decided */
  rule: 'within-5-lines' | 'similar-within-10-lines' | 'different-file' | 'too-far' | 'no-code-line' | 'unreadable-model-patch';
  gold?: { path: string; line: number; text: string };
  model?: { path: string; line: number; text: string };
  distance?: number;
  similarity?: number;
}

export interface InstanceAnalysis {
  instanceId: string;
  repo: string;
  category: FailureCategory;
  fileCorrect: boolean;
  functionCorrect: boolean;
  /** undefined when there is no model patch to compare */
  line?: LineMatch;
  emptyReason?: string;
  evaluationError?: string;
  evaluationCause?: string;
  /** the evaluation logs show an infrastructure fault (harness 5.0's tiers: environment, ambiguous); advisory,
   * the category stands */
  infraFailure?: { reason: string; tier: string };
  /** unresolved, and the dataset's own gold patch does not resolve it either: the dataset's failure */
  knownGoldFailure?: string;
  /** resolved, with lines of the patch that talk past the test runner (report.json runner_audit): read it with them */
  flagged?: true;
  budgetExhausted?: string;
  /** "infrastructure: model-unreachable", when a stage failure outside the method stopped the instance */
  notReachedCause?: string;
  /** why the instance is not-evaluated / not-reached */
  notJudged?: string;
  /** not judged because the run's plan left the work out (--stop-after, no Docker), not because it failed */
  leftOut?: true;
  /** the cascade tier whose answer went downstream (cascade runs only) */
  cascadeTier?: string;
  /** what the instance's stages spent on models (the run analysis fills it in) */
  spent?: { cost: number; promptTokens: number; completionTokens: number };
  /** the elements the gold patch edits, as function level was judged against them */
  goldElements?: CodeElement[];
  /** the counterfactual ladder's cause (results/ladder.ts), when a ladder ran this run as its as-run rung */
  ladder?: { cause: string; decidedAt?: string; onOneSample?: true; detail?: string };
}

// ---------------------------------------------------------------------------------------------------------
// Gold elements

/**
 * The elements a patch edits in the pre-patch files: for every removed line and every insertion point, the
 * innermost enclosing function/method, else class, else the module. `definitionsOf(path)` gives the
 * definitions of the pre-patch file (tree-sitter, src/parsing/definitions.ts).
 */
export function goldElements(patch: string, definitionsOf: (path: string) => readonly Definition[]): CodeElement[] {
  const out = new Map<string, CodeElement>();
  for (const file of parsePatch(patch)) {
    if (file.isNew || !file.oldPath) continue;
    const defs = definitionsOf(file.oldPath);
    for (const line of changedLines(file)) {
      const element = innermostElement(defs, line.oldLine, line.kind === 'add');
      out.set(`${file.oldPath}::${element}`, { path: file.oldPath, name: element });
    }
  }
  return [...out.values()];
}

function innermostElement(defs: readonly Definition[], line: number, insertion: boolean): string {
  return innermostDefinition(defs, line, insertion)?.qualifiedName ?? MODULE_LEVEL;
}

function changedLines(file: FilePatch): PatchLine[] {
  return file.hunks.flatMap((h) => h.lines.filter((l) => l.kind !== 'context'));
}

// ---------------------------------------------------------------------------------------------------------
// Function level

function covers(selected: CodeElement, gold: CodeElement): boolean {
  if (selected.path !== gold.path) return false;
  if (selected.name === gold.name) return true;
  // a selected class (or outer function) covers what is nested in it
  return gold.name.startsWith(selected.name + '.');
}

export function functionLevelCorrect(selected: readonly CodeElement[] | undefined, gold: readonly CodeElement[], handedFiles: readonly string[]): boolean {
  if (!selected || selected.length === 0) return false;
  return gold.some((g) =>
    g.name === MODULE_LEVEL ? handedFiles.includes(g.path) && selected.some((s) => s.path === g.path) : selected.some((s) => covers(s, g)),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Line level (paper §4 RQ2.2, "Line-level Approximation")

interface CodeLine {
  path: string;
  line: number;
  text: string;
}

/** The pre-patch text of a file, when the caller has it (undefined: unknown). */
export type BaseSource = (path: string) => string | undefined;

/** Whether line `line` (1-based) of `source` starts inside a triple-quoted string, by the same quote rule. */
function openStringBefore(source: string, line: number): string | undefined {
  let open: string | undefined;
  const lines = source.split('\n', line - 1);
  for (const l of lines) open = updateTripleQuoteState(l.trim(), open);
  return open;
}

/**
 * The first added or removed line of a patch that is code: not blank, not a comment, not part of a
 * docstring. Docstrings are recognised inside the hunk: lines from a line opening a triple-quoted string to
 * the line closing it (context lines included, so a change in the middle of a docstring is skipped too).
 * With the pre-patch file (`baseSource`), a hunk starts in the string state of the lines before it: a hunk
 * whose first context line *closes* a docstring is otherwise read as opening one, and all its code skipped.
 */
export function firstChangedCodeLine(patch: string, baseSource?: BaseSource): CodeLine | undefined {
  for (const file of parsePatch(patch)) {
    const path = file.oldPath ?? file.path;
    const base = file.oldPath ? baseSource?.(file.oldPath) : undefined;
    for (const hunk of file.hunks) {
      // The old and new sides are separate texts: a removed docstring opener and its replacement must not
      // close each other, so each side keeps its own string state (context lines advance both).
      const before = base === undefined ? undefined : openStringBefore(base, hunk.oldStart);
      const open: Record<'old' | 'new', string | undefined> = { old: before, new: before };
      for (const l of hunk.lines) {
        const stripped = l.text.trim();
        const sides: Array<'old' | 'new'> = l.kind === 'context' ? ['old', 'new'] : l.kind === 'remove' ? ['old'] : ['new'];
        const side = sides[0];
        const wasInString = open[side] !== undefined;
        for (const s of sides) open[s] = updateTripleQuoteState(stripped, open[s]);
        if (l.kind === 'context') continue;
        const isDocLine = wasInString || open[side] !== undefined || /^[rRbBuU]?("""|''')/.test(stripped);
        if (!stripped || stripped.startsWith('#') || isDocLine) continue;
        return { path, line: l.oldLine, text: stripped };
      }
    }
  }
  return undefined;
}

/** Tracks whether we are inside a triple-quoted string after this line. */
function updateTripleQuoteState(line: string, open: string | undefined): string | undefined {
  let state = open;
  const re = /"""|'''/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) {
    if (state === undefined) state = m[0];
    else if (state === m[0]) state = undefined;
  }
  return state;
}

export const LINE_WINDOW = 5;
export const SIMILARITY_WINDOW = 10;
export const SIMILARITY_THRESHOLD = 0.6;

/**
 * The paper's line-level approximation: compare the first changed code line of the model patch with that of
 * the gold patch. Correct when both are in the same file and at most 5 lines apart; otherwise correct when
 * in the same file, at most 10 lines apart, and textually similar (difflib ratio ≥ 0.6, see
 * results/sequence-similarity.ts). Positions are old-file line numbers, so insertions and edits compare on
 * the same scale.
 */
export function lineLevelMatch(modelPatch: string, goldPatch: string, baseSource?: BaseSource): LineMatch {
  const gold = firstChangedCodeLine(goldPatch, baseSource);
  let model: CodeLine | undefined;
  try {
    model = firstChangedCodeLine(modelPatch, baseSource);
  } catch {
    // a patch from outside locfix (imported predictions) may be malformed; it cannot match any line
    return { correct: false, rule: 'unreadable-model-patch', gold };
  }
  if (!gold || !model) return { correct: false, rule: 'no-code-line', gold, model };
  if (gold.path !== model.path) return { correct: false, rule: 'different-file', gold, model };
  const distance = Math.abs(gold.line - model.line);
  if (distance <= LINE_WINDOW) return { correct: true, rule: 'within-5-lines', gold, model, distance };
  const similarity = sequenceRatio(model.text, gold.text);
  if (distance <= SIMILARITY_WINDOW && similarity >= SIMILARITY_THRESHOLD) {
    return { correct: true, rule: 'similar-within-10-lines', gold, model, distance, similarity };
  }
  return { correct: false, rule: 'too-far', gold, model, distance, similarity };
}

// ---------------------------------------------------------------------------------------------------------
// Categorisation

export function analyzeInstance(e: InstanceEvidence): InstanceAnalysis {
  const goldFiles = new Set(e.goldPatch ? modifiedExistingFiles(e.goldPatch) : (e.goldFiles ?? []));
  const fileCorrect = e.handedFiles.some((f) => goldFiles.has(f));
  const functionCorrect = fileCorrect && (e.functionLevelRecorded === false || functionLevelCorrect(e.selectedElements, e.goldElements, e.handedFiles));
  const hasPatch = e.modelPatch.trim().length > 0;
  const line = hasPatch && e.goldPatch ? lineLevelMatch(e.modelPatch, e.goldPatch, e.baseSource) : undefined;
  let category: FailureCategory;
  if (e.resolved) category = 'resolved';
  else if (hasPatch && e.notEvaluated) category = 'not-evaluated';
  else if (e.evaluationError) category = 'evaluation-error';
  else if (e.budgetExhausted && !hasPatch) category = 'budget-exhausted';
  else if (!hasPatch && e.notReached) category = 'not-reached';
  else if (!hasPatch) category = 'empty-patch';
  else if (!fileCorrect) category = 'file';
  else if (!functionCorrect) category = 'function';
  else if (!line?.correct) category = 'line';
  else category = 'patch-generation';
  return {
    ...(category === 'resolved' && e.flagged ? { flagged: true as const } : {}),
    instanceId: e.instanceId,
    repo: e.repo,
    category,
    fileCorrect,
    functionCorrect,
    line,
    ...(e.emptyReason && !hasPatch ? { emptyReason: e.emptyReason } : {}),
    ...(e.evaluationError ? { evaluationError: e.evaluationError, ...(e.evaluationCause ? { evaluationCause: e.evaluationCause } : {}) } : {}),
    ...(e.infraFailure && !e.resolved ? { infraFailure: e.infraFailure } : {}),
    ...(e.knownGoldFailure && !e.resolved ? { knownGoldFailure: e.knownGoldFailure } : {}),
    ...(category === 'budget-exhausted' ? { budgetExhausted: e.budgetExhausted } : {}),
    ...(category === 'not-evaluated' ? { notJudged: e.notEvaluated } : category === 'not-reached' ? { notJudged: e.notReached } : {}),
    ...(category === 'not-reached' && e.notReachedCause ? { notReachedCause: e.notReachedCause } : {}),
    ...((category === 'not-reached' || category === 'not-evaluated') && e.leftOut ? { leftOut: true as const } : {}),
  };
}
