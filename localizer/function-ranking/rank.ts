/**
 * Function-level localization without a model: the functions, methods and classes of the files a file localizer
 * ranked first, scored by evidence the issue carries and fused by fixed weights (chosen on development sets,
 * BENCHMARKS.md "Function level without a model"). The channels, each in [0, 1] per instance:
 *
 *   lexical  BM25 of the issue over each element's own text, with its path and qualified name in front (the
 *            context a chunk of it would carry), normalised by the instance's best score
 *   title    the same for the issue's title alone (its one-line summary; retrieval/query.ts titleQuery)
 *   structural  the same for the names, paths and frames the issue carries (structuralQueryText)
 *   names    the issue names the element: `Class.method` (1), or its own name, weighed by where it was seen
 *            (traceback frame, backticks, code, prose) and divided among the candidates that share the name
 *   frames   a traceback frame in the element's file falls inside it, or names it; innermost frames weigh most
 *   owner    a method whose class the issue names (half of what naming the method itself gives)
 *   calls    one hop of the call graph from an element the issue names or a frame runs through
 *   size     the element's length, log-scaled (sizeScore)
 *   callable 1 for a function or method, 0 for a class: a class is the answer only when its constructor or its
 *            own body is edited, and its text (docstring, attributes) matches an issue's words more than its
 *            share of fixes
 *   literals the string literals of the element (error messages, log lines) the issue quotes, by rarity among the
 *            candidates and length (src/index/channels/literals.ts, which finds the file, says why)
 *   meaning  the same BM25 for the identifiers the repository's history associates with the issue's words
 *            (src/index/word-associations.ts: commit messages against the lines their commits changed)
 *   similar  functions past commits like the issue changed; churn: how often the element changed (history.ts)
 *   feedback the same BM25 for the words the first lexical ranking's best elements share (RM3; feedbackQuery)
 *   file     the element's file's place in the file ranking: 1 / rank
 *
 * Ties keep file rank, then source order, so the same input always gives the same ranking.
 */
import { Bm25Index, queryTermsOf, TermDictionary, termVectorOf } from '../../src/index/bm25.ts';
import { STOPWORDS } from '../../src/text/code-tokens.ts';
import { titleQuery } from '../retrieval/query.ts';
import { extractStructuralSignals, structuralQueryText, type MentionSource, type StructuralSignals } from '../retrieval/structural-query.ts';
import { literalFragments, MAX_LITERAL_QUERY, MIN_FRAGMENT, normalizeLiteral } from '../../src/index/channels/literals.ts';
import type { CommitChange } from '../../src/repo/change-history.ts';
import type { RankedElementCandidate } from './elements.ts';
import { historyChannels } from './history.ts';

export const ELEMENT_CHANNELS = [
  'lexical',
  'title',
  'structural',
  'names',
  'frames',
  'owner',
  'calls',
  'size',
  'callable',
  'literals',
  'meaning',
  'similar',
  'churn',
  'feedback',
  'file',
] as const;
export type ElementChannel = (typeof ELEMENT_CHANNELS)[number];
export type ElementWeights = Record<ElementChannel, number>;

export interface CandidateFile {
  path: string;
  /** 0 for the file ranked first */
  rank: number;
  elements: readonly RankedElementCandidate[];
}

export interface RankedElement extends RankedElementCandidate {
  score: number;
  channels: Record<ElementChannel, number>;
  fileRank: number;
}

const SOURCE_WEIGHT: Record<MentionSource, number> = { frame: 1, backtick: 0.8, code: 0.6, prose: 0.4 };

