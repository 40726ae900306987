/**
 * Line-level localization ("edit locations", Agentless 1.5 step 3): the code around the related elements
 * (±10 lines, overlapping intervals merged, every line numbered `N|code`, `...` for omitted code) goes to
 * the model, sampled 4 times at temperature 0.8 in one request; each sample's `line:` / `function:` /
 * `class:` answers become one EditLocationSet, which drives its own repair run. When no sample names a
 * valid location the request is repeated at temperature 1.0 (up to 5 attempts, as Agentless).
 */
import { renderPrompt } from '../../src/prompts.ts';
import type { EditLocationSet, LineRange } from '../../repair/types.ts';
import { DEFAULT_TOP_FILES, usageOfTrace, type FileLocalization, type TraceEvent } from '../../src/artifacts/localization.ts';
import { loadSources, type ShownSource } from './files.ts';
import { mergeRanges, parseLocations, resolveLocations } from './locations.ts';
import { AGENTLESS_SYSTEM_MESSAGE, exampleExtension, fitSections, type HierarchyContext, type HierarchyInput } from './related-elements.ts';

export interface EditLocationsOptions {
  topFiles?: number;
  /** samples per request (default 4) */
  samples?: number;
  temperature?: number;
  retryTemperature?: number;
  maxAttempts?: number;
  /** lines of context on each side of a related element (default 10) */
  contextWindow?: number;
  maxTokens?: number;
  maxContextTokens?: number;
}

export interface EditLocationSample {
  raw: string;
  /** Agentless' per-sample found_edit_locs: file → location lines */
  locations: Record<string, string[]>;
  unresolved: Array<{ path: string; raw: string; reason: string }>;
}

export interface EditLocationsOutput {
  /** one per sample of the accepted attempt, in sample order (samples without any valid location give an empty set) */
  locationSets: EditLocationSet[];
  samples: EditLocationSample[];
  /** what was shown: file → numbered intervals (1-based, inclusive) */
  context: Array<{ path: string; intervals: LineRange[] }>;
  attempts: number;
  missingFiles: string[];
  trace: TraceEvent[];
  usage: FileLocalization['usage'];
  timingsMs: Record<string, number>;
}

/**
 * Agentless' line_wrap_content over context intervals: `N|line` for shown lines, `...` before an interval
 * that does not start the file and after the last one when it does not end the file.
 */
export function numberedContext(content: string, ranges: readonly LineRange[], window: number): { text: string; intervals: LineRange[] } {
  const lines = content.split('\n');
  if (content.endsWith('\n')) lines.pop();
  const n = lines.length;
  // Agentless' coordinates: the lower bound may be 0 (meaning "from the first line")
  const raw = ranges.map((r) => ({ start: Math.min(Math.max(r.start - window, 0), n), end: Math.max(Math.min(r.end + window, n), 0) }));
  const merged = mergeRanges(raw);
  const out: string[] = [];
  for (const iv of merged) {
    if (iv.start !== 0) out.push('...');
    for (let line = Math.max(iv.start, 1); line <= iv.end; line++) out.push(`${line}|${lines[line - 1]}`);
  }
  if (merged.length > 0 && merged[merged.length - 1].end !== n) out.push('...');
  return { text: out.join('\n'), intervals: merged.map((iv) => ({ start: Math.max(iv.start, 1), end: iv.end })) };
}

/** `ext`: the extension the answer format's example paths show (the shown files' language) */
export function editLocationsPrompt(problem: string, sections: readonly string[], ext = '.py'): string {
  return renderPrompt('agentless-edit-locations', { problem_statement: problem, file_contents: sections.join(''), ext });
}

