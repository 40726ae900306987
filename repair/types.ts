/**
 * Artifacts of the repair stage (edit locations → sampled SEARCH/REPLACE edits → diffs → one chosen patch).
 *
 * Every record keeps enough to tell *why* a patch is empty or wrong: the raw model output, what was parsed
 * out of it, which edits failed to apply and why, the syntax verdict, the diff and its normalized voting key.
 * Line numbers are 1-based and inclusive.
 */
import type { Usage } from '../src/llm/types.ts';

export interface LineRange {
  start: number;
  end: number;
}

/** Where one line-level localization sample says to edit one file. */
export interface FileEditLocations {
  /** repository-relative POSIX path */
  path: string;
  ranges: LineRange[];
  /** element names the ranges came from (`function: A.f`, `class: B`, ...), kept for traces */
  elements?: string[];
}

/** One line-level localization sample; each drives its own batch of repair samples. */
export interface EditLocationSet {
  files: FileEditLocations[];
}

/** One file as shown to the model: its full base content and the (merged) line intervals shown. */
export interface ShownFile {
  path: string;
  content: string;
  intervals: LineRange[];
}

/** The code context built from one location set. */
export interface RepairContext {
  /** `### path` sections, intervals separated by `...`, no line numbers */
  text: string;
  /** files with at least one shown interval, in prompt order */
  files: ShownFile[];
}

export interface SearchReplaceEdit {
  /** path as written by the model (normalized: no `a/`, `./`, quotes); undefined when no header was ever seen */
  path: string | undefined;
  search: string[];
  replace: string[];
  /** `search` was the bare `...` convention: insert `replace` before a top-level line of the shown code */
  insertOnly?: boolean;
  /** position of the edit in the model output (0-based, after expanding `...` gaps) */
  index: number;
}

export interface ParsedEdits {
  edits: SearchReplaceEdit[];
  duplicatesDropped: number;
  /** tolerated irregularities, e.g. "edit 2: no REPLACE marker before the end of the output (dropped)" */
  notes: string[];
}

export type ApplyFailureKind =
  /** no `### path` header anywhere before the edit and more than one file shown */
  | 'no-path'
  /** the path names a file that was not shown in the prompt */
  | 'file-not-shown'
  /** SEARCH is empty */
  | 'empty-search'
  /** SEARCH found nowhere in the file */
  | 'no-match'
  /** SEARCH found only outside the shown intervals */
  | 'outside-shown-lines';

export interface ApplyFailure {
  editIndex: number;
  path: string | undefined;
  kind: ApplyFailureKind;
  detail: string;
}

export interface AppliedEdit {
  editIndex: number;
  path: string;
  /** 1-based first line of the matched block in the file as it was when this edit was applied */
  line: number;
  matchedLines: number;
  how: 'exact' | 'indentation' | 'ignoring-blank-lines' | 'insert';
  /** other places inside the shown intervals the SEARCH block also matched (first one is used) */
  otherMatches: number;
}

export interface FileSyntaxResult {
  path: string;
  ok: boolean;
  /** ERROR + MISSING nodes plus indentation problems (empty block, unexpected indent) in the edited file */
  errorNodes: number;
  /** the same count for the base file: a base that tree-sitter cannot parse cleanly is not held against edits */
  baseErrorNodes: number;
  /** 'unchecked' for files of a language without a grammar */
  detail?: string;
}

export type EmptyPatchReason =
  | 'no-locations' // no location set named any line: nothing was shown, the model was not asked
  | 'model-error' // the model call failed or returned no choice
  | 'no-edits-parsed'
  | 'no-edit-matched'
  | 'no-op' // edits applied but left every file unchanged
  | 'syntax-error'
  | 'invalid-diff'; // the produced diff failed `git apply --check` against the base (a locfix bug if seen)

export interface RepairSample {
  /** `s<set>-<k>`; k = 0 is the greedy sample of the set */
  id: string;
  setIndex: number;
  sampleIndex: number;
  temperature: number;
  raw: string;
  /** model/transport error, when this sample has no output */
  error?: string;
  finishReason?: string;
  parsed?: ParsedEdits;
  applied: AppliedEdit[];
  applyFailures: ApplyFailure[];
  syntax: FileSyntaxResult[];
  /** git-style unified diff over every changed file ('' when none) */
  diff: string;
  /** normalized voting key ('' when the diff is empty) */
  normalized: string;
  diffCheck?: { ok: boolean; message?: string };
  /** why this sample is not a voting candidate (undefined = candidate); `diff` may still be set, for the record */
  emptyReason?: EmptyPatchReason;
  /** this sample's share of its call's usage (the call served `n` samples) */
  usage: Usage;
}

/** What the validation stage knows about one normalized candidate; both fields optional. */
export interface CandidateValidation {
  /** failing regression tests with this patch applied */
  regressionFailures?: number;
  /** the selected reproduction test printed `Issue resolved` (and nothing else) */
  reproductionPassed?: boolean;
}

export interface VoteEntry {
  normalized: string;
  votes: number;
  sampleIds: string[];
  /** the sample whose diff represents this entry: the earliest in voting order */
  representative: string;
  regressionFailures?: number;
  reproductionPassed?: boolean;
  /** passed the filter that was in force */
  eligible: boolean;
}

/** which Agentless 1.5 filter chose the eligible candidates ('none': plain majority vote over all) */
export type SelectionFilter = 'regression+reproduction' | 'reproduction' | 'regression' | 'none';

export interface Selection {
  /** '' when no sample produced a patch */
  patch: string;
  sampleId?: string;
  normalized?: string;
  filter: SelectionFilter;
  /** ordered: most votes first, then earliest in voting order */
  voteTable: VoteEntry[];
  emptyReason?: EmptyPatchReason;
}

export interface RepairCall {
  setIndex: number;
  temperature: number;
  n: number;
  model: string;
  usage: Usage;
  cached: boolean;
  latencyMs: number;
  error?: string;
}

export interface RepairInstanceRecord {
  instanceId: string;
  model: string;
  /** the rendered prompts, one per location set ('' when the set showed nothing) */
  prompts: string[];
  /** per location set: the shown files and intervals (contents are the base snapshot's, not repeated here) */
  contexts: Array<Array<Omit<ShownFile, 'content'>>>;
  calls: RepairCall[];
  samples: RepairSample[];
  /** majority vote without validation results */
  selection: Selection;
  usage: Usage;
}
