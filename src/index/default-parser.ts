/**
 * The default FileParser: tree-sitter chunks (src/parsing/chunker.ts) and definitions
 * (src/parsing/definitions.ts) from ONE parse per file (src/parsing/analyze.ts) — parsing is the largest
 * CPU cost of indexing. Loaded lazily so that indexes with a custom parser never load tree-sitter. The id
 * carries the chunker version, so a chunker change invalidates cached chunks instead of mixing them.
 */
import { CHUNKER_VERSION, DEFAULT_MAX_CHUNK_CHARS } from '../parsing/chunker.ts';
import { parserForPath } from '../parsing/parsers.ts';
import { analyzeFileSync } from '../parsing/analyze.ts';
import { lineWindowChunks, type FileParser } from './file-parser.ts';

export async function createDefaultFileParser(options: { maxChars?: number } = {}): Promise<FileParser> {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHUNK_CHARS;
  return {
    id: `tree-sitter-chunks:v${CHUNKER_VERSION}:${maxChars}`,
    parse(path, content) {
      // each file through its own language's grammar; text no grammar parses is chunked by lines
      const parser = parserForPath(path);
      if (!parser) return { chunks: lineWindowChunks(path, content), definitions: [] };
      const { chunks, definitions } = analyzeFileSync(parser, path, content, { maxChars });
      return { chunks, definitions };
    },
  };
}
