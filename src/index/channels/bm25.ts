/** The lexical channel: BM25 over this commit's chunks and over its whole files (path + content). */
import { Bm25Index, queryTermsOf } from '../bm25.ts';
import type { ChunkHit, FileHit } from '../types.ts';
import type { IndexChannel } from './types.ts';

export interface Bm25Part {
  searchChunksBm25(query: string, k: number): Promise<ChunkHit[]>;
  searchFilesBm25(query: string, k: number): Promise<FileHit[]>;
}

export const bm25Channel: IndexChannel<Bm25Part> = {
  name: 'bm25',
  async open({ deps, memo, timings }) {
    return {
      async finish(records) {
        const t = performance.now();
        const chunks = records.flatMap((r) => r.chunks);
        const chunkBm25 = new Bm25Index(
          records.flatMap((r) => r.chunkTerms),
          deps.bm25,
        );
        const fileBm25 = new Bm25Index(
          records.map((r) => r.fileTerms),
          deps.bm25,
        );
        timings.bm25Ms = performance.now() - t;
        return {
          searchChunksBm25: async (query, k) =>
            chunkBm25.search(queryTermsOf(query, memo.terms, chunkBm25.settings.queryTerms), k).map((h) => ({ chunk: chunks[h.doc], score: h.score })),
          searchFilesBm25: async (query, k) =>
            fileBm25.search(queryTermsOf(query, memo.terms, fileBm25.settings.queryTerms), k).map((h) => ({ path: records[h.doc].file.path, score: h.score })),
        };
      },
    };
  },
};
