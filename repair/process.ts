/**
 * The deterministic part of one repair sample: model output → edits → edited files → syntax verdict →
 * diff → voting key. No I/O; the `git apply --check` of the diffs is batched per instance by the caller.
 */
import type { PythonAnalyzer } from './analyzer.ts';
import { applyEdits } from './apply.ts';
import { unifiedDiff } from './diff.ts';
import { normalizedKey, type FileChange } from './normalize.ts';
import { parseSearchReplace } from './search-replace.ts';
import { checkSyntax } from './syntax.ts';
import type { RepairSample, ShownFile } from './types.ts';

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
  const changes: FileChange[] = [...result.changed].map(([path, after]) => ({ path, before: base.get(path)!, after }));
  out.syntax = changes.map((c) => checkSyntax(c.path, c.before, c.after, analyzer));
  out.diff = unifiedDiff(changes);
  if (out.syntax.some((s) => !s.ok)) return { ...out, emptyReason: 'syntax-error' };
  out.normalized = normalizedKey(changes, analyzer);
  // the change is all comments, docstrings or layout: nothing to vote for (as in Agentless)
  if (out.normalized === '') return { ...out, emptyReason: 'no-op' };
  return out;
}
