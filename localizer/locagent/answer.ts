/**
 * The agent's final answer → locfix's outputs. LocAgent's answer is Agentless' location format (a file
 * path, then `class:` / `function:` / `line:` lines) in a code block; it keeps files in order of mention
 * (`found_files`), and for each `function: A.f` / `class: A` the entity `path:A.f` (`found_entities`).
 * Several samples are merged as LocAgent's `--ranking_method mrr` does: a location's score is the sum of
 * 1/rank over the samples that found it, ties in order of first appearance.
 */
import type { CodeElement } from '../../src/artifacts/localization.ts';
import { isTestPath } from '../../src/index/file-filter.ts';
import { parseLocations } from '../hierarchy/locations.ts';

export interface ParsedAnswer {
  files: string[];
  entities: CodeElement[];
  /** lines naming files that are not in the repository (or test files) */
  ignored: string[];
}

/** Files and entities of an answer; only files of `repoFiles` count, test files are left out. */
export function parseAnswer(text: string, repoFiles: readonly string[]): ParsedAnswer {
  const { byFile, ignored, mentioned } = parseLocations(text, repoFiles);
  const files: string[] = [];
  const entities: CodeElement[] = [];
  for (const path of mentioned) {
    if (isTestPath(path)) {
      ignored.push(path);
      continue;
    }
    files.push(path);
    for (const line of byFile.get(path) ?? []) {
      const m = /^(class|function):\s*(.+)$/.exec(line);
      if (!m) continue;
      const name = m[2]!.trim().replace(/\(\)$/, '').replace(/::/g, '.');
      if (!entities.some((e) => e.path === path && e.name === name)) entities.push({ path, name });
    }
  }
  return { files, entities, ignored };
}

/** Items of several ranked lists by the sum of 1/rank, ties by first appearance. */
export function mergeByReciprocalRank<T>(lists: readonly (readonly T[])[], key: (item: T) => string): Array<{ item: T; score: number }> {
  const scores = new Map<string, { item: T; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((item, i) => {
      const k = key(item);
      const entry = scores.get(k);
      if (entry) entry.score += 1 / (i + 1);
      else scores.set(k, { item, score: 1 / (i + 1), first: order++ });
    });
  }
  return [...scores.values()].sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score }) => ({ item, score }));
}
