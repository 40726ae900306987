/**
 * The LocAgent localizer (gersteinlab/LocAgent, auto_search_main.py): an agent searches the commit's code
 * graph with SearchEntity / TraverseGraph / RetrieveEntity until it names the locations to change; two
 * samples at temperature 1 are merged by reciprocal rank. Its files go downstream like any localizer's; the
 * classes and functions it named become `functions` (LocAgent's found_entities).
 *
 * Files the agent named come first. When it named fewer than `files` (or none: it ran out of time), the
 * files its searches showed most often fill the list, marked `source: "trajectory"` in their evidence, so
 * function/line localization still has candidates; an answer without any named file carries a warning.
 */
import { agreementWith, earlyStop, signals } from '../../src/artifacts/confidence.ts';
import { renderPrompt } from '../../src/prompts.ts';
import { usageOfTrace, type FileLocalization, type TraceEvent } from '../../src/artifacts/localization.ts';
import { isTestPath, mainLanguageExtensions } from '../../src/index/file-filter.ts';
import { buildRepoGraph } from '../../src/index/graph/repo-graph.ts';
import { GraphTools } from '../../src/index/graph/tools.ts';
import type { ContextWith, FileLocalizer } from '../types.ts';
import { type SampleRun, runSample } from './agent.ts';
import { mergeByReciprocalRank, parseAnswer, type ParsedAnswer } from './answer.ts';
import { describeTools } from './fn-call.ts';
import type { LocagentOptions } from './options.ts';
import { toolSpecsFor } from './tools.ts';

export interface LocagentFileEvidence {
  source: 'agent' | 'trajectory';
  /** sum of 1/rank over the samples that named the file (agent files) */
  reciprocalRank?: number;
  /** samples that named it */
  samples?: number;
  /** how many tool results showed the file or one of its entities */
  shown: number;
  [key: string]: unknown;
}

export class LocagentLocalizer implements FileLocalizer<'model'> {
  readonly name = 'locagent';

  constructor(private readonly options: LocagentOptions) {}

  async localize(ctx: ContextWith<'model'>): Promise<FileLocalization> {
    const o = this.options;
    const started = Date.now();
    const deadline = o.timeLimitSeconds > 0 ? started + o.timeLimitSeconds * 1000 : undefined;
    const trace: TraceEvent[] = [];
    const timings: Record<string, number> = {};

    let t = performance.now();
    const built = ctx.graph ? await ctx.graph() : await buildRepoGraph(ctx.snapshot);
    timings.graph = performance.now() - t;
    const graph = built.graph;
    const tools = new GraphTools(graph, ctx.snapshot);
    const repoFiles = graph.nodes('file').map((n) => n.path);
    const ext = mainLanguageExtensions(repoFiles)[0] ?? '.py';
    const specs = toolSpecsFor(ext);
    const system = renderPrompt('locagent-system', { tools: describeTools(specs) });
    const task = renderPrompt('locagent-task', { problem_statement: ctx.instance.problem_statement, ext });

    t = performance.now();
    const samples: Array<{ run: SampleRun; answer: ParsedAnswer }> = [];
    for (let i = 0; i < o.samples; i++) {
      if (deadline !== undefined && Date.now() >= deadline) break;
      const label = `sample${i + 1}`;
      const run = await runSample({ llm: ctx.llm, tools, specs, trace, label, ...(ctx.signal ? { signal: ctx.signal } : {}) }, system, task, {
        maxSteps: o.maxSteps,
        tokenBudget: o.tokenBudget,
        observationTokens: o.observationTokens,
        temperature: o.temperature,
        ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
        ...(o.seed !== undefined ? { seed: o.seed + i } : {}),
        ...(deadline !== undefined ? { deadline } : {}),
      });
      const answer = parseAnswer(run.answer, repoFiles);
      trace.push({
        type: 'note',
        step: label,
        message: `${run.stopReason} after ${run.steps} steps (${run.toolCalls} tool calls): ${answer.files.length} files, ${answer.entities.length} entities`,
        data: { stopReason: run.stopReason, files: answer.files, entities: answer.entities, ignored: answer.ignored },
      });
      samples.push({ run, answer });
    }
    timings.agent = performance.now() - t;

    const shownByFile = new Map<string, number>();
    for (const [id, n] of tools.shown) {
      const path = graph.node(id)?.path;
      if (path && graph.node(path)?.type === 'file') shownByFile.set(path, (shownByFile.get(path) ?? 0) + n);
    }
    const merged = mergeByReciprocalRank(
      samples.map((s) => s.answer.files),
      (f) => f,
    );
    const files: Array<{ path: string; evidence: LocagentFileEvidence }> = merged.map(({ item, score }) => ({
      path: item,
      evidence: {
        source: 'agent',
        reciprocalRank: +score.toFixed(4),
        samples: samples.filter((s) => s.answer.files.includes(item)).length,
        shown: shownByFile.get(item) ?? 0,
      },
    }));
    const fill = [...shownByFile.entries()]
      .filter(([path]) => !isTestPath(path) && !files.some((f) => f.path === path))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [path, shown] of fill) {
      if (files.length >= o.files) break;
      files.push({ path, evidence: { source: 'trajectory', shown } });
    }
    const entities = mergeByReciprocalRank(
      samples.map((s) => s.answer.entities),
      (e) => `${e.path}\0${e.name}`,
    );
    const warnings: string[] = [];
    if (merged.length === 0)
      warnings.push(
        samples.length === 0
          ? 'the time limit was reached before the agent ran'
          : `the agent named no file (${samples.map((s) => s.run.stopReason).join(', ')}); the files are those its searches showed most`,
      );

    return {
      localizer: this.name,
      files: files.map((f, i) => ({ path: f.path, score: files.length - i, evidence: f.evidence })),
      functions: entities.map(({ item, score }) => ({ path: item.path, name: item.name, score: +score.toFixed(4) })),
      trace,
      usage: usageOfTrace(trace),
      timingsMs: timings,
      details: {
        graph: { commit: built.commit, counts: graph.counts(), resolution: built.resolution, timings: built.timings },
        samples: samples.map((s) => ({
          stopReason: s.run.stopReason,
          steps: s.run.steps,
          toolCalls: s.run.toolCalls,
          invalidReplies: s.run.invalidReplies,
          files: s.answer.files,
          entities: s.answer.entities,
          trajectory: s.run.messages,
        })),
      },
      confidence: signals({
        'sample-agreement':
          samples.length > 1
            ? agreementWith(
                files[0]?.path,
                samples.map((x) => x.answer.files),
              )
            : undefined,
        'early-stop': samples.length ? Math.min(...samples.map((x) => earlyStop(x.run.steps, o.maxSteps) ?? 0)) : undefined,
      }),
      ...(warnings.length ? { warnings } : {}),
    };
  }
}
