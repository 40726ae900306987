/**
 * Voting keys: two patches get the same key when they make the same change up to comments, docstrings,
 * blank lines and formatting (analyzer.ts has Python's normal form, syntax-normal-form.ts every other language's).
 *
 * Per edited file, the normal forms of the old and new content are diffed (3 lines of context, hunk headers
 * in normal-form line numbers, so equal edits at different places stay apart). When the change only adds
 * functions or methods — no existing one removed or altered — the key keeps just the added/removed lines, so
 * the same helper inserted at two different places votes together. File keys are concatenated in path order.
 */
import { languageForPath } from '../src/languages/index.ts';
import type { PythonAnalyzer, SourceAnalysis } from './analyzer.ts';
import { diffHunks } from './diff.ts';
import { syntaxAnalysis } from './syntax-normal-form.ts';

export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/** Agentless' test: existing functions all kept unchanged, at least one new one. */
export function onlyAddsFunctions(before: SourceAnalysis, after: SourceAnalysis): boolean {
  for (const [name, body] of before.functions) if (after.functions.get(name) !== body) return false;
  for (const name of after.functions.keys()) if (!before.functions.has(name)) return true;
  return false;
}

export function normalizeFileChange(change: FileChange, analyzer: PythonAnalyzer): string {
  const python = languageForPath(change.path)?.id === 'python';
  // other languages: the syntax tree's tokens without comments (syntax-normal-form.ts), no longer whitespace alone
  const before = python ? analyzer.analyze(change.before) : syntaxAnalysis(change.path, change.before);
  const after = python ? analyzer.analyze(change.after) : syntaxAnalysis(change.path, change.after);
  const a = before.lines.join('\n') + '\n';
  const b = after.lines.join('\n') + '\n';
  if (a === b) return '';
  const hunks = diffHunks(a, b, 3);
  const out: string[] = [];
  if (python && onlyAddsFunctions(before, after)) {
    for (const h of hunks) for (const l of h.lines) if (l[0] === '+' || l[0] === '-') out.push(l);
  } else {
    for (const h of hunks) {
      out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
      out.push(...h.lines);
    }
  }
  return out.join('\n');
}

/** The voting key of a whole candidate: '' when no file changes beyond comments and formatting. */
export function normalizedKey(changes: readonly FileChange[], analyzer: PythonAnalyzer): string {
  const parts: string[] = [];
  for (const change of [...changes].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))) {
    const body = normalizeFileChange(change, analyzer);
    if (body !== '') parts.push(`=== ${change.path}\n${body}`);
  }
  return parts.join('\n');
}
