/**
 * The deterministic part of one repair sample: model output → edits → edited files → syntax verdict →
 * diff → voting key. No I/O; the `git apply --check` of the diffs is batched per instance by the caller.
 */
import type { PythonAnalyzer } from './analyzer.ts';
import { applyEdits } from './apply.ts';
import { fileDiff } from './diff.ts';
import { normalizeFileChange, type FileChange } from './normalize.ts';
import { parseSearchReplace } from './search-replace.ts';
import { checkSyntax } from './syntax.ts';
import type { RepairSample, ShownFile } from './types.ts';

interface FileResult {
  diff: string;
  normalized: string;
}

/**
 * Diff and voting key per (base, edited) content pair. Many of an instance's 40 samples produce the same
 * edited file; this computes each pair once. Keyed by the analyzer so it lives as long as the stage does.
 */
const memos = new WeakMap<PythonAnalyzer, Map<string, Map<string, Map<string, FileResult>>>>();
const MAX_MEMO_FILES = 64;

function fileResult(change: FileChange, analyzer: PythonAnalyzer): FileResult {
  let byPath = memos.get(analyzer);
  if (!byPath) memos.set(analyzer, (byPath = new Map()));
  let byBase = byPath.get(change.path);
  if (!byBase) {
    if (byPath.size >= MAX_MEMO_FILES) byPath.clear();
    byPath.set(change.path, (byBase = new Map()));
  }
  // the base content is the same string object for every sample, so this lookup hashes it only once
  let byAfter = byBase.get(change.before);
  if (!byAfter) {
    if (byBase.size >= 4) byBase.clear();
    byBase.set(change.before, (byAfter = new Map()));
  }
  let result = byAfter.get(change.after);
  if (!result) {
    result = { diff: fileDiff(change.path, change.before, change.after), normalized: normalizeFileChange(change, analyzer) };
    byAfter.set(change.after, result);
  }
  return result;
}

export type ProcessedOutput = Pick<RepairSample, 'parsed' | 'applied' | 'applyFailures' | 'syntax' | 'diff' | 'normalized' | 'emptyReason'>;

/**
 * `diff` is filled whenever some file changed (also for a syntax error, for the record); whether the sample
 * is a voting candidate is said by `emptyReason` alone (undefined = candidate).
 */
export function processOutput(raw: string, files: readonly ShownFile[], analyzer: PythonAnalyzer): ProcessedOutput {
  const parsed = parseSearchReplace(raw);
  const out: ProcessedOutput = { parsed, applied: [], applyFailures: [], syntax: [], diff: '', normalized: '' };
  if (parsed.edits.length === 0) return { ...out, emptyReason: 'no-edits-parsed' };
  const result = applyEdits(parsed.edits, files);
  out.applied = result.applied;
  out.applyFailures = result.failures;
  if (result.applied.length === 0) return { ...out, emptyReason: 'no-edit-matched' };
  if (result.changed.size === 0) return { ...out, emptyReason: 'no-op' };
  const base = new Map(files.map((f) => [f.path, f.content]));
  // path order, as git orders the sections of a patch
  const changes: FileChange[] = [...result.changed]
    .map(([path, after]) => ({ path, before: base.get(path)!, after }))
    .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  out.syntax = changes.map((c) => checkSyntax(c.path, c.before, c.after, analyzer));
  if (out.syntax.some((s) => !s.ok)) {
    out.diff = changes.map((c) => fileDiff(c.path, c.before, c.after)).join('');
    return { ...out, emptyReason: 'syntax-error' };
  }
  const perFile = changes.map((c) => ({ path: c.path, ...fileResult(c, analyzer) }));
  out.diff = perFile.map((f) => f.diff).join('');
  // same assembly as normalizedKey()
  out.normalized = perFile
    .filter((f) => f.normalized !== '')
    .map((f) => `=== ${f.path}\n${f.normalized}`)
    .join('\n');
  // the change is all comments, docstrings or layout: nothing to vote for (as in Agentless)
  if (out.normalized === '') return { ...out, emptyReason: 'no-op' };
  return out;
}