/** Turns one sample's answer into its location set over the shown files. */
export function sampleToLocationSet(answer: string, sources: readonly ShownSource[]): { set: EditLocationSet; sample: EditLocationSample } {
  const parsed = parseLocations(
    answer,
    sources.map((s) => s.path),
  );
  const set: EditLocationSet = { files: [] };
  const sample: EditLocationSample = { raw: answer, locations: {}, unresolved: [] };
  for (const source of sources) {
    const lines = parsed.byFile.get(source.path) ?? [];
    sample.locations[source.path] = lines;
    const r = resolveLocations(source, lines);
    sample.unresolved.push(...r.unresolved);
    if (r.resolved.length > 0) {
      set.files.push({ path: source.path, ranges: mergeRanges(r.resolved.map((x) => x.range)), elements: r.resolved.map((x) => x.raw) });
    }
  }
  return { set, sample };
}

export async function localizeEditLocations(
  input: HierarchyInput & { related: Readonly<Record<string, readonly string[]>> },
  ctx: HierarchyContext,
  options: EditLocationsOptions = {},
): Promise<EditLocationsOutput> {
  const t0 = performance.now();
  const window = options.contextWindow ?? 10;
  const samples = options.samples ?? 4;
  const maxAttempts = options.maxAttempts ?? 5;
  const { sources: loaded, missing } = await loadSources(input.snapshot, input.files.slice(0, options.topFiles ?? DEFAULT_TOP_FILES));
  const trace: TraceEvent[] = [];
  if (missing.length) trace.push({ type: 'note', step: 'lines.files', message: `not at the base commit: ${missing.join(', ')}` });

  // a file is shown only when one of its related locations resolves (Agentless excludes the others)
  const shown: Array<{ source: ShownSource; section: string; intervals: LineRange[] }> = [];
  for (const source of loaded) {
    const resolved = resolveLocations(source, input.related[source.path] ?? []).resolved;
    if (resolved.length === 0) continue;
    const ctxText = numberedContext(
      source.content,
      resolved.map((r) => r.range),
      window,
    );
    shown.push({ source, section: `### ${source.path}\n${ctxText.text}\n\n\n`, intervals: ctxText.intervals });
  }
  const out: EditLocationsOutput = {
    locationSets: [],
    samples: [],
    context: [],
    attempts: 0,
    missingFiles: missing,
    trace,
    usage: usageOfTrace([]),
    timingsMs: {},
  };
  if (shown.length === 0) {
    trace.push({ type: 'note', step: 'lines', message: 'no related element resolves in the top files: nothing to show' });
    out.timingsMs = { total: performance.now() - t0 };
    return out;
  }
  const { prompt, kept } = fitSections(
    (s) => editLocationsPrompt(input.instance.problem_statement, s, exampleExtension(loaded)),
    shown.map((s) => s.section),
    options.maxContextTokens ?? 128_000,
  );
  const used = shown.slice(0, kept);
  out.context = used.map((s) => ({ path: s.source.path, intervals: s.intervals }));
  const sources = used.map((s) => s.source);

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    out.attempts = attempt;
    const step = `lines.attempt${attempt}`;
    const response = await ctx.llm.chat({
      messages: [
        { role: 'system', content: AGENTLESS_SYSTEM_MESSAGE },
        { role: 'user', content: prompt },
      ],
      n: samples,
      temperature: attempt === 1 ? (options.temperature ?? 0.8) : (options.retryTemperature ?? 1.0),
      ...(attempt > 1 ? { seed: attempt - 1 } : {}),
      ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
      purpose: 'agentless.lines',
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      trace: (t) => trace.push({ type: 'llm', step, trace: t }),
    });
    const results = response.choices.map((c) => sampleToLocationSet(c.content, sources));
    out.locationSets = results.map((r) => r.set);
    out.samples = results.map((r) => r.sample);
    if (out.locationSets.some((s) => s.files.length > 0)) break;
    trace.push({ type: 'note', step, message: 'no sample names a valid location' });
  }
  out.usage = usageOfTrace(trace);
  out.timingsMs = { total: performance.now() - t0 };
  return out;
}