function lastPart(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** The path of a traceback frame and a repository path name one file (a frame often carries a site-packages prefix). */
function samePath(framePath: string, repoPath: string): boolean {
  return framePath === repoPath || framePath.endsWith(`/${repoPath}`) || repoPath.endsWith(`/${framePath}`);
}

/** documents of the first ranking whose words feed back (RM3), and the words taken */
const FEEDBACK_DOCS = 5;
const FEEDBACK_TERMS = 20;

/** BM25 of each query over the elements' texts (path and qualified name in front), each normalised by its best. */
function lexicalScores(queries: ReadonlyArray<string | undefined>, elements: readonly RankedElementCandidate[]): { scores: number[][]; feedback: number[] } {
  const dict = new TermDictionary();
  const docs = elements.map((e) => termVectorOf(`${e.path}\n${e.name.replace(/\./g, ' ')}\n${e.text}`, dict));
  const index = new Bm25Index(docs);
  const run = (query: Map<number, number>): number[] => {
    const scores = new Array<number>(elements.length).fill(0);
    const hits = index.search(query, elements.length);
    const best = hits[0]?.score ?? 0;
    if (best > 0) for (const h of hits) scores[h.doc] = h.score / best;
    return scores;
  };
  const scores = queries.map((query) => (query ? run(queryTermsOf(query, dict, 'raw')) : new Array<number>(elements.length).fill(0)));
  const issueTerms = queries[0] ? queryTermsOf(queries[0], dict, 'raw') : new Map<number, number>();
  return { scores, feedback: run(feedbackQuery(scores[0]!, docs, issueTerms, dict)) };
}

/**
 * Pseudo-relevance feedback (RM3's expansion, Lavrenko and Croft 2001): the words that weigh most in the first
 * ranking's best elements, each element's words by their share of its length times its score, the issue's own
 * words left out. It finds what the best matches have in common that the issue did not say.
 */
function feedbackQuery(
  first: readonly number[],
  docs: ReadonlyArray<ReturnType<typeof termVectorOf>>,
  issueTerms: ReadonlyMap<number, number>,
  dict: TermDictionary,
): Map<number, number> {
  const top = first
    .map((score, doc) => ({ score, doc }))
    .filter((d) => d.score > 0)
    .sort((a, b) => b.score - a.score || a.doc - b.doc)
    .slice(0, FEEDBACK_DOCS);
  const weight = new Map<number, number>();
  for (const { score, doc } of top) {
    const d = docs[doc]!;
    for (let i = 0; i < d.terms.length; i++) {
      const t = d.terms[i]!;
      const word = dict.term(t);
      // keywords and the path and name lines every element carries say nothing of what the best ones share
      if (issueTerms.has(t) || word.length < 3 || STOPWORDS.has(word) || /[./]/.test(word)) continue;
      weight.set(t, (weight.get(t) ?? 0) + (score * d.counts[i]!) / Math.max(1, d.length));
    }
  }
  const best = [...weight].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, FEEDBACK_TERMS);
  return new Map(best.map(([t]) => [t, 1]));
}

