/**
 * The candidate files of the model-free function level: the first files of a file ranking, read at the base
 * commit and cut into elements (elements.ts). A ranked file that does not exist at the base commit (a localizer
 * that guessed a path) is reported missing, not an error; a file no registered language parses has no elements.
 */
import { languageForPath } from '../../src/languages/index.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import type { RepoSnapshot } from '../../src/repo/types.ts';
import { fileElements } from './elements.ts';
import type { CandidateFile } from './rank.ts';

export interface Candidates {
  files: CandidateFile[];
  /** ranked paths that are not files of the base commit */
  missing: string[];
  /** the base text of every candidate file, for the stage's resolved ranges */
  sources: Map<string, string>;
}

/** The first `topFiles` existing files of `ranking` with their elements. */
export async function candidateFiles(snapshot: RepoSnapshot, ranking: readonly string[], topFiles: number): Promise<Candidates> {
  const wanted = [...new Set(ranking)].slice(0, topFiles);
  const existing = new Set(await snapshot.listFiles().then((files) => files.map((f) => f.path)));
  const present = wanted.filter((p) => existing.has(p));
  const sources = present.length ? await snapshot.readFiles(present) : new Map<string, string>();
  const files = present.map((path, rank) => {
    const source = sources.get(path) ?? '';
    const definitions = languageForPath(path) ? extractDefinitions(path, source) : [];
    return { path, rank, elements: fileElements(path, source, definitions) };
  });
  return { files, missing: wanted.filter((p) => !existing.has(p)), sources };
}
