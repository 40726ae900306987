/**
 * Some embedding models were trained with task prefixes and lose accuracy without them:
 * nomic-embed-text wants "search_document: " on indexed texts and "search_query: " on queries.
 * Prefixes are a setting; the default applies them only to models known to need them.
 */
export interface TaskPrefixes {
  document: string;
  query: string;
}

export const NO_PREFIXES: TaskPrefixes = { document: '', query: '' };
export const NOMIC_PREFIXES: TaskPrefixes = { document: 'search_document: ', query: 'search_query: ' };

/** Default prefixes for a model name: nomic-style models get theirs, everything else none. */
export function defaultPrefixesFor(model: string): TaskPrefixes {
  return /nomic-embed/i.test(model) ? NOMIC_PREFIXES : NO_PREFIXES;
}

/** Short tag for embedder ids, so a change of prefixes changes cache keys. */
export function prefixTag(p: TaskPrefixes): string {
  if (p.document === '' && p.query === '') return 'noprefix';
  if (p.document === NOMIC_PREFIXES.document && p.query === NOMIC_PREFIXES.query) return 'nomicprefix';
  return `prefix=${JSON.stringify([p.document, p.query])}`;
}

/** Splits `items` into consecutive batches of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`batch size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The two Embedder calls of a remote model, given its one request (`embedBatch`: texts in, vectors out, same
 * order): documents get the document prefix and go `batchSize` at a time, one after the other (a local
 * model server is saturated by one request); a query gets the query prefix.
 */
export function prefixedEmbedCalls(
  prefixes: TaskPrefixes,
  batchSize: number,
  embedBatch: (input: string[]) => Promise<number[][]>,
): { embedDocuments(texts: readonly string[]): Promise<number[][]>; embedQuery(text: string): Promise<number[]> } {
  return {
    async embedDocuments(texts) {
      const out: number[][] = [];
      for (const batch of batches(texts, batchSize)) out.push(...(await embedBatch(batch.map((t) => prefixes.document + t))));
      return out;
    },
    async embedQuery(text) {
      const [vector] = await embedBatch([prefixes.query + text]);
      return vector!;
    },
  };
}
