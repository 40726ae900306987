/**
 * The learned ranker's features (issue 34): what the model-free retriever already knows about a candidate file,
 * as numbers. Every feature is generic — a channel's score and rank, how many queries agree, what the path looks
 * like, whether the query names it — and none is a file's or a repository's identity, so a model learns how to
 * weigh evidence, not which files are popular.
 *
 * Features are grouped (the `group` of each) so that the benchmark can ablate one group at a time. The list and
 * its order are part of a model file's contract: FEATURE_SET_VERSION changes whenever a feature's meaning does.
 */
import { isTestPath } from '../../../src/index/file-filter.ts';
import type { FileFacts } from '../../../src/index/types.ts';
import { rankFiles, type Channel, type RankedFile } from '../fusion.ts';
import type { RetrievalQuery } from '../query.ts';

export const FEATURE_SET_VERSION = 2;

/** the retriever's channel kinds (a channel's label is `<query label>/<kind>`) */
export const CHANNEL_KINDS = ['dense', 'chunkBm25', 'fileBm25', 'history', 'definitions', 'paths', 'graph', 'literals', 'keys', 'coChange'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export type FeatureGroup = 'text' | 'history' | 'structure' | 'quoted' | 'fusion' | 'path' | 'file' | 'query';

const GROUP_OF_KIND: Record<ChannelKind, FeatureGroup> = {
  dense: 'text',
  chunkBm25: 'text',
  fileBm25: 'text',
  history: 'history',
  definitions: 'structure',
  paths: 'structure',
  graph: 'structure',
  // what the issue quotes: messages (literals) and configuration keys and flags
  literals: 'quoted',
  keys: 'quoted',
  coChange: 'history',
};

export interface FeatureSpec {
  name: string;
  group: FeatureGroup;
  /** evidence for the file: a trainer may keep the score from falling as it grows */
  increasing?: true;
}

export const FEATURES: readonly FeatureSpec[] = [
  ...CHANNEL_KINDS.flatMap((kind) => [
    // the best normalized score over the queries (score / the channel's best score)
    { name: `${kind}.score`, group: GROUP_OF_KIND[kind], increasing: true as const },
    // 1 / the best rank over the queries
    { name: `${kind}.rr`, group: GROUP_OF_KIND[kind], increasing: true as const },
    // the share of this kind's channels (one per query) that returned the file
    { name: `${kind}.queries`, group: GROUP_OF_KIND[kind], increasing: true as const },
    // how far the channel's best file is ahead of its second (a sure channel says so); only on its best file
    { name: `${kind}.lead`, group: GROUP_OF_KIND[kind] },
  ]),
  { name: 'fused.score', group: 'fusion', increasing: true },
  { name: 'fused.rr', group: 'fusion', increasing: true },
  { name: 'rrf.score', group: 'fusion', increasing: true },
  { name: 'channels.agree', group: 'fusion', increasing: true },
  { name: 'path.depth', group: 'path' },
  { name: 'path.test', group: 'path' },
  { name: 'path.package', group: 'path' },
  { name: 'path.auxiliary', group: 'path' },
  { name: 'path.stemNamed', group: 'path', increasing: true },
  { name: 'path.partsNamed', group: 'path', increasing: true },
  { name: 'path.dirsNamed', group: 'path', increasing: true },
  // size in bytes (log2); how many of the recent commits changed it; 1 / (1 + how many commits ago it last changed)
  { name: 'file.size', group: 'file' },
  { name: 'file.changes', group: 'file' },
  { name: 'file.recency', group: 'file' },
  { name: 'query.length', group: 'query' },
  { name: 'query.structure', group: 'query' },
];

export const FEATURE_NAMES: readonly string[] = FEATURES.map((f) => f.name);
const INDEX = new Map(FEATURE_NAMES.map((n, i) => [n, i]));

/** `__init__.py`, `index.js`, `mod.rs`, `lib.rs`: files that stand for their folder */
const PACKAGE_FILE = /^(?:__init__|index|mod|lib|main|package-info)$/;
/** folders of code that is not the library itself */
const AUXILIARY_DIR = /(?:^|\/)(?:docs?|examples?|benchmarks?|asv_bench|scripts?|tools?|contrib|extern|vendor|third_party|ci|\.github)\//i;

function tokensOf(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const word of text.match(/[A-Za-z0-9_]+/g) ?? []) {
    const lower = word.toLowerCase();
    tokens.add(lower);
    // snake_case and camelCase parts, so `get_cookie_name` names `cookie`
    for (const part of word.split(/_+|(?<=[a-z0-9])(?=[A-Z])/)) if (part.length >= 3) tokens.add(part.toLowerCase());
  }
  return tokens;
}

function stemOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return (dot > 0 ? file.slice(0, dot) : file).replace(/^_+|_+$/g, '').toLowerCase();
}

interface ChannelView {
  kind: ChannelKind;
  ranks: Map<string, number>;
  max: number;
  scores: ReadonlyMap<string, number>;
  best?: string;
  lead: number;
}

