/**
 * Function-level localization ("related elements", Agentless 1.5 step 2): the compressed skeletons of the
 * top files go to the model, which lists `function:` / `class:` / `variable:` locations per file; each is
 * resolved to a line range. When nothing resolves, the call is repeated at temperature 1.0 (Agentless:
 * first attempt greedy, up to 5 attempts in all). Works on any file localizer's output.
 */
import type { SweInstance } from '../../src/dataset/schema.ts';
import { countTokens } from '../../src/llm/tokens.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { compressedSkeleton, type CompressedSkeletonOptions } from '../../src/parsing/compressed-skeleton.ts';
import { languageForPath } from '../../src/languages/index.ts';
import { parserForPath } from '../../src/parsing/parsers.ts';
import { renderPrompt } from '../../src/prompts.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import type { CodeElement, Handoff } from '../../src/artifacts/localization.ts';
import { DEFAULT_TOP_FILES, usageOfTrace, type FileLocalization, type TraceEvent } from '../../src/artifacts/localization.ts';
import { loadSources, type ShownSource } from './files.ts';
import { parseLocations, resolveLocations, type ResolvedLocation } from './locations.ts';

export const AGENTLESS_SYSTEM_MESSAGE = 'You are a careful software engineer helping to fix a bug.';

export interface RelatedElementsOptions {
  /** files taken from the file localizer's ranking (default 3) */
  topFiles?: number;
  /** attempts in all, the first at `temperature` (default 5, as Agentless' MAX_RETRIES) */
  maxAttempts?: number;
  temperature?: number;
  retryTemperature?: number;
  maxTokens?: number;
  /** files are dropped from the end while the prompt has this many tokens or more (Agentless: 128000) */
  maxContextTokens?: number;
  /** Agentless runs with --compress_assign (30/10/10) */
  skeleton?: CompressedSkeletonOptions;
  /** soft: places named in files that were not shown are followed when the file exists; otherwise ignored */
  handoff?: Handoff;
}

export interface ResolvedElement extends ResolvedLocation {}

export interface RelatedElementsOutput {
  /** the files whose skeletons were shown, in rank order */
  files: string[];
  /** Agentless' found_related_locs: file → location lines of the accepted attempt */
  locations: Record<string, string[]>;
  elements: ResolvedElement[];
  /** the elements as the failure analysis names them ("Class.method", "func", "Class", "<module>" for variables) */
  codeElements: CodeElement[];
  unresolved: Array<{ path: string; raw: string; reason: string }>;
  /** answer lines that named files not shown, or came before any file */
  ignored: string[];
  attempts: number;
  rawOutputs: string[];
  /** files of the ranking that do not exist at the base commit */
  missingFiles: string[];
  /** files outside the handed-over ones whose places the model named and the stage followed (soft handoff) */
  beyond?: string[];
  trace: TraceEvent[];
  usage: FileLocalization['usage'];
  timingsMs: Record<string, number>;
}

export interface HierarchyInput {
  instance: SweInstance;
  snapshot: RepoSnapshot;
  /** ranked files from any file localizer */
  files: readonly string[];
}

export interface HierarchyContext {
  llm: ChatModel;
  signal?: AbortSignal;
}

/** The source extension of the first shown file that has one (`.py` when none): what the answer format's example paths show. */
export function exampleExtension(sources: readonly { path: string }[]): string {
  for (const s of sources) {
    const spec = languageForPath(s.path);
    if (spec) return spec.extensions[0] ?? '.py';
  }
  return '.py';
}

/** `### File: path ###` sections with each skeleton in a block fenced for its language (Agentless' layout). */
export function skeletonSections(sources: readonly ShownSource[], options: CompressedSkeletonOptions = {}): string[] {
  return sources.map((s) => {
    const parser = parserForPath(s.path);
    // a file no grammar parses is shown as it is (Agentless would show it uncompressed too)
    const view = parser ? compressedSkeleton(s.content, parser, options) : s.content;
    return `\n### File: ${s.path} ###\n\`\`\`${languageForPath(s.path)?.fence ?? ''}\n${view}\n\`\`\`\n`;
  });
}

/** `ext`: the extension the answer format's example paths show (the shown files' language) */
export function relatedElementsPrompt(problem: string, sections: readonly string[], ext = '.py'): string {
  return renderPrompt('agentless-related-elements', { problem_statement: problem, file_contents: sections.join(''), ext });
}

/** Drops sections from the end while the prompt is too long; throws when even one file does not fit. */
export function fitSections(build: (sections: string[]) => string, sections: string[], maxTokens: number): { prompt: string; kept: number } {
  let kept = sections.length;
  let prompt = build(sections);
  while (countTokens(prompt) >= maxTokens && kept > 1) {
    kept -= 1;
    prompt = build(sections.slice(0, kept));
  }
  if (countTokens(prompt) >= maxTokens) throw new Error(`prompt does not fit in ${maxTokens} tokens even with one file`);
  return { prompt, kept };
}