const CALL = /([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;

/**
 * One hop of the call graph among the candidates, by name: an element the issue names (or a frame runs through)
 * passes its evidence to the elements it calls and those that call it, at half strength. A reporter names the
 * API they called; the fault is often one call below it.
 */
function callScores(elements: readonly RankedElementCandidate[], evidence: readonly number[]): number[] {
  const byName = new Map<string, number[]>();
  elements.forEach((e, i) => byName.set(lastPart(e.name), [...(byName.get(lastPart(e.name)) ?? []), i]));
  const out = new Array<number>(elements.length).fill(0);
  elements.forEach((e, i) => {
    if (evidence[i]! <= 0) return;
    for (const m of e.text.matchAll(CALL)) {
      for (const j of byName.get(m[1]!) ?? []) {
        if (j === i) continue;
        out[j] = Math.max(out[j]!, evidence[i]! / 2);
        out[i] = Math.max(out[i]!, evidence[j]! / 2);
      }
    }
  });
  return out;
}

function mentionOf(signals: StructuralSignals): { named: Map<string, number>; qualified: Set<string> } {
  const named = new Map<string, number>();
  for (const n of signals.names) named.set(n.name, Math.max(named.get(n.name) ?? 0, SOURCE_WEIGHT[n.source]));
  for (const f of signals.frames) if (f.func) named.set(f.func, 1);
  return { named, qualified: new Set(signals.qualifiedNames) };
}

function namesScore(e: RankedElementCandidate, mention: ReturnType<typeof mentionOf>, sharing: ReadonlyMap<string, number>): number {
  if (mention.qualified.has(e.name) || [...mention.qualified].some((q) => q.endsWith(`.${e.name}`))) return 1;
  const own = lastPart(e.name);
  const seen = mention.named.get(own) ?? 0;
  return seen / Math.max(1, sharing.get(own) ?? 1);
}

function framesScore(e: RankedElementCandidate, signals: StructuralSignals): number {
  let best = 0;
  signals.frames.forEach((f, i) => {
    if (!samePath(f.path, e.path)) return;
    const inside = f.line >= e.startLine && f.line <= e.endLine;
    // a class's range holds its methods: a frame there is the class's only when it runs its constructor or body
    const hit = e.kind === 'class' ? inside && (f.func === '__init__' || f.func === lastPart(e.name)) : inside || f.func === lastPart(e.name);
    if (hit) best = Math.max(best, 1 / (i + 1));
  });
  return best;
}

function ownerScore(e: RankedElementCandidate, mention: ReturnType<typeof mentionOf>): number {
  if (e.kind !== 'function' || !e.name.includes('.')) return 0;
  const owner = lastPart(e.name.slice(0, e.name.lastIndexOf('.')));
  return (mention.named.get(owner) ?? 0) * 0.5;
}

/**
 * How long the element is against the longest candidate, on a log scale: size is the steadiest single predictor of
 * where defects are (defect-prediction studies since Akiyama 1971 and Menzies et al. 2007), and a fix is more
 * likely in a function of 80 lines than in a two-line accessor.
 */
function sizeScore(e: RankedElementCandidate, longest: number): number {
  return longest > 1 ? Math.log(e.endLine - e.startLine + 1) / Math.log(longest) : 0;
}

/**
 * The string literals of each element the issue quotes: Σ over its fragments in the issue of their rarity among the
 * candidates (log(1 + elements / elements holding it)) times √(length / MIN_FRAGMENT), normalised by the best.
 */
function literalScores(issue: string, elements: readonly RankedElementCandidate[]): number[] {
  const text = normalizeLiteral(issue.slice(0, 2 * MAX_LITERAL_QUERY)).slice(0, MAX_LITERAL_QUERY);
  const quoted = elements.map((e) => literalFragments(e.text).filter((f) => text.includes(f)));
  const holders = new Map<string, number>();
  for (const fragments of quoted) for (const f of fragments) holders.set(f, (holders.get(f) ?? 0) + 1);
  const scores = quoted.map((fragments) =>
    fragments.reduce((s, f) => s + Math.log(1 + elements.length / holders.get(f)!) * Math.sqrt(f.length / MIN_FRAGMENT), 0),
  );
  const best = Math.max(0, ...scores);
  return best > 0 ? scores.map((x) => x / best) : scores;
}

/** What the repository's history gives the ranking: the meaning query's text and the changes read (both optional). */
export interface ElementHistory {
  expansion?: string;
  changes?: readonly CommitChange[];
}

/** Every element of `files` with its channels for `issue` (in file-rank and source order, not yet scored). */
export function elementChannels(issue: string, files: readonly CandidateFile[], history: ElementHistory = {}): RankedElement[] {
  const elements = files.flatMap((f) => f.elements.map((e) => ({ e, fileRank: f.rank })));
  if (elements.length === 0) return [];
  const signals = extractStructuralSignals(issue);
  const mention = mentionOf(signals);
  const sharing = new Map<string, number>();
  for (const { e } of elements) sharing.set(lastPart(e.name), (sharing.get(lastPart(e.name)) ?? 0) + 1);
  const plain = elements.map((x) => x.e);
  const lexicalRuns = lexicalScores([issue, titleQuery(issue)?.text, structuralQueryText(signals) || undefined, history.expansion || undefined], plain);
  const [lexical, title, structural, meaning] = lexicalRuns.scores;
  const names = plain.map((e) => namesScore(e, mention, sharing));
  const frames = plain.map((e) => framesScore(e, signals));
  const longest = Math.max(...plain.map((e) => e.endLine - e.startLine + 1));
  const literals = literalScores(issue, plain);
  const past = historyChannels(issue, plain, history.changes);
  const calls = callScores(
    plain,
    plain.map((_, i) => Math.max(names[i]!, frames[i]!)),
  );
  return elements.map(({ e, fileRank }, i) => ({
    ...e,
    score: 0,
    fileRank,
    channels: {
      lexical: lexical![i]!,
      title: title![i]!,
      structural: structural![i]!,
      names: names[i]!,
      frames: frames[i]!,
      owner: ownerScore(e, mention),
      calls: calls[i]!,
      size: sizeScore(e, longest),
      callable: e.kind === 'function' ? 1 : 0,
      literals: literals[i]!,
      meaning: meaning![i]!,
      similar: past.similar[i]!,
      churn: past.churn[i]!,
      feedback: lexicalRuns.feedback[i]!,
      file: 1 / (fileRank + 1),
    },
  }));
}

/** The elements scored by `weights`, best first; ties keep file rank, then the order given. */
export function orderByWeights<E extends Pick<RankedElement, 'channels' | 'fileRank'>>(
  elements: readonly E[],
  weights: ElementWeights,
): Array<E & { score: number }> {
  return elements
    .map((e, order) => ({ e: { ...e, score: ELEMENT_CHANNELS.reduce((s, c) => s + weights[c] * (e.channels[c] ?? 0), 0) }, order }))
    .sort((a, b) => b.e.score - a.e.score || a.e.fileRank - b.e.fileRank || a.order - b.order)
    .map((x) => x.e);
}

/**
 * Where each gold key stands in orderByWeights' order, without sorting every candidate: the order is by score, then
 * file rank, then the order given, so a key's place is the number of candidates ahead of its best copy. The ranking
 * returned holds the gold keys at those places and nothing elsewhere, which elementMetrics reads as the full ranking
 * (tuning scores thousands of weightings; sorting every candidate each time was most of its time).
 */
export function goldPlaces(
  candidates: ReadonlyArray<{ key: string; fileRank: number; channels: Partial<Record<ElementChannel, number>> }>,
  gold: readonly string[],
  weights: ElementWeights,
): string[] {
  const scores = candidates.map((c) => ELEMENT_CHANNELS.reduce((s, ch) => s + weights[ch] * (c.channels[ch] ?? 0), 0));
  const ahead = (g: number): number => {
    let n = 0;
    for (let j = 0; j < scores.length; j++) {
      const d = scores[j]! - scores[g]!;
      if (d > 0 || (d === 0 && (candidates[j]!.fileRank < candidates[g]!.fileRank || (candidates[j]!.fileRank === candidates[g]!.fileRank && j < g)))) n++;
    }
    return n;
  };
  const ranking: string[] = [];
  for (const key of gold) {
    let place = Number.POSITIVE_INFINITY;
    candidates.forEach((c, i) => {
      if (c.key === key) place = Math.min(place, ahead(i));
    });
    if (Number.isFinite(place)) ranking[place] = key;
  }
  return Array.from(ranking, (key) => key ?? '');
}

/** The elements of `files` ranked for `issue`, best first. */
export function rankElements(issue: string, files: readonly CandidateFile[], weights: ElementWeights, history: ElementHistory = {}): RankedElement[] {
  return orderByWeights(elementChannels(issue, files, history), weights);
}
