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

/** Inverted lists over a fixed set of documents (compressed sparse rows keyed by term id). */
export class Bm25Index {
  readonly settings: Bm25Settings;
  readonly docCount: number;
  readonly avgLength: number;
  private readonly offsets: Map<number, number>;
  private readonly lengthsByTerm: Map<number, number>;
  private readonly postingDocs: Uint32Array;
  private readonly postingCounts: Uint32Array;
  private readonly docLengths: Float64Array;

  constructor(docs: readonly TermVector[], settings: Partial<Bm25Settings> = {}) {
    this.settings = { ...DEFAULT_BM25, ...settings };
    if (!(this.settings.k1 >= 0)) throw new Error(`BM25 k1 must be >= 0, got ${this.settings.k1}`);
    if (!(this.settings.b >= 0 && this.settings.b <= 1)) throw new Error(`BM25 b must be within [0, 1], got ${this.settings.b}`);
    this.docCount = docs.length;
    this.docLengths = new Float64Array(docs.length);
    // pass 1: document frequencies
    const df = new Map<number, number>();
    let total = 0;
    let postings = 0;
    for (let d = 0; d < docs.length; d++) {
      const doc = docs[d];
      this.docLengths[d] = doc.length;
      total += doc.length;
      postings += doc.terms.length;
      for (let i = 0; i < doc.terms.length; i++) {
        const t = doc.terms[i];
        df.set(t, (df.get(t) ?? 0) + 1);
      }
    }
    this.avgLength = docs.length ? total / docs.length : 0;
    // pass 2: offsets, then fill
    this.offsets = new Map();
    this.lengthsByTerm = df;
    let at = 0;
    for (const [t, n] of df) {
      this.offsets.set(t, at);
      at += n;
    }
    this.postingDocs = new Uint32Array(postings);
    this.postingCounts = new Uint32Array(postings);
    const fill = new Map<number, number>();
    for (let d = 0; d < docs.length; d++) {
      const doc = docs[d];
      for (let i = 0; i < doc.terms.length; i++) {
        const t = doc.terms[i];
        const base = this.offsets.get(t) as number;
        const k = fill.get(t) ?? 0;
        fill.set(t, k + 1);
        this.postingDocs[base + k] = d;
        this.postingCounts[base + k] = doc.counts[i];
      }
    }
  }

  /** number of documents containing the term */
  documentFrequency(term: number): number {
    return this.lengthsByTerm.get(term) ?? 0;
  }

  idf(term: number): number {
    const df = this.documentFrequency(term);
    return Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
  }

  /** all documents with a positive score, best first (ties by document order), at most k */
  search(query: Map<number, number>, k: number): Bm25Hit[] {
    if (k <= 0 || this.docCount === 0) return [];
    const { k1, b } = this.settings;
    const scores = new Float64Array(this.docCount);
    const touched: number[] = [];
    const avg = this.avgLength || 1;
    for (const [term, qtf] of query) {
      const n = this.lengthsByTerm.get(term);
      if (!n) continue;
      const base = this.offsets.get(term) as number;
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