function viewOf(channel: Channel): ChannelView | undefined {
  const kind = channel.label.slice(channel.label.lastIndexOf('/') + 1) as ChannelKind;
  if (!GROUP_OF_KIND[kind] || channel.weight === 0) return undefined;
  const ranked = rankFiles(channel.scores).filter((f) => f.score > 0);
  const max = ranked[0]?.score ?? 0;
  const ranks = new Map(ranked.map((f, i) => [f.path, i + 1]));
  const lead = ranked.length === 0 ? 0 : ranked.length === 1 ? 1 : (ranked[0]!.score - ranked[1]!.score) / max;
  return { kind, ranks, max, scores: channel.scores, best: ranked[0]?.path, lead };
}

export interface FeatureInput {
  channels: readonly Channel[];
  queries: readonly RetrievalQuery[];
  /** the candidates, best first, with their weighted-fusion score */
  candidates: readonly RankedFile[];
  /** each candidate's reciprocal-rank-fusion score */
  rrf: ReadonlyMap<string, number>;
  /** sizes and recent changes (absent: those features are 0) */
  facts?: FileFacts;
}

/** One feature vector per candidate, in FEATURE_NAMES order. */
export function candidateFeatures(input: FeatureInput): Float64Array[] {
  const views = input.channels.map(viewOf).filter((v): v is ChannelView => v !== undefined);
  const kindsPresent = new Map<ChannelKind, number>();
  for (const v of views) kindsPresent.set(v.kind, (kindsPresent.get(v.kind) ?? 0) + 1);
  const queryTokens = tokensOf(input.queries.map((q) => q.text).join('\n'));
  const rawWords = (input.queries[0]?.text.match(/\S+/g) ?? []).length;
  const structure = views.some((v) => (v.kind === 'paths' || v.kind === 'definitions') && v.max > 0) ? 1 : 0;
  const fusedMax = input.candidates[0]?.score ?? 0;
  let rrfMax = 0;
  for (const s of input.rrf.values()) if (s > rrfMax) rrfMax = s;

  return input.candidates.map((candidate, position) => {
    const x = new Float64Array(FEATURE_NAMES.length);
    const set = (name: string, value: number) => {
      x[INDEX.get(name)!] = value;
    };
    const agreeing = new Set<ChannelKind>();
    for (const v of views) {
      const rank = v.ranks.get(candidate.path);
      if (rank === undefined) continue;
      agreeing.add(v.kind);
      const score = (v.scores.get(candidate.path) ?? 0) / v.max;
      const i = INDEX.get(`${v.kind}.score`)!;
      x[i] = Math.max(x[i] ?? 0, score);
      x[i + 1] = Math.max(x[i + 1] ?? 0, 1 / rank);
      x[i + 2] = (x[i + 2] ?? 0) + 1 / kindsPresent.get(v.kind)!;
      if (v.best === candidate.path) x[i + 3] = Math.max(x[i + 3] ?? 0, v.lead);
    }
    set('fused.score', fusedMax > 0 ? candidate.score / fusedMax : 0);
    set('fused.rr', 1 / (position + 1));
    set('rrf.score', rrfMax > 0 ? (input.rrf.get(candidate.path) ?? 0) / rrfMax : 0);
    set('channels.agree', agreeing.size / CHANNEL_KINDS.length);
    pathFeatures(candidate.path, queryTokens, set);
    if (input.facts) factFeatures(candidate.path, input.facts, set);
    set('query.length', Math.log1p(rawWords));
    set('query.structure', structure);
    return x;
  });
}

function factFeatures(filePath: string, facts: FileFacts, set: (name: string, value: number) => void): void {
  const size = Object.hasOwn(facts.size, filePath) ? facts.size[filePath]! : 0;
  set('file.size', Math.log2(1 + size));
  const changed = Object.hasOwn(facts.changes, filePath) ? facts.changes[filePath] : undefined;
  set('file.changes', changed?.count ?? 0);
  set('file.recency', changed ? 1 / (1 + changed.newest) : 0);
}

function pathFeatures(filePath: string, queryTokens: ReadonlySet<string>, set: (name: string, value: number) => void): void {
  const segments = filePath.split('/');
  const file = segments[segments.length - 1]!;
  const stem = stemOf(file);
  const dirs = segments.slice(0, -1).map((d) => d.toLowerCase());
  set('path.depth', segments.length);
  set('path.test', isTestPath(filePath) ? 1 : 0);
  set('path.package', PACKAGE_FILE.test(stem) ? 1 : 0);
  set('path.auxiliary', AUXILIARY_DIR.test(filePath) ? 1 : 0);
  set('path.stemNamed', stem.length >= 3 && queryTokens.has(stem) ? 1 : 0);
  const parts = stem.split(/[_\-.]+/).filter((p) => p.length >= 3);
  set('path.partsNamed', parts.length ? parts.filter((p) => queryTokens.has(p)).length / parts.length : 0);
  const namedDirs = dirs.filter((d) => d.length >= 3);
  set('path.dirsNamed', namedDirs.length ? namedDirs.filter((d) => queryTokens.has(d)).length / namedDirs.length : 0);
}