export function toCodeElements(elements: readonly ResolvedLocation[]): CodeElement[] {
  const out: CodeElement[] = [];
  for (const e of elements) {
    const name = e.kind === 'variable' || e.kind === 'line' ? '<module>' : e.name;
    if (!out.some((o) => o.path === e.path && o.name === name)) out.push({ path: e.path, name });
  }
  return out;
}

export async function localizeRelatedElements(
  input: HierarchyInput,
  ctx: HierarchyContext,
  options: RelatedElementsOptions = {},
): Promise<RelatedElementsOutput> {
  const t0 = performance.now();
  const topFiles = options.topFiles ?? DEFAULT_TOP_FILES;
  const maxAttempts = options.maxAttempts ?? 5;
  const { sources: allSources, missing } = await loadSources(input.snapshot, input.files.slice(0, topFiles));
  const tLoad = performance.now();
  const sections = skeletonSections(allSources, options.skeleton ?? {});
  const { prompt, kept } = fitSections(
    (s) => relatedElementsPrompt(input.instance.problem_statement, s, exampleExtension(allSources)),
    sections,
    options.maxContextTokens ?? 128_000,
  );
  const sources = allSources.slice(0, kept);
  const shown = sources.map((s) => s.path);
  const trace: TraceEvent[] = [];
  if (missing.length) trace.push({ type: 'note', step: 'related.files', message: `not at the base commit: ${missing.join(', ')}` });
  if (kept < allSources.length) trace.push({ type: 'note', step: 'related.files', message: `prompt too long: kept ${kept} of ${allSources.length} files` });

  const rawOutputs: string[] = [];
  let result: Pick<RelatedElementsOutput, 'locations' | 'elements' | 'unresolved' | 'ignored'> = { locations: {}, elements: [], unresolved: [], ignored: [] };
  let attempts = 0;
  let beyond: string[] = [];
  if (sources.length > 0) {
    for (attempts = 1; attempts <= maxAttempts; attempts++) {
      const temperature = attempts === 1 ? (options.temperature ?? 0) : (options.retryTemperature ?? 1.0);
      const step = `related.attempt${attempts}`;
      const response = await ctx.llm.chat({
        messages: [
          { role: 'system', content: AGENTLESS_SYSTEM_MESSAGE },
          { role: 'user', content: prompt },
        ],
        temperature,
        // retries at the same temperature must not come back from the response cache unchanged
        ...(attempts > 1 ? { seed: attempts - 1 } : {}),
        ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
        purpose: 'agentless.related',
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        trace: (t) => trace.push({ type: 'llm', step, trace: t }),
      });
      const answer = response.choices[0]?.content ?? '';
      rawOutputs.push(answer);
      const parsed = parseLocations(answer, shown);
      const locations: Record<string, string[]> = {};
      const elements: ResolvedLocation[] = [];
      const unresolved: RelatedElementsOutput['unresolved'] = [];
      for (const source of sources) {
        const lines = parsed.byFile.get(source.path) ?? [];
        locations[source.path] = lines;
        const r = resolveLocations(source, lines);
        elements.push(...r.resolved);
        unresolved.push(...r.unresolved);
      }
      const ignored = [...parsed.ignored];
      if (options.handoff === 'soft') {
        // a soft handoff keeps the repository open: a named file that exists at the base commit is followed
        const named = [...parsed.unshown].filter(([, lines]) => lines.length > 0);
        const { sources: extra } = await loadSources(
          input.snapshot,
          named.map(([p]) => p),
        );
        for (const source of extra) {
          const lines = parsed.unshown.get(source.path)!;
          locations[source.path] = lines;
          const r = resolveLocations(source, lines);
          elements.push(...r.resolved);
          unresolved.push(...r.unresolved);
        }
        beyond = extra.map((s) => s.path);
      }
      result = { locations, elements, unresolved, ignored };
      if (elements.length > 0) break;
      trace.push({ type: 'note', step, message: 'no location resolved', data: { unresolved, ignored: parsed.ignored } });
      if (attempts === maxAttempts) break;
    }
  } else {
    trace.push({ type: 'note', step: 'related', message: 'no file to show' });
  }
  return {
    files: shown,
    ...result,
    codeElements: toCodeElements(result.elements),
    attempts,
    rawOutputs,
    missingFiles: missing,
    ...(beyond.length ? { beyond } : {}),
    trace,
    usage: usageOfTrace(trace),
    timingsMs: { load: tLoad - t0, total: performance.now() - t0 },
  };
}
