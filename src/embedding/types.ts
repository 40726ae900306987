/**
 * Embedders turn text into vectors. Documents and queries are separate calls because some models need
 * different prefixes for them (nomic-embed-text: "search_document: " / "search_query: ").
 */
export interface Embedder {
  /** stable identifier that names model and settings; part of every cache key, e.g. "lexical:v1:1024" */
  readonly id: string;
  embedDocuments(texts: readonly string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}
