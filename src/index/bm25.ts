/**
 * Okapi BM25 over code-aware tokens (src/text/code-tokens.ts).
 *
 * Documents are stored as term-frequency vectors over a shared term dictionary (integer term ids), so a
 * document's tokenization is done once per blob and reused by every commit that contains it; a commit's
 * index is then only the inverted lists over its documents, built in one counting pass.
 *
 * score(q, d) = Σ_{t ∈ q} idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 * idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))   (never negative, as in Lucene)
 */
import { forEachCodeToken } from '../text/code-tokens.ts';

export interface Bm25Settings {
  /** term-frequency saturation; default 1.2 */
  k1: number;
  /** length normalization; default 0.75 */
  b: number;
  /** 'raw': a query term counts as often as it occurs (rank_bm25's behaviour); 'unique': once */
  queryTerms: 'raw' | 'unique';
}

export const DEFAULT_BM25: Bm25Settings = { k1: 1.2, b: 0.75, queryTerms: 'raw' };

/** Interns token strings to dense integer ids. One dictionary is shared by all indexes of a process. */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];

  get size(): number {
    return this.terms.length;
  }

  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  /** id of a known term, or undefined (queries must not grow the dictionary) */
  lookup(term: string): number | undefined {
    return this.ids.get(term);
  }

  term(id: number): string {
    return this.terms[id];
  }
}

/** A document as sorted unique term ids with their counts. */
export interface TermVector {
  terms: Uint32Array;
  counts: Uint32Array;
  /** number of tokens (document length for BM25) */
  length: number;
}

export function termVectorOf(text: string, dict: TermDictionary): TermVector {
  const counts = new Map<number, number>();
  let length = 0;
  forEachCodeToken(text, (token) => {
    const id = dict.idOf(token);
    counts.set(id, (counts.get(id) ?? 0) + 1);
    length++;
  });
  const terms = Uint32Array.from(counts.keys()).sort();
  const out = new Uint32Array(terms.length);
  for (let i = 0; i < terms.length; i++) out[i] = counts.get(terms[i]) as number;
  return { terms, counts: out, length };
}

/**
 * Sum of term vectors, minus `subtract` × `repeated` (used to build a whole-file document from its chunks
 * without counting the path line that every chunk repeats).
 */
export function sumTermVectors(vectors: readonly TermVector[], repeated?: TermVector, subtract = 0): TermVector {
  const counts = new Map<number, number>();
  let length = 0;
  for (const v of vectors) {
    length += v.length;
    for (let i = 0; i < v.terms.length; i++) counts.set(v.terms[i], (counts.get(v.terms[i]) ?? 0) + v.counts[i]);
  }
  if (repeated && subtract > 0) {
    length -= repeated.length * subtract;
    for (let i = 0; i < repeated.terms.length; i++) {
      const t = repeated.terms[i];
      const left = (counts.get(t) ?? 0) - repeated.counts[i] * subtract;
      if (left > 0) counts.set(t, left);
      else counts.delete(t);
    }
  }
  const terms = Uint32Array.from(counts.keys()).sort();
  const out = new Uint32Array(terms.length);
  for (let i = 0; i < terms.length; i++) out[i] = counts.get(terms[i]) as number;
  return { terms, counts: out, length: Math.max(0, length) };
}

/** Term ids of a query with their query-side counts; tokens unknown to the dictionary cannot match anything. */
export function queryTermsOf(text: string, dict: TermDictionary, mode: Bm25Settings['queryTerms']): Map<number, number> {
  const out = new Map<number, number>();
  forEachCodeToken(text, (token) => {
    const id = dict.lookup(token);
    if (id === undefined) return;
    out.set(id, mode === 'unique' ? 1 : (out.get(id) ?? 0) + 1);
  });
  return out;
}

export interface Bm25Hit {
  /** index of the document in the array the index was built from */
  doc: number;
  score: number;
}

/** Inverted lists over a fixed set of documents (compressed sparse rows indexed by term id). */
export class Bm25Index {
  readonly settings: Bm25Settings;
  readonly docCount: number;
  readonly avgLength: number;
  /** postings of term t are [offsets[t], offsets[t+1]) */
  private readonly offsets: Uint32Array;
  private readonly postingDocs: Uint32Array;
  private readonly postingCounts: Uint32Array;
  private readonly docLengths: Float64Array;

  constructor(docs: readonly TermVector[], settings: Partial<Bm25Settings> = {}) {
    this.settings = { ...DEFAULT_BM25, ...settings };
    if (!(this.settings.k1 >= 0)) throw new Error(`BM25 k1 must be >= 0, got ${this.settings.k1}`);
    if (!(this.settings.b >= 0 && this.settings.b <= 1)) throw new Error(`BM25 b must be within [0, 1], got ${this.settings.b}`);
    this.docCount = docs.length;
    this.docLengths = new Float64Array(docs.length);
    let maxTerm = -1;
    let total = 0;
    let postings = 0;
    for (let d = 0; d < docs.length; d++) {
      const doc = docs[d];
      this.docLengths[d] = doc.length;
      total += doc.length;
      postings += doc.terms.length;
      // terms are sorted: the last is the largest
      if (doc.terms.length > 0 && doc.terms[doc.terms.length - 1] > maxTerm) maxTerm = doc.terms[doc.terms.length - 1];
    }
    this.avgLength = docs.length ? total / docs.length : 0;
    // counting pass → offsets → fill pass
    const offsets = new Uint32Array(maxTerm + 2);
    for (const doc of docs) for (let i = 0; i < doc.terms.length; i++) offsets[doc.terms[i] + 1]++;
    for (let t = 1; t < offsets.length; t++) offsets[t] += offsets[t - 1];
    const cursor = offsets.slice(0, Math.max(0, offsets.length - 1));
    this.postingDocs = new Uint32Array(postings);
    this.postingCounts = new Uint32Array(postings);
    for (let d = 0; d < docs.length; d++) {
      const doc = docs[d];
      for (let i = 0; i < doc.terms.length; i++) {
        const at = cursor[doc.terms[i]]++;
        this.postingDocs[at] = d;
        this.postingCounts[at] = doc.counts[i];
      }
    }
    this.offsets = offsets;
  }

  /** number of documents containing the term */
  documentFrequency(term: number): number {
    if (term + 1 >= this.offsets.length) return 0;
    return this.offsets[term + 1] - this.offsets[term];
  }

  idf(term: number): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /** documents with a positive score, best first (ties by document order), at most k */
  search(query: Map<number, number>, k: number): Bm25Hit[] {
    if (k <= 0 || this.docCount === 0) return [];
    const { k1, b } = this.settings;
    const scores = new Float64Array(this.docCount);
    const touched: number[] = [];
    const avg = this.avgLength || 1;
    for (const [term, qtf] of query) {
      const n = this.documentFrequency(term);
      if (n === 0) continue;
      const base = this.offsets[term];
      const idf = this.idf(term) * qtf;
      for (let i = base; i < base + n; i++) {
        const d = this.postingDocs[i];
        const tf = this.postingCounts[i];
        const norm = tf + k1 * (1 - b + (b * this.docLengths[d]) / avg);
        if (scores[d] === 0) touched.push(d);
        scores[d] += (idf * tf * (k1 + 1)) / norm;
      }
    }
    const hits: Bm25Hit[] = [];
    for (const d of touched) if (scores[d] > 0) hits.push({ doc: d, score: scores[d] });
    hits.sort((x, y) => y.score - x.score || x.doc - y.doc);
    return hits.length > k ? hits.slice(0, k) : hits;
  }
}
