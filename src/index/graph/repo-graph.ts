/**
 * The code graph of a repository commit, built incrementally: file facts are reused by (blob, path) —
 * from this process's memo, else from the facts file on disk — so the next commit parses only the files
 * that changed; the graph itself is rebuilt from the facts (resolution depends on every file).
 */
import { createFileVerdict, type FileFilterOptions, resolveFileFilter } from '../file-filter.ts';
import type { RepoSnapshot } from '../../repo/types.ts';
import { type BuiltGraph, buildCodeGraph } from './build.ts';
import { FactsStore } from './facts-store.ts';
import { type FileFacts, fileFacts } from './file-facts.ts';

export interface RepoGraphTimings {
  listMs: number;
  readMs: number;
  factsMs: number;
  buildMs: number;
  totalMs: number;
  files: number;
  /** facts reused from this process or restored from disk, and files parsed */
  filesReused: number;
  filesRestored: number;
  filesParsed: number;
}

export interface RepoGraph extends BuiltGraph {
  repo: string;
  commit: string;
  timings: RepoGraphTimings;
}

export interface RepoGraphDeps {
  /** facts are kept under `<cacheDir>/graph/`; without it nothing is persisted */
  cacheDir?: string;
  /** per-process facts by repo + blob + path; share one across builds to make the next commit cheap */
  memo?: Map<string, FileFacts>;
  /** which files are nodes; default: the main language family's source files, tests kept (LocAgent keeps them) */
  fileFilter?: FileFilterOptions;
}

const now = () => performance.now();

export async function buildRepoGraph(snapshot: RepoSnapshot, deps: RepoGraphDeps = {}): Promise<RepoGraph> {
  const t0 = now();
  const timings: RepoGraphTimings = { listMs: 0, readMs: 0, factsMs: 0, buildMs: 0, totalMs: 0, files: 0, filesReused: 0, filesRestored: 0, filesParsed: 0 };
  const listed = await snapshot.listFiles();
  const verdict = createFileVerdict(
    resolveFileFilter(
      deps.fileFilter ?? { excludeTests: false },
      listed.map((e) => e.path),
    ),
  );
  const entries = listed.filter((e) => verdict(e.path) === 'indexed').sort((a, b) => (a.path < b.path ? -1 : 1));
  timings.files = entries.length;
  timings.listMs = now() - t0;

  const memo = deps.memo;
  const prefix = `${snapshot.repo}\0`;
  const facts: FileFacts[] = new Array(entries.length);
  const todo: number[] = [];
  entries.forEach((e, i) => {
    const known = memo?.get(prefix + e.blob + '\0' + e.path);
    if (known) {
      facts[i] = known;
      timings.filesReused++;
    } else todo.push(i);
  });
  if (todo.length > 0) {
    const store = deps.cacheDir ? await FactsStore.open(FactsStore.fileFor(deps.cacheDir, snapshot.repo)) : undefined;
    const missing: number[] = [];
    for (const i of todo) {
      const restored = store?.restore(entries[i]!.blob, entries[i]!.path);
      if (restored) {
        facts[i] = restored;
        timings.filesRestored++;
      } else missing.push(i);
    }
    let t = now();
    const contents = await Promise.all(missing.map(async (i) => (await snapshot.readBlob(entries[i]!.blob)).toString('utf8')));
    timings.readMs = now() - t;
    t = now();
    missing.forEach((i, j) => {
      facts[i] = fileFacts(entries[i]!.path, contents[j]!);
      store?.add(entries[i]!.blob, facts[i]!);
    });
    timings.filesParsed = missing.length;
    timings.factsMs = now() - t;
    await store?.flush();
    if (memo) todo.forEach((i) => memo.set(prefix + entries[i]!.blob + '\0' + entries[i]!.path, facts[i]!));
  }
  const t = now();
  const built = buildCodeGraph(facts);
  timings.buildMs = now() - t;
  timings.totalMs = now() - t0;
  return { ...built, repo: snapshot.repo, commit: snapshot.commit, timings };
}
