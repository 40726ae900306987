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
 * Wraps an LLM-written query. `signalsFrom` decides where its boosts come from: the query text itself
 * (T0 names code entities) or the original issue (so frames and backticked names survive a rewrite).
 */
export function externalQuery(label: string, text: string, options: { signalsFrom?: string } = {}): RetrievalQuery {
  const source = options.signalsFrom ?? text;
  return { label, text, signals: extractStructuralSignals(source) };
}

export type QueryPreset = 'raw' | 'structural' | 'raw+structural';
/** the queries the retrieval localizer asks when its options name none */
export const DEFAULT_QUERY_PRESET: QueryPreset = 'raw+structural';

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
  return [rawIssueQuery(text), structuralQuery(text)];
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
