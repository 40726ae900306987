/**
 * The configurations `npm run bench:retrieval` evaluates on one index per instance: the baselines the issues asked
 * for, the default and the variants that explain it, the learned ranker (issue 34) and, with --graph, the graph
 * channel; and the run of them on one instance.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { defaultQueries, DEFAULT_QUERY_PRESET, type QueryPreset } from '../localizer/retrieval/query.ts';
import { resolveRetrievalOptions, type DeepPartial, type RetrievalOptions } from '../localizer/retrieval/options.ts';
import { retrieveFiles, type RetrievalIndex } from '../localizer/retrieval/retriever.ts';

export interface BenchConfig {
  label: string;
  queries: QueryPreset;
  options: DeepPartial<RetrievalOptions>;
  /** the issue's baselines search the issue exactly as written; the default drops environment reports */
  environmentReports?: 'keep';
  /** also search the identifiers the repository's history associates with the issue's words (query `meaning`) */
  meaning?: true;
}

const OFF = { dense: 0, chunkBm25: 0, fileBm25: 0, definitions: 0, paths: 0, history: 0, literals: 0, keys: 0, coChange: 0 };
/**
 * The weights before issue 44 (chosen on Lite's even rows, issue 2), with the queries they went with: the baselines
 * keep them, so their rows compare with every earlier run, and the ladder below starts from them.
 */
export const BEFORE_ISSUE_44 = {
  queries: 'raw+structural' as QueryPreset,
  weights: { dense: 0.5, chunkBm25: 0.5, fileBm25: 1, definitions: 1, paths: 1.5, history: 1, literals: 0, keys: 0, coChange: 0 },
};
const BEFORE = BEFORE_ISSUE_44.weights;
const DEFAULT = DEFAULT_QUERY_PRESET;
/** the default configuration's label (per-instance log lines and the per-instance ranks use it) */
export const DEFAULT_LABEL = 'default: hybrid + structural + title + history + literals + co-change';

/** The configurations the issue asks for, then the variants that explain the default. */
export const CONFIGS: BenchConfig[] = [
  { label: 'BM25 (whole file)', queries: 'raw', options: { weights: { ...OFF, fileBm25: 1 } }, environmentReports: 'keep' },
  { label: 'BM25 (chunks, max)', queries: 'raw', options: { weights: { ...OFF, chunkBm25: 1 } }, environmentReports: 'keep' },
  { label: 'lexical dense', queries: 'raw', options: { weights: { ...OFF, dense: 1 } }, environmentReports: 'keep' },
  { label: 'hybrid', queries: 'raw', options: { weights: { ...BEFORE, history: 0 } }, environmentReports: 'keep' },
  { label: 'hybrid, RRF', queries: 'raw', options: { fusion: 'rrf', weights: { ...BEFORE, history: 0 } }, environmentReports: 'keep' },
  { label: 'hybrid + structural', queries: 'raw+structural', options: { weights: { ...BEFORE, history: 0 } }, environmentReports: 'keep' },
  { label: DEFAULT_LABEL, queries: DEFAULT, options: {} },
  { label: 'default, RRF', queries: DEFAULT, options: { fusion: 'rrf' } },
  { label: 'default, no definitions', queries: DEFAULT, options: { weights: { definitions: 0 } } },
  { label: 'default, no paths', queries: DEFAULT, options: { weights: { paths: 0 } } },
  { label: 'default, environment reports kept', queries: DEFAULT, options: {}, environmentReports: 'keep' },
  { label: 'history alone (similar past commits)', queries: 'raw', options: { weights: { ...OFF, history: 1 } } },
];

/**
 * the learned ranker (issue 34): the shipped model, or `--ranker-model FILE`, or none with `--ranker-model none`
 * (while a model for a new feature set is being trained); `--ranker-ablations DIR` adds a config per model file there
 */
export const LEARNED_LABEL = 'learned ranker';
export function learnedConfigs(model: string | undefined, ablations: string | undefined): BenchConfig[] {
  if (model === 'none') return [];
  const ablationFiles = ablations
    ? readdirSync(ablations)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  return [
    { label: LEARNED_LABEL, queries: DEFAULT, options: { fusion: 'learned', ...(model ? { rankerModel: path.resolve(model) } : {}) } },
    ...ablationFiles.map(
      (f): BenchConfig => ({
        label: `learned, ${f.replace(/\.json$/, '')}`,
        queries: DEFAULT,
        options: { fusion: 'learned', rankerModel: path.resolve(ablations!, f) },
      }),
    ),
  ];
}

/**
 * The literals channel (issue 44): alone on the issue as written, the default without it (the default before it),
 * and at two higher weights. Its default weight (0.5) was chosen on the development sets (SWE-bench dev, Multimodal
 * dev, the Multilingual dev rows), never on Lite, which only reports what that choice gives.
 */
