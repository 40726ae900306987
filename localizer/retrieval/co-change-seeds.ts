/**
 * The co-change channel's seeds: the files a query names, by path, module or traceback frame (the paths
 * channel's evidence) and by the identifiers it names (the definitions channel's). Files changed with them in
 * the past are the channel's answer (src/index/co-change.ts). The seeds are read from the query's own channels
 * when they ran, and computed here when their weights are off, so the co-change channel can be measured alone.
 */
import { definitionScores, type DefinitionLookup } from './definition-boost.ts';
import { rankFiles, type Channel } from './fusion.ts';
import { pathSignalScores, type RepoPathMatcher } from './path-match.ts';
import type { RetrievalOptions } from './options.ts';
import type { StructuralSignals } from './structural-query.ts';

export function coChangeSeeds(
  index: DefinitionLookup,
  signals: StructuralSignals,
  queryChannels: readonly Channel[],
  matcher: () => RepoPathMatcher,
  options: RetrievalOptions,
): string[] {
  const own = (kind: string) => queryChannels.find((c) => c.label.endsWith(`/${kind}`))?.scores;
  const byPaths = own('paths') ?? pathSignalScores(signals, matcher(), options.pathWeights, options.frameDecay).scores;
  const byDefinitions = own('definitions') ?? definitionScores(signals, index, options).scores;
  const best = (scores: ReadonlyMap<string, number>) =>
    rankFiles(scores)
      .filter((f) => f.score > 0)
      .slice(0, options.coChangeSeeds)
      .map((f) => f.path);
  return [...new Set([...best(byPaths), ...best(byDefinitions)])].sort();
}
