/**
 * Where the benchmarks find their inputs: a flag, else an environment variable, else a clear error. No machine's
 * own path is written into the repository (a user's machine has none of them).
 *
 *   --dataset FILE   or LOCFIX_DATASET   SWE-bench rows (JSONL, JSON or parquet; a Hub name where the bench loads one)
 *   --mirrors DIR    or LOCFIX_MIRRORS   bare git mirrors laid out as owner+name/repo
 */

const SOURCES = {
  dataset: { env: 'LOCFIX_DATASET', what: 'the SWE-bench rows to run on (e.g. the Lite rows, swe-bench-lite.jsonl)' },
  mirrors: { env: 'LOCFIX_MIRRORS', what: 'a folder of bare git mirrors laid out as owner+name/repo' },
} as const;

/** `--dataset` / `--mirrors` as given, else from the environment, else an error that says how to give it. */
export function benchInput(values: { dataset?: string | string[]; mirrors?: string }, name: keyof typeof SOURCES): string {
  const given = values[name];
  const value = (Array.isArray(given) ? given[0] : given) ?? process.env[SOURCES[name].env];
  if (!value) throw new Error(`this benchmark needs ${SOURCES[name].what}: pass --${name} or set ${SOURCES[name].env}`);
  return value;
}

/** Several datasets: the repeated flag, else LOCFIX_DATASET as a comma-separated list. */
export function benchDatasets(given: readonly string[] | undefined): string[] {
  if (given?.length) return [...given];
  const fromEnv =
    process.env.LOCFIX_DATASET?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  if (!fromEnv.length) throw new Error(`this benchmark needs ${SOURCES.dataset.what}: pass --dataset (repeatable) or set LOCFIX_DATASET (comma-separated)`);
  return fromEnv;
}
