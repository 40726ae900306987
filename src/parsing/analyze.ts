/**
 * Chunks and symbols of a file from a single parse — what repository indexing needs per file, at half
 * the parsing cost of calling chunkFileSync and extractFileSymbols separately.
 */
import type { Parser } from 'web-tree-sitter';
import { type ChunkOptions, checkedMaxChars, chunkTree } from './chunker.ts';
import { type FileSymbols, symbolsOfTree } from './definitions.ts';
import { parseSource } from './parse.ts';
import type { CodeChunk } from './types.ts';

export interface FileAnalysis extends FileSymbols {
  chunks: CodeChunk[];
}

export function analyzeFileSync(parser: Parser, path: string, source: string, opts: ChunkOptions = {}): FileAnalysis {
  const maxChars = checkedMaxChars(opts);
  if (source.length === 0) return { chunks: [], definitions: [], assignments: [] };
  const tree = parseSource(parser, source);
  try {
    return { chunks: chunkTree(tree, path, source, maxChars), ...symbolsOfTree(tree, path, source) };
  } finally {
    tree?.delete();
  }
}
