/**
 * BLAgent §2.2–2.3: the bug report rewritten into a structural (T0) and a behavioural (T1) query; both go
 * to retrieval, and the candidate pool is unique(T0[:m] ⊕ T1[:m]) capped (15 by default).
 *
 * The rewritten queries keep the original issue as the source of their structural signals (traceback
 * frames, backticked names, paths): a rewrite that drops a frame must not lose its path boost. The model
 * reads the issue as written; what retrieval searches for itself (signals, model-free stand-ins) is the
 * issue without its environment reports (`pip list` tables and the like, see retrieval/query.ts).
 */
import { renderPrompt } from '../../src/prompts.ts';
import { externalQuery, issueQueryText, rawIssueQuery, structuralQuery, type RetrievalQuery } from '../retrieval/query.ts';
import { callModel, type CallContext } from './llm-call.ts';
import type { TraceEvent } from '../../src/artifacts/localization.ts';

export type TransformKind = 'T0' | 'T1';

const PROMPTS: Record<TransformKind, string> = { T0: 'blagent-t0', T1: 'blagent-t1' };

export interface TransformedQueries {
  queries: [RetrievalQuery, RetrievalQuery];
  /** where each query text came from */
  sources: Record<TransformKind, 'llm' | 'model-free'>;
}

/**
 * Cleans a plain-text query answer: a leading "Query:" label, surrounding fences or quotes. Empty when the
 * model said nothing usable.
 */
export function cleanQueryAnswer(answer: string): string {
  let text = answer.trim();
  const fence = /^```[A-Za-z]*\s*\n([\s\S]*?)\n?```$/.exec(text);
  if (fence) text = fence[1]!.trim();
  text = text.replace(/^(\*\*)?(structural |behavioural |behavioral )?query:?(\*\*)?\s*/i, '').trim();
  if (/^"""[\s\S]*"""$/.test(text)) text = text.slice(3, -3).trim();
  else if (/^"[^"]*"$/.test(text)) text = text.slice(1, -1).trim();
  return text;
}

/** Both transformations by the model (called one after the other: the order of the trace is the order of the calls). */
export async function transformQueries(ctx: CallContext, issue: string): Promise<TransformedQueries> {
  const texts = {} as Record<TransformKind, string>;
  const sources = {} as TransformedQueries['sources'];
  const searchable = issueQueryText(issue);
  for (const kind of ['T0', 'T1'] as const) {
    const prompt = renderPrompt(PROMPTS[kind], { issue: issue.trim() });
    const { content } = await callModel(ctx, kind, [{ role: 'user', content: prompt }]);
    const text = cleanQueryAnswer(content);
    if (text) {
      texts[kind] = text;
      sources[kind] = 'llm';
    } else {
      // an empty answer would retrieve nothing; the model-free counterpart keeps the pool two-sided
      texts[kind] = kind === 'T0' ? structuralQuery(searchable).text || searchable : searchable;
      sources[kind] = 'model-free';
      ctx.trace.push({
        type: 'note',
        step: kind,
        message: `${kind} answer was empty; the model-free ${kind === 'T0' ? 'structural query' : 'raw issue'} stands in`,
      });
    }
  }
  return {
    queries: [externalQuery('T0', texts.T0, { signalsFrom: searchable }), externalQuery('T1', texts.T1, { signalsFrom: searchable })],
    sources,
  };
}

/** Without a model (option allowNoLlm): the model-free structural query stands in for T0, the raw issue for T1. */
export function modelFreeQueries(issue: string, trace: TraceEvent[]): TransformedQueries {
  const searchable = issueQueryText(issue);
  const structural = structuralQuery(searchable);
  trace.push({ type: 'note', step: 'queries', message: 'no LLM configured: structural query as T0, raw issue as T1; ranking is retrieval order' });
  return {
    queries: [
      { ...structural, label: 'T0', text: structural.text || searchable },
      { ...rawIssueQuery(searchable), label: 'T1', signals: structural.signals },
    ],
    sources: { T0: 'model-free', T1: 'model-free' },
  };
}
