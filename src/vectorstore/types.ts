/**
 * Vector storage behind a small interface. Vectors are always computed by locfix's own Embedder and
 * handed over; the store never embeds.
 */
export type VectorMetadata = Record<string, string | number | boolean>;

export interface VectorRecord {
  id: string;
  embedding: readonly number[] | Float32Array;
  metadata?: VectorMetadata;
}

export interface VectorHit {
  id: string;
  /** cosine similarity (1 = same direction) */
  score: number;
  metadata?: VectorMetadata;
}

export interface VectorQueryOptions {
  /** only these record ids may be returned (pre-filter inside the store) */
  ids?: readonly string[];
  /** only records whose metadata field has one of these values (pre-filter inside the store) */
  whereIn?: { field: string; values: readonly (string | number)[] };
  /** return metadata with hits; default false */
  includeMetadata?: boolean;
}

export interface VectorCollection {
  readonly name: string;
  /** number of records */
  count(): Promise<number>;
  /** the subset of `ids` that are stored */
  existing(ids: readonly string[]): Promise<Set<string>>;
  /** insert or replace records */
  upsert(records: readonly VectorRecord[]): Promise<void>;
  /** nearest records by cosine similarity, best first */
  query(embedding: readonly number[] | Float32Array, k: number, options?: VectorQueryOptions): Promise<VectorHit[]>;
  delete(ids: readonly string[]): Promise<void>;
}

export interface VectorStore {
  /** a collection, created empty when missing; names: 3–63 chars of [A-Za-z0-9._-] */
  collection(name: string): Promise<VectorCollection>;
  deleteCollection(name: string): Promise<void>;
}
