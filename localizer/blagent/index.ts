/**
 * The BLAgent file localizer (paper §2.2–2.4, §3.7) on locfix's retrieval:
 *
 *   T0/T1 query transformation → retrieval of both → pool = unique(T0[:m] ⊕ T1[:m]) capped
 *   → Phase 1: ReAct agent reads skeletons and scores candidates 0–10
 *   → Phase 2: one call reranks the top-M files from pruned, chunk-anchored views (or names functions)
 *   → ranking = EAR order, rest of Phase 1, rest of the pool, rest of the retrieval ranking.
 *
 * Every LLM call, tool call and fall back is in the trace; timings are per phase with model time apart.
 */
import type { Parser } from 'web-tree-sitter';
import { blagentSkeleton } from '../../src/parsing/blagent-skeleton.ts';
import { parserForPath } from '../../src/parsing/parsers.ts';
import { countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';
import { retrieveResolved, type RankedFileWithEvidence } from '../retrieval/retriever.ts';
import { agreementWith, scoreSignals, signals } from '../../src/artifacts/confidence.ts';
import type { FileLocalizer, LocalizerContext } from '../types.ts';
import { usageOfTrace, type FileLocalization, type LocalizedFile, type TraceEvent } from '../../src/artifacts/localization.ts';
import { modelTimeMs, type CallContext } from './llm-call.ts';
import { modelFreeQueries, transformQueries } from './queries.ts';
import { outlineOfSkeleton, runSkeletonAgent, TOOL_NAME } from './react.ts';
import { resolveBlagentOptions, type ResolvedBlagentOptions } from './options.ts';
import { runEar, type EarFile } from './ear.ts';
import { functionsOutput, qualifiedNamesOf } from './function-level.ts';

export class BlagentLocalizer implements FileLocalizer {
  readonly name = 'blagent';
  readonly options: ResolvedBlagentOptions;

  /** `options` as given (parsed here), or already resolved (the registry's path: parsed once, at start) */
  constructor(options: Record<string, unknown> | { resolved: ResolvedBlagentOptions } = {}) {
    this.options = 'resolved' in options ? (options.resolved as ResolvedBlagentOptions) : resolveBlagentOptions(options);
  }

  async localize(ctx: LocalizerContext): Promise<FileLocalization> {
    const o = this.options;
    const issue = ctx.instance.problem_statement;
    if (!ctx.llm && !o.allowNoLlm) {
      throw new Error('blagent needs a chat model: pass --llm (e.g. ollama:gpt-oss:120b) or options {"allowNoLlm": true} for retrieval order');
    }
    const trace: TraceEvent[] = [];
    const timings: Record<string, number> = {};
    const started = performance.now();
    let mark = started;
    const lap = (key: string): void => {
      const now = performance.now();
      timings[key] = round(now - mark);
      mark = now;
    };

    const index = await ctx.index();
    lap('index');
    const call: CallContext | undefined = ctx.llm
      ? { llm: ctx.llm, trace, settings: { temperature: o.temperature, maxTokens: o.maxTokens, seed: o.seed }, ...(ctx.signal ? { signal: ctx.signal } : {}) }
      : undefined;
    const transformed = call ? await transformQueries(call, issue) : modelFreeQueries(issue, trace);
    lap('queries');
    const retrieval = await retrieveResolved(index, transformed.queries, o.retrieval);
    const pool = retrieval.pool;
    const byPath = new Map(retrieval.ranking.map((f, i) => [f.path, { file: f, rank: i + 1 }]));
    trace.push({
      type: 'note',
      step: 'retrieval',
      message: `pool of ${pool.length} candidates from T0/T1 (m=${o.m}, cap ${o.poolCap})`,
      data: {
        pool,
        queries: transformed.queries.map((q) => ({ label: q.label, text: q.text })),
        sources: transformed.sources,
        perQueryTop: retrieval.perQuery.map((q) => ({ label: q.label, files: q.files.slice(0, o.m).map((f) => f.path) })),
      },
    });
    lap('retrieval');

    let phase1Order = pool;
    let phase1Scores = new Map<string, number>();
    let earOrder: string[] = [];
    let functions: FileLocalization['functions'];
    if (call && pool.length > 0) {
      const agent = await runSkeletonAgent(
        call,
        { issue, candidates: pool, readSkeleton: (path) => this.readSkeleton(ctx, path, trace) },
        { maxSteps: o.maxSteps, maxRetries: o.maxRetries, history: o.phase1History },
      );
      phase1Order = agent.order;
      phase1Scores = agent.scores;
      timings.phase1Steps = agent.steps;
      lap('phase1');

      const top = phase1Order.slice(0, o.earFiles);
      const sources = await ctx.snapshot.readFiles(top);
      const earFiles: EarFile[] = top.map((path) => ({
        path,
        source: sources.get(path),
        anchors: (byPath.get(path)?.file.chunks ?? []).slice(0, o.anchorChunks).map((c) => ({ startLine: c.startLine, endLine: c.endLine })),
      }));
      const ear = await runEar(
        call,
        { issue, files: earFiles, definitions: (path) => qualifiedNamesOf(index, path) },
        {
          level: o.level,
          budgetTokens: o.earTokenBudget,
          anchors: o.anchorChunks,
          maxRetries: o.maxRetries,
          ...(o.earAssignmentLines > 0 ? { maxAssignmentLines: o.earAssignmentLines } : {}),
        },
      );
      trace.push({
        type: 'note',
        step: 'phase2',
        message: `EAR over ${top.length} files (${ear.prompt.tokens} prompt tokens, ${ear.prompt.anchorsUsed} anchors per file)`,
        data: { order: ear.ranking, ...ear.prompt },
      });
      earOrder = ear.fallback ? [] : ear.ranking;
      if (ear.entities) functions = functionsOutput(ear.entities);
      lap('phase2');
    }

    const files = finalRanking({ earOrder, phase1Order, pool, ranking: retrieval.ranking }).map((path, i, all): LocalizedFile => {
      const hit = byPath.get(path);
      const stage = earOrder.includes(path) ? 'ear' : pool.includes(path) ? (phase1Scores.has(path) ? 'phase1' : 'pool') : 'retrieval';
      return {
        path,
        score: all.length - i,
        evidence: {
          stage,
          ...(phase1Scores.has(path) ? { phase1Score: phase1Scores.get(path) } : {}),
          ...(hit ? { retrievalRank: hit.rank, retrievalScore: hit.file.score, chunks: hit.file.chunks.slice(0, o.anchorChunks) } : {}),
        },
      };
    });
    timings.total = round(performance.now() - started);
    timings.model = round(modelTimeMs(trace));
    for (const step of ['T0', 'T1', 'phase1', 'phase2']) timings[`model.${step}`] = round(modelTimeMs(trace, [step]));
    timings.overhead = round(timings.total - timings.model);
    const top = files[0]?.path;
    const phase1Ranked = [...phase1Scores.values()].sort((a, b) => b - a);
    const stages = [retrieval.ranking.map((f) => f.path), ...(phase1Scores.size ? [phase1Order] : []), ...(earOrder.length ? [earOrder] : [])];
    return {
      localizer: this.name,
      files,
      trace,
      usage: usageOfTrace(trace),
      timingsMs: timings,
      ...(functions ? { functions } : {}),
      confidence: signals({
        // Phase 1's 0–10 scores are the model's own judgement of each file
        ...scoreSignals(phase1Ranked.slice(0, 2)),
        'stage-agreement': stages.length > 1 ? agreementWith(top, stages) : undefined,
        'query-agreement':
          retrieval.perQuery.length > 1
            ? agreementWith(
                top,
                retrieval.perQuery.map((q) => q.files.map((f) => f.path)),
              )
            : undefined,
      }),
    };
  }

  /** The ReadFileSkeleton tool, recorded in the trace. */
  private async readSkeleton(ctx: LocalizerContext, path: string, trace: TraceEvent[]): Promise<string> {
    const t0 = performance.now();
    const source = await ctx.snapshot.readFile(path);
    let output: string;
    if (source === undefined) output = `(${path} could not be read)`;
    else {
      const parser = parserForPath(path);
      output = parser
        ? fittedSkeleton(source, this.options.skeletonMaxTokens, parser)
        : `(not a source file locfix parses; first lines)\n${source.split('\n').slice(0, 40).join('\n')}`;
    }
    trace.push({ type: 'tool', step: 'phase1', tool: TOOL_NAME, input: { path }, output, durationMs: round(performance.now() - t0) });
    return output;
  }
}

/**
 * The skeleton of a source file (parsed by `parser`, default Python) within `maxTokens`, losing the least useful detail first: docstring
 * summaries, then parameter lists (names of classes and functions stay), and only then the tail of the file.
 * Each step says what it left out, so the agent knows the view is partial.
 */
export function fittedSkeleton(source: string, maxTokens: number, parser?: Parser): string {
  const full = blagentSkeleton(source, parser);
  if (!full.trim()) return `(no classes or functions; ${source.split('\n').length} lines of module-level code)`;
  if (countTokens(full) <= maxTokens) return full;
  const noDocs = blagentSkeleton(source, parser, { docstrings: false });
  if (countTokens(noDocs) + 20 <= maxTokens) return `${noDocs}(docstrings left out: the full skeleton is over ${maxTokens} tokens)\n`;
  const names = outlineOfSkeleton(noDocs);
  const outline = `${names}\n(names only, signatures and docstrings left out: the skeleton is over ${maxTokens} tokens)\n`;
  if (countTokens(outline) <= maxTokens) return outline;
  const head = decodeTokens(encodeTokens(names).slice(0, Math.max(0, maxTokens - 24)));
  return `${head.slice(0, Math.max(0, head.lastIndexOf('\n')))}\n... (names only and cut at ${maxTokens} tokens: the file is very large)\n`;
}

/** EAR order, then the rest of Phase 1, then the rest of the pool, then the rest of the retrieval ranking. */
export function finalRanking(parts: {
  earOrder: readonly string[];
  phase1Order: readonly string[];
  pool: readonly string[];
  ranking: readonly Pick<RankedFileWithEvidence, 'path'>[];
}): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const list of [parts.earOrder, parts.phase1Order, parts.pool, parts.ranking.map((f) => f.path)]) {
    for (const p of list) {
      if (seen.has(p)) continue;
      seen.add(p);
      out.push(p);
    }
  }
  return out;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
