/**
 * What the graph needs of one file, from one parse: its definitions (the same ones the index and the
 * hierarchy localizers use) and its references. Facts depend on the path and content only, so a graph of
 * the next commit can reuse them for every unchanged blob.
 */
import { symbolsOfTree } from '../../parsing/definitions.ts';
import { languageForPath } from '../../languages/index.ts';
import { withParsed } from '../../parsing/parse.ts';
import { parserForPath } from '../../parsing/parsers.ts';
import { type Reference, referencesOfTree } from '../../parsing/references.ts';
import type { Definition } from '../../parsing/types.ts';

export interface FileFacts {
  path: string;
  definitions: Definition[];
  references: Reference[];
}

/** Facts of a file; a file no grammar parses has none (it is still a node of the graph). */
export function fileFacts(path: string, source: string): FileFacts {
  const parser = parserForPath(path);
  const spec = languageForPath(path);
  if (!parser || !spec) return { path, definitions: [], references: [] };
  return withParsed(parser, source, (tree) => ({
    path,
    definitions: symbolsOfTree(tree, path, source).definitions,
    references: referencesOfTree(tree, spec, source),
  }));
}
