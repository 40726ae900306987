/**
 * How the index turns one file into chunks and definitions. The default is the tree-sitter chunker and
 * definition extractor in src/parsing/; other localizers plug their own (e.g. Agentless' ~512-token
 * whole-file windows). The parser id is part of every cache key and collection name, so two parsers never
 * share chunks.
 */
import type { CodeChunk, Definition } from '../parsing/types.ts';

export interface ParsedFile {
  chunks: CodeChunk[];
  definitions: Definition[];
}

export interface FileParser {
  /** names the parser and its settings, e.g. "ts-chunks:v1:1500" */
  readonly id: string;
  parse(path: string, content: string): ParsedFile | Promise<ParsedFile>;
}

/**
 * Fallback used for a file the parser rejects: fixed windows of lines, each starting with the path line
 * like every chunk, and no definitions. Keeps the file searchable instead of dropping it.
 */
export function lineWindowChunks(path: string, content: string, linesPerChunk = 60): CodeChunk[] {
  const lines = content.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const chunks: CodeChunk[] = [];
  for (let start = 0; start < lines.length; start += linesPerChunk) {
    const end = Math.min(lines.length, start + linesPerChunk);
    chunks.push({
      path,
      startLine: start + 1,
      endLine: end,
      text: `${path}\n${lines.slice(start, end).join('\n')}`,
      kind: 'lines',
    });
  }
  return chunks;
}