export const LITERAL_CONFIGS: BenchConfig[] = [
  { label: 'literals alone (quoted messages)', queries: 'raw', options: { weights: { ...OFF, literals: 1 } } },
  { label: 'default, no literals', queries: DEFAULT, options: { weights: { literals: 0 } } },
  { label: 'default, literals 1', queries: DEFAULT, options: { weights: { literals: 1 } } },
  { label: 'default, literals 2', queries: DEFAULT, options: { weights: { literals: 2 } } },
];

/**
 * Configuration keys and flags (the keys channel) and co-change with the files the issue names (issue 44): each
 * alone, and the default with each at other weights. Their default weights (keys 0, co-change 0.5) were chosen on
 * the development sets, never on Lite.
 */
export const EVIDENCE_CONFIGS: BenchConfig[] = [
  { label: 'keys alone (configuration keys, flags)', queries: 'raw', options: { weights: { ...OFF, keys: 1 } } },
  ...[0.25, 0.5, 1].map((keys): BenchConfig => ({ label: `default + keys ${keys}`, queries: DEFAULT, options: { weights: { keys } } })),
  { label: 'co-change alone (with named files)', queries: 'raw+structural', options: { weights: { ...OFF, coChange: 1 } } },
  // a test file the issue names maps to the module it tests (rare: 3 of the 360 development issues name a test path)
  { label: 'default + tested modules 1', queries: DEFAULT, options: { pathWeights: { testedModule: 1 } } },
  { label: 'default, no co-change', queries: DEFAULT, options: { weights: { coChange: 0 } } },
  ...[0.25, 1].map((coChange): BenchConfig => ({ label: `default, co-change ${coChange}`, queries: DEFAULT, options: { weights: { coChange } } })),
  { label: 'default, no title query', queries: 'raw+structural', options: {} },
  // commit subjects are one-line summaries, as titles are: the similar-past-commits channel searched with the title too
  // the issue without its code, logs and tracebacks as a fourth query (text channels only)
  { label: 'default + prose query', queries: 'raw+structural+title+prose', options: {} },
  { label: 'default, history on the title too', queries: DEFAULT, options: { historyQueries: ['raw', 'T1', 'title'] } },
];

/**
 * From the default before issue 44 to today's, one step at a time: each row adds one change to the row above, so
 * the ladder says what each step gave (every step was chosen on the development sets).
 */
export const LADDER_CONFIGS: BenchConfig[] = [
  { label: 'issue 44 ladder: 0 before issue 44', queries: BEFORE_ISSUE_44.queries, options: { weights: BEFORE } },
  { label: 'issue 44 ladder: 1 + literals 0.5', queries: BEFORE_ISSUE_44.queries, options: { weights: { ...BEFORE, literals: 0.5 } } },
  { label: 'issue 44 ladder: 2 + co-change 0.5', queries: BEFORE_ISSUE_44.queries, options: { weights: { ...BEFORE, literals: 0.5, coChange: 0.5 } } },
  { label: 'issue 44 ladder: 3 + title query', queries: DEFAULT, options: { weights: { ...BEFORE, literals: 0.5, coChange: 0.5 } } },
  { label: 'issue 44 ladder: 4 + weights chosen on dev (the default)', queries: DEFAULT, options: {} },
];

/** with --graph: the graph channel at half the definition boost's weight (one step away counts half), and at its full weight */
export const GRAPH_CONFIGS: BenchConfig[] = [
  { label: 'default + graph 0.5', queries: DEFAULT, options: { weights: { graph: 0.5 } } },
  { label: 'default + graph 1', queries: DEFAULT, options: { weights: { graph: 1 } } },
];

/** the label of the history-meaning query (src/index/word-associations.ts expansionQuery) */
export const MEANING_QUERY = 'meaning';

/**
 * with --history N: the identifiers the repository's last N commits before the base associate with the issue's words,
 * as one more query (text channels only: no boosts, no history search), at three weights
 */
export const MEANING_CONFIGS: BenchConfig[] = [0.25, 0.5, 1].map((weight) => ({
  label: `default + meaning query ${weight}`,
  queries: DEFAULT,
  options: { queryWeights: { [MEANING_QUERY]: weight } },
  meaning: true,
}));

/** Every configuration's ranking of one instance; `expansion` is the meaning query's text (--history). */
export async function runConfigs(
  index: RetrievalIndex,
  inst: SweInstance,
  configs: readonly BenchConfig[],
  expansion?: string,
): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const c of configs) {
    const queries = defaultQueries(inst.problem_statement, c.queries, { environmentReports: c.environmentReports });
    if (c.meaning && expansion) queries.push({ label: MEANING_QUERY, text: expansion });
    const result = await retrieveFiles(index, queries, resolveRetrievalOptions(c.options));
    out[c.label] = result.ranking.map((r) => r.path);
  }
  return out;
}
