/**
 * BLAgent §2.4 Phase 2, evidence-anchored reranking (EAR): the top-M files of Phase 1, each as a pruned
 * view (imports, module/class assignments, class headers, every signature, and full bodies only of the
 * functions that contain one of the file's top retrieved chunks), compared in one LLM call that returns a
 * ranked JSON list — or, at function level (§3.7), `path::Class::method` entities.
 *
 * A token budget guards the prompt: over budget, the largest view expands one anchor fewer, again and
 * again (down to signatures only), then views are cut to equal shares; what was shrunk is reported.
 */
import { languageForPath } from '../../src/languages/index.ts';
import { parserForPath } from '../../src/parsing/parsers.ts';
import { prunedViews, type LineRange, type PrunedViewOptions } from '../../src/parsing/pruned-view.ts';
import { countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';
import { renderPrompt } from '../../src/prompts.ts';
import type { ChatMessage } from '../../src/llm/types.ts';
import { callModel, type CallContext } from './llm-call.ts';
import { filesFromEntities, type EarLevel } from './function-level.ts';
import { CandidateMatcher, parseEntities, parseRanking } from './scoring-parse.ts';

export interface EarFile {
  path: string;
  /** undefined when the file could not be read (shown as such) */
  source: string | undefined;
  /** the file's retrieved chunks, best first */
  anchors: LineRange[];
}

/** lines shown of a file no grammar can prune */
const PLAIN_HEAD_LINES = 80;

/** The pruned view of one file with its first `anchorCount` anchors expanded. */
export function earView(file: EarFile, anchorCount: number, options: PrunedViewOptions = {}): string {
  return earViewsByAnchorCount(file, [anchorCount], options)[0]!;
}

/** The views of one file for several anchor counts, from one parse. */
export function earViewsByAnchorCount(file: EarFile, anchorCounts: readonly number[], options: PrunedViewOptions = {}): string[] {
  if (file.source === undefined) return anchorCounts.map(() => '(file could not be read)\n');
  const parser = parserForPath(file.path);
  if (!parser) {
    const lines = file.source.split('\n');
    const head = lines.slice(0, PLAIN_HEAD_LINES).join('\n');
    return anchorCounts.map(() => (lines.length > PLAIN_HEAD_LINES ? `${head}\n...\n` : `${head}\n`));
  }
  return prunedViews(
    file.source,
    anchorCounts.map((k) => file.anchors.slice(0, k)),
    parser,
    options,
  ).map((v) => v.text);
}

export function fileBlock(path: string, view: string): string {
  const fence = view.includes('```') ? '````' : '```';
  return `### ${path}\n${fence}${languageForPath(path)?.fence ?? ''}\n${view.endsWith('\n') ? view : `${view}\n`}${fence}`;
}

export interface EarPrompt {
  prompt: string;
  tokens: number;
  /** the most anchors expanded in any file */
  anchorsUsed: number;
  /** anchors expanded, per file in the given order */
  anchorsPerFile: number[];
  /** files whose view was cut to fit */
  truncated: string[];
  /** what the budget guard did, empty when nothing */
  shrink: string[];
}

function templateFor(level: EarLevel): string {
  return level === 'function' ? 'blagent-ear-functions' : 'blagent-ear';
}

/** Renders the EAR prompt within `budgetTokens` (see the module comment for how it shrinks). */
export function buildEarPrompt(
  issue: string,
  files: readonly EarFile[],
  options: { level: EarLevel; budgetTokens: number; anchors: number } & PrunedViewOptions,
): EarPrompt {
  const viewOptions: PrunedViewOptions = options.maxAssignmentLines !== undefined ? { maxAssignmentLines: options.maxAssignmentLines } : {};
  const render = (views: string[]): string =>
    renderPrompt(templateFor(options.level), {
      issue: issue.trim(),
      count: String(files.length),
      files: files.map((f, i) => fileBlock(f.path, views[i]!)).join('\n\n'),
    });
  const shrink: string[] = [];
  // Over budget, the file whose view is largest gives up its last expanded anchor first, so one huge
  // file does not cost the others their evidence.
  const anchorsPerFile = files.map((f) => Math.min(options.anchors, f.anchors.length));
  const views = files.map((f, i) => earView(f, anchorsPerFile[i]!, viewOptions));
  const viewTokens = views.map((v) => countTokens(v));
  // a file that must shrink gets the views for all its smaller anchor counts from one parse
  const smallerViews = new Map<number, string[]>();
  const viewWith = (i: number, k: number): string => {
    let all = smallerViews.get(i);
    if (!all) {
      all = earViewsByAnchorCount(
        files[i]!,
        Array.from({ length: anchorsPerFile[i]! + 1 }, (_, n) => n),
        viewOptions,
      );
      smallerViews.set(i, all);
    }
    return all[k]!;
  };
  let prompt = render(views);
  let tokens = countTokens(prompt);
  while (tokens > options.budgetTokens) {
    let largest = -1;
    for (let i = 0; i < files.length; i++) if (anchorsPerFile[i]! > 0 && (largest < 0 || viewTokens[i]! > viewTokens[largest]!)) largest = i;
    if (largest < 0) break;
    anchorsPerFile[largest]! -= 1;
    const view = viewWith(largest, anchorsPerFile[largest]!);
    tokens += countTokens(view) - viewTokens[largest]!;
    views[largest] = view;
    viewTokens[largest] = countTokens(view);
    if (tokens <= options.budgetTokens) {
      prompt = render(views);
      tokens = countTokens(prompt);
    }
  }
  if (tokens <= options.budgetTokens) {
    const reduced = files
      .map((f, i) => ({ path: f.path, from: Math.min(options.anchors, f.anchors.length), to: anchorsPerFile[i]! }))
      .filter((r) => r.to < r.from);
    if (reduced.length > 0)
      shrink.push(`fewer anchors expanded to fit ${options.budgetTokens} tokens: ${reduced.map((r) => `${r.path} ${r.to} of ${r.from}`).join(', ')}`);
    return { prompt, tokens, anchorsUsed: Math.max(0, ...anchorsPerFile), anchorsPerFile, truncated: [], shrink };
  }
  // signatures alone are over budget: cut every view to an equal share of what the frame leaves
  const frameTokens = countTokens(render(files.map(() => '')));
  const share = Math.max(0, Math.floor((options.budgetTokens - frameTokens) / Math.max(1, files.length)) - 8);
  const truncated: string[] = [];
  const cut = views.map((v, i) => {
    const tokens = encodeTokens(v);
    if (tokens.length <= share) return v;
    truncated.push(files[i]!.path);
    const head = decodeTokens(tokens.slice(0, share));
    const lastBreak = head.lastIndexOf('\n');
    return `${lastBreak >= 0 ? head.slice(0, lastBreak + 1) : ''}... (rest of the file left out)\n`;
  });
  shrink.push(`signatures only, ${truncated.length} views cut to ${share} tokens each to fit ${options.budgetTokens} tokens`);
  const cutPrompt = render(cut);
  return { prompt: cutPrompt, tokens: countTokens(cutPrompt), anchorsUsed: 0, anchorsPerFile: files.map(() => 0), truncated, shrink };
}

export interface EarSettings extends PrunedViewOptions {
  level: EarLevel;
  budgetTokens: number;
  /** retrieved chunks used as anchors per file */
  anchors: number;
  maxRetries: number;
}

export interface EarResult {
  /** the shown files, best first (all of them: ones the answer left out follow in their given order) */
  ranking: string[];
  /** function level: entities best first */
  entities?: Array<{ path: string; name: string }>;
  /** why the given (Phase 1) order was kept */
  fallback?: string;
  prompt: Omit<EarPrompt, 'prompt'>;
  dropped: Array<{ entry: string; reason: string }>;
}

export async function runEar(
  ctx: CallContext,
  input: { issue: string; files: readonly EarFile[]; definitions: (path: string) => ReadonlySet<string> },
  settings: EarSettings,
): Promise<EarResult> {
  const shown = input.files.map((f) => f.path);
  const built = buildEarPrompt(input.issue, input.files, settings);
  const { prompt, ...promptInfo } = built;
  if (built.shrink.length > 0)
    ctx.trace.push({ type: 'note', step: 'phase2', message: `token budget: ${built.shrink.join('; ')}`, data: { truncated: built.truncated } });
  if (settings.level === 'file' && shown.length <= 1) {
    ctx.trace.push({ type: 'note', step: 'phase2', message: 'one file: nothing to rerank, no call made' });
    return { ranking: shown, prompt: promptInfo, dropped: [] };
  }
  const matcher = new CandidateMatcher(shown);
  const messages: ChatMessage[] = [{ role: 'user', content: prompt }];
  let lastProblem = '';
  for (let attempt = 0; attempt <= settings.maxRetries; attempt++) {
    const { content } = await callModel(ctx, 'phase2', messages);
    try {
      if (settings.level === 'function') {
        const parsed = parseEntities(content, matcher, input.definitions);
        noteDropped(ctx, parsed.dropped);
        return { ranking: filesFromEntities(parsed.entities, shown), entities: parsed.entities, prompt: promptInfo, dropped: parsed.dropped };
      }
      const parsed = parseRanking(content, matcher);
      noteDropped(ctx, parsed.dropped);
      return { ranking: [...parsed.ranking, ...shown.filter((p) => !parsed.ranking.includes(p))], prompt: promptInfo, dropped: parsed.dropped };
    } catch (err) {
      lastProblem = (err as Error).message;
      ctx.trace.push({
        type: 'note',
        step: 'phase2',
        message: `unusable answer (${attempt < settings.maxRetries ? `retry ${attempt + 1} of ${settings.maxRetries}` : 'no retries left'}): ${lastProblem}`,
      });
      const expected =
        settings.level === 'function'
          ? 'Answer with only a JSON list of "<file path>::<Class>::<method>" or "<file path>::<function>" strings, using the file paths shown.'
          : `Answer with only a JSON list of the ${shown.length} file paths shown, best first.`;
      messages.push({ role: 'assistant', content }, { role: 'user', content: renderPrompt('blagent-retry', { problem: `${lastProblem}.`, expected }) });
    }
  }
  const fallback = `no usable answer after ${settings.maxRetries} retries; last problem: ${lastProblem}`;
  ctx.trace.push({ type: 'note', step: 'phase2', message: `kept the Phase 1 order: ${fallback}` });
  return { ranking: shown, fallback, prompt: promptInfo, dropped: [] };
}

function noteDropped(ctx: CallContext, dropped: EarResult['dropped']): void {
  if (dropped.length > 0) ctx.trace.push({ type: 'note', step: 'phase2', message: `${dropped.length} entries dropped`, data: dropped });
}
