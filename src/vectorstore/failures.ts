/**
 * A vector store whose failures say so: every error of the store or of one of its collections is rethrown as a
 * `vector-store-failed` KindedError naming the store. Untyped, a Chroma that stopped answering was recorded as the
 * localizer's own failure and judged an empty patch (issue 52); typed, the instance is not reached, by the
 * infrastructure. A full disk on this host's own write and an error already typed keep their own kind.
 */
import { KindedError } from '../run/kinded-error.ts';
import { isDiskFull } from '../util/disk-full.ts';
import { ERROR_KINDS } from '../util/error-kinds.ts';
import type { VectorCollection, VectorStore } from './types.ts';

function typed(err: unknown, where: string): unknown {
  if (err instanceof KindedError || isDiskFull(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new KindedError(ERROR_KINDS.vectorStoreFailed, `the vector store (${where}) failed: ${message}`, undefined, { cause: err });
}

async function guarded<T>(where: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw typed(err, where);
  }
}

function typedCollection(collection: VectorCollection, where: string): VectorCollection {
  const at = `${where}, collection ${collection.name}`;
  return {
    name: collection.name,
    count: () => guarded(at, () => collection.count()),
    existing: (ids) => guarded(at, () => collection.existing(ids)),
    upsert: (records) => guarded(at, () => collection.upsert(records)),
    query: (embedding, k, options) => guarded(at, () => collection.query(embedding, k, options)),
    delete: (ids) => guarded(at, () => collection.delete(ids)),
  };
}

/** `store` with its failures typed; `where` names it in messages ("Chroma at http://127.0.0.1:8000"). */
export function withTypedFailures(store: VectorStore, where: string): VectorStore {
  return {
    collection: async (name) => typedCollection(await guarded(where, () => store.collection(name)), where),
    deleteCollection: (name) => guarded(where, () => store.deleteCollection(name)),
  };
}

/** Opening the store failed (a Chroma that would not start): typed like its calls. */
export function storeOpenFailure(err: unknown, where: string): unknown {
  return typed(err, where);
}
