/**
 * The default FileParser: the tree-sitter chunker (src/parsing/chunker.ts) and definition extractor
 * (src/parsing/definitions.ts). Loaded lazily so that indexes with a custom parser never load tree-sitter.
 */
import type { CodeChunk, Definition } from '../parsing/types.ts';
import type { FileParser } from './file-parser.ts';

type MaybePromise<T> = T | Promise<T>;

interface ParsingModules {
  chunkFile: (path: string, content: string) => MaybePromise<CodeChunk[]>;
  extractDefinitions: (path: string, content: string) => MaybePromise<Definition[]>;
}

async function loadParsing(): Promise<ParsingModules> {
  // module specifiers kept in variables: the parsing modules are written concurrently with this one
  const chunkerSpec = '../parsing/chunker.ts';
  const definitionsSpec = '../parsing/definitions.ts';
  const chunker = (await import(chunkerSpec)) as Partial<ParsingModules>;
  const definitions = (await import(definitionsSpec)) as Partial<ParsingModules>;
  if (typeof chunker.chunkFile !== 'function') throw new Error('src/parsing/chunker.ts does not export chunkFile');
  if (typeof definitions.extractDefinitions !== 'function') throw new Error('src/parsing/definitions.ts does not export extractDefinitions');
  return { chunkFile: chunker.chunkFile, extractDefinitions: definitions.extractDefinitions };
}

export async function createDefaultFileParser(): Promise<FileParser> {
  const parsing = await loadParsing();
  return {
    id: 'tree-sitter-chunks:v1',
    async parse(path, content) {
      const [chunks, definitions] = await Promise.all([parsing.chunkFile(path, content), parsing.extractDefinitions(path, content)]);
      return { chunks, definitions };
    },
  };
}
