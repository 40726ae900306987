/**
 * The default FileParser: the tree-sitter chunker (src/parsing/chunker.ts) and definition extractor
 * (src/parsing/definitions.ts), sharing one Python parser. Loaded lazily so that indexes with a custom
 * parser never load tree-sitter.
 */
import { chunkFileSync, DEFAULT_MAX_CHUNK_CHARS, pythonParser } from '../parsing/chunker.ts';
import { extractDefinitions } from '../parsing/definitions.ts';
import type { FileParser } from './file-parser.ts';

export async function createDefaultFileParser(options: { maxChars?: number } = {}): Promise<FileParser> {
  const parser = await pythonParser();
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHUNK_CHARS;
  return {
    id: `tree-sitter-chunks:v1:${maxChars}`,
    parse(path, content) {
      return {
        chunks: chunkFileSync(parser, path, content, { maxChars }),
        definitions: extractDefinitions(path, content, parser),
      };
    },
  };
}
