/**
 * The configurations `npm run bench:retrieval` evaluates on one index per instance: the baselines the issues asked
 * for, the default and the variants that explain it, the learned ranker (issue 34) and, with --graph, the graph
 * channel.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { QueryPreset } from '../localizer/retrieval/query.ts';
import type { DeepPartial, RetrievalOptions } from '../localizer/retrieval/options.ts';

export interface BenchConfig {
  label: string;
  queries: QueryPreset;
  options: DeepPartial<RetrievalOptions>;
  /** the baselines search the issue exactly as written; the default drops environment reports */
  environmentReports?: 'keep';
}

const OFF = { dense: 0, chunkBm25: 0, fileBm25: 0, definitions: 0, paths: 0, history: 0, literals: 0, keys: 0, coChange: 0 };
/** the default configuration's label (per-instance log lines and the per-instance ranks use it) */
export const DEFAULT_LABEL = 'default: hybrid + structural + history + literals + co-change';

/** The configurations the issue asks for, then the variants that explain the default. */
export const CONFIGS: BenchConfig[] = [
  { label: 'BM25 (whole file)', queries: 'raw', options: { weights: { ...OFF, fileBm25: 1 } }, environmentReports: 'keep' },
  { label: 'BM25 (chunks, max)', queries: 'raw', options: { weights: { ...OFF, chunkBm25: 1 } }, environmentReports: 'keep' },
  { label: 'lexical dense', queries: 'raw', options: { weights: { ...OFF, dense: 1 } }, environmentReports: 'keep' },
  { label: 'hybrid', queries: 'raw', options: { weights: { history: 0, literals: 0, coChange: 0 } }, environmentReports: 'keep' },
  { label: 'hybrid, RRF', queries: 'raw', options: { fusion: 'rrf', weights: { history: 0, literals: 0, coChange: 0 } }, environmentReports: 'keep' },
  { label: 'hybrid + structural', queries: 'raw+structural', options: { weights: { history: 0, literals: 0, coChange: 0 } }, environmentReports: 'keep' },
  { label: DEFAULT_LABEL, queries: 'raw+structural', options: {} },
  { label: 'default, RRF', queries: 'raw+structural', options: { fusion: 'rrf' } },
  { label: 'default, no definitions', queries: 'raw+structural', options: { weights: { definitions: 0 } } },
  { label: 'default, no paths', queries: 'raw+structural', options: { weights: { paths: 0 } } },
  { label: 'default, environment reports kept', queries: 'raw+structural', options: {}, environmentReports: 'keep' },
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
    { label: LEARNED_LABEL, queries: 'raw+structural', options: { fusion: 'learned', ...(model ? { rankerModel: path.resolve(model) } : {}) } },
    ...ablationFiles.map(
      (f): BenchConfig => ({
        label: `learned, ${f.replace(/\.json$/, '')}`,
        queries: 'raw+structural',
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
  { label: 'default, no literals', queries: 'raw+structural', options: { weights: { literals: 0 } } },
  { label: 'default, literals 1', queries: 'raw+structural', options: { weights: { literals: 1 } } },
  { label: 'default, literals 2', queries: 'raw+structural', options: { weights: { literals: 2 } } },
];

/**
 * Configuration keys and flags (the keys channel) and co-change with the files the issue names (issue 44): each
 * alone, and the default with each at other weights. Their default weights (keys 0, co-change 0.5) were chosen on
 * the development sets, never on Lite.
 */
export const EVIDENCE_CONFIGS: BenchConfig[] = [
  { label: 'keys alone (configuration keys, flags)', queries: 'raw', options: { weights: { ...OFF, keys: 1 } } },
  ...[0.25, 0.5, 1].map((keys): BenchConfig => ({ label: `default + keys ${keys}`, queries: 'raw+structural', options: { weights: { keys } } })),
  { label: 'co-change alone (with named files)', queries: 'raw+structural', options: { weights: { ...OFF, coChange: 1 } } },
  // a test file the issue names maps to the module it tests (rare: 3 of the 360 development issues name a test path)
  { label: 'default + tested modules 1', queries: 'raw+structural', options: { pathWeights: { testedModule: 1 } } },
  { label: 'default before issue 44 (no literals, no co-change)', queries: 'raw+structural', options: { weights: { literals: 0, coChange: 0 } } },
  { label: 'default, no co-change', queries: 'raw+structural', options: { weights: { coChange: 0 } } },
  ...[0.25, 1].map((coChange): BenchConfig => ({ label: `default, co-change ${coChange}`, queries: 'raw+structural', options: { weights: { coChange } } })),
];

/** with --graph: the graph channel at half the definition boost's weight (one step away counts half), and at its full weight */
export const GRAPH_CONFIGS: BenchConfig[] = [
  { label: 'default + graph 0.5', queries: 'raw+structural', options: { weights: { graph: 0.5 } } },
  { label: 'default + graph 1', queries: 'raw+structural', options: { weights: { graph: 1 } } },
];
