/**
 * Queries a retrieval run is given. The model-free defaults are the raw issue and the structural query;
 * an LLM stage (BLAgent T0/T1) passes its own texts with the same shape. A query that carries `signals`
 * also drives the definition and path boosts; one without is matched as text only.
 */
import { extractStructuralSignals, structuralQueryText, type StructuralSignals } from './structural-query.ts';
import { stripEnvironmentReports } from '../../src/text/environment-report.ts';

export interface RetrievalQuery {
  /** 'raw' | 'structural' | 'T0' | 'T1' | …; names the query in rankings and evidence */
  label: string;
  text: string;
  signals?: StructuralSignals;
}

export function rawIssueQuery(issue: string): RetrievalQuery {
  return { label: 'raw', text: issue };
}

export function structuralQuery(issue: string): RetrievalQuery {
  const signals = extractStructuralSignals(issue);
  return { label: 'structural', text: structuralQueryText(signals), signals };
}

/**
 * The issue's title: its first line, when a body follows and the line reads like a summary (3 to 30 words). The
 * reporter's one-line summary names the component; in a long body its words are outweighed by logs and code.
 */
export function titleQuery(issue: string): RetrievalQuery | undefined {
  const lines = issue.trim().split('\n');
  const first = lines[0]!.trim().replace(/^#+\s*/, '');
  const words = first.split(/\s+/).filter(Boolean).length;
  if (lines.length < 2 || words < 3 || words > 30) return undefined;
  return { label: 'title', text: first };
}

/**
 * The issue's prose: without fenced or indented code, doctest lines, tracebacks and URLs. In the raw issue BM25
 * weighs a pasted log or script as much as the description of what goes wrong. Undefined when there is no code to
 * leave out (it would repeat the raw query) or too little prose left.
 */
export function proseQuery(issue: string): RetrievalQuery | undefined {
  const prose = issue
    .replace(/\r\n?/g, '\n')
    .replace(/```[^\n]*\n[\s\S]*?(?:```|$)/g, '\n')
    .replace(/^(?:>>>|\.\.\.) .*$/gm, '')
    .replace(/^(?: {4}|\t).*$/gm, '')
    .replace(/^\s*(?:Traceback \(most recent call last\):?|File "[^"]*", line \d+.*)$/gm, '')
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const words = prose.split(/\s+/).filter(Boolean).length;
  if (words < 5 || prose.length > 0.8 * issue.trim().length) return undefined;
  return { label: 'prose', text: prose };
}

/**
 * Wraps an LLM-written query. `signalsFrom` decides where its boosts come from: the query text itself
 * (T0 names code entities) or the original issue (so frames and backticked names survive a rewrite).
 */
export function externalQuery(label: string, text: string, options: { signalsFrom?: string } = {}): RetrievalQuery {
  const source = options.signalsFrom ?? text;
  return { label, text, signals: extractStructuralSignals(source) };
}

/** the query sets a retrieval run may ask for, by name (the localizer's options and `--queries` read this list) */
export const QUERY_PRESETS = ['raw', 'structural', 'raw+structural', 'raw+structural+title', 'raw+structural+title+prose'] as const;
export type QueryPreset = (typeof QUERY_PRESETS)[number];
/**
 * the queries the retrieval localizer asks when its options name none: the issue, its structural signals and its
 * title (chosen on the development sets, where the title query raised Top-5 on all three; BENCHMARKS.md)
 */
export const DEFAULT_QUERY_PRESET: QueryPreset = 'raw+structural+title';

export interface IssueTextOptions {
  /** 'drop' (default): `pip list` / `show_versions()` tables leave the issue before it becomes a query
   * (src/text/environment-report.ts); 'keep': the issue exactly as written */
  environmentReports?: 'drop' | 'keep';
}

/** The issue text the queries are built from. */
export function issueQueryText(issue: string, options: IssueTextOptions = {}): string {
  return options.environmentReports === 'keep' ? issue : stripEnvironmentReports(issue);
}

export function defaultQueries(issue: string, preset: QueryPreset = DEFAULT_QUERY_PRESET, options: IssueTextOptions = {}): RetrievalQuery[] {
  const text = issueQueryText(issue, options);
  if (preset === 'raw') return [rawIssueQuery(text)];
  if (preset === 'structural') return [structuralQuery(text)];
  const both = [rawIssueQuery(text), structuralQuery(text)];
  if (preset === 'raw+structural') return both;
  const title = titleQuery(text);
  const prose = preset === 'raw+structural+title+prose' ? proseQuery(text) : undefined;
  return [...both, ...(title ? [title] : []), ...(prose ? [prose] : [])];
}

/** Validates queries from outside (e.g. a JSON file written by an LLM stage). */
export function assertQueries(queries: readonly RetrievalQuery[]): void {
  if (queries.length === 0) throw new Error('retrieval needs at least one query');
  const labels = new Set<string>();
  for (const [i, q] of queries.entries()) {
    if (!q || typeof q.label !== 'string' || !q.label) throw new Error(`query #${i + 1}: missing "label"`);
    if (typeof q.text !== 'string') throw new Error(`query "${q.label}": "text" must be a string`);
    if (labels.has(q.label)) throw new Error(`query label "${q.label}" is used twice`);
    labels.add(q.label);
  }
}
