import { describe, expect, it } from 'vitest';
import { Bm25Index, queryTermsOf, sumTermVectors, TermDictionary, termVectorOf } from '../../src/index/bm25.ts';

describe('BM25', () => {
  // three documents whose tokens are plain words (no splitting happens)
  const dict = new TermDictionary();
  const docs = ['apple banana apple', 'banana cherry', 'cherry cherry cherry durian'].map((t) => termVectorOf(t, dict));

  it('matches a hand-computed score', () => {
    const index = new Bm25Index(docs, { k1: 1.2, b: 0.75 });
    expect(index.avgLength).toBeCloseTo(3, 10);
    // query "apple": only doc 0 (tf 2, |d| 3 = avgdl) → idf · 2·2.2 / (2 + 1.2)
    const idfApple = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const [hit] = index.search(queryTermsOf('apple', dict, 'raw'), 10);
    expect(hit.doc).toBe(0);
    expect(hit.score).toBeCloseTo((idfApple * 2 * 2.2) / (2 + 1.2), 10);

    // query "banana cherry": doc 1 has both (|d| 2), doc 0 banana (|d| 3), doc 2 cherry×3 (|d| 4)
    const idf2 = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const norm = (tf: number, len: number): number => (tf * 2.2) / (tf + 1.2 * (1 - 0.75 + (0.75 * len) / 3));
    const expected = [
      { doc: 1, score: idf2 * norm(1, 2) * 2 },
      { doc: 2, score: idf2 * norm(3, 4) },
      { doc: 0, score: idf2 * norm(1, 3) },
    ].sort((a, b) => b.score - a.score);
    const hits = index.search(queryTermsOf('banana cherry', dict, 'raw'), 10);
    expect(hits.map((h) => h.doc)).toEqual(expected.map((e) => e.doc));
    hits.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i].score, 10));
  });

  it('counts repeated query terms in raw mode and once in unique mode', () => {
    const index = new Bm25Index(docs);
    const once = index.search(queryTermsOf('durian', dict, 'raw'), 1)[0].score;
    expect(index.search(queryTermsOf('durian durian', dict, 'raw'), 1)[0].score).toBeCloseTo(2 * once, 10);
    expect(index.search(queryTermsOf('durian durian', dict, 'unique'), 1)[0].score).toBeCloseTo(once, 10);
  });

  it('returns nothing for unknown terms, k <= 0 or an empty corpus, and cuts at k', () => {
    const index = new Bm25Index(docs);
    expect(index.search(queryTermsOf('zebra', dict, 'raw'), 5)).toEqual([]);
    expect(index.search(queryTermsOf('cherry', dict, 'raw'), 0)).toEqual([]);
    expect(index.search(queryTermsOf('cherry', dict, 'raw'), 1)).toHaveLength(1);
    expect(new Bm25Index([]).search(queryTermsOf('cherry', dict, 'raw'), 5)).toEqual([]);
    // the query must not grow the dictionary
    const size = dict.size;
    queryTermsOf('brand new words here', dict, 'raw');
    expect(dict.size).toBe(size);
  });

  it('b = 0 ignores document length; bad settings are rejected', () => {
    const index = new Bm25Index(docs, { b: 0 });
    const [a] = index.search(queryTermsOf('cherry', dict, 'raw'), 3).filter((h) => h.doc === 1);
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    expect(a.score).toBeCloseTo((idf * 2.2) / (1 + 1.2), 10);
    expect(() => new Bm25Index(docs, { b: 2 })).toThrow(/b must be within/);
    expect(() => new Bm25Index(docs, { k1: -1 })).toThrow(/k1 must be/);
  });

  it('sums term vectors and subtracts a repeated header', () => {
    const d = new TermDictionary();
    const header = termVectorOf('header', d);
    const sum = sumTermVectors([termVectorOf('header alpha', d), termVectorOf('header beta beta', d)], header, 1);
    const expected = termVectorOf('header alpha beta beta', d);
    expect(Array.from(sum.terms)).toEqual(Array.from(expected.terms));
    expect(Array.from(sum.counts)).toEqual(Array.from(expected.counts));
    expect(sum.length).toBe(expected.length);
  });
});
