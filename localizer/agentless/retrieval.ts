/**
 * Agentless' embedding retrieval (agentless/fl/Index.py, `--index_type simple`): every candidate file is one
 * document whose text is the whole file behind a metadata header (file name, classes, functions), split
 * into ~512-token chunks; the problem statement retrieves the top 100 chunks and their files, in order of
 * first appearance, are the retrieval list. Only files outside the folders the model called irrelevant take
 * part (`--filter_type given_files`).
 *
 * Here the chunks come from a FileParser (so they live in locfix's vector store and embedding cache like any
 * index), and the restriction to candidate files is applied to the ranked hits.
 */
import type { FileParser } from '../../src/index/file-parser.ts';
import type { RepoIndex } from '../../src/index/types.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import { parserForPath } from '../../src/parsing/parsers.ts';
import type { CodeChunk, Definition } from '../../src/parsing/types.ts';
import { countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';

export const AGENTLESS_CHUNK_TOKENS = 512;

/** llama_index's document rendering with Agentless' templates ("### {key}: {value}" metadata lines). */
export function agentlessChunkHeader(path: string, definitions: readonly Definition[]): string {
  const classes = definitions.filter((d) => d.kind === 'class').map((d) => d.name);
  const functions = definitions.filter((d) => d.kind === 'function').map((d) => d.name);
  const lines = [`### File Name: ${path}`];
  if (classes.length) lines.push(`### Classes: ${classes.join(', ')}`);
  if (functions.length) lines.push(`### Functions: ${functions.join(', ')}`);
  return `Metadata:\n${lines.join('\n')}\n-----\nCode:\n`;
}

/**
 * Whole-line windows of at most `chunkTokens` tokens including the header (a header longer than half the
 * budget is dropped, as Agentless' check_meta_data does); a single line longer than the budget is cut by
 * tokens.
 */
export function agentlessChunks(path: string, content: string, definitions: readonly Definition[], chunkTokens = AGENTLESS_CHUNK_TOKENS): CodeChunk[] {
  let header = agentlessChunkHeader(path, definitions);
  if (countTokens(header) > chunkTokens / 2) header = '';
  const budget = Math.max(16, chunkTokens - countTokens(header));
  const lines = content.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const chunks: CodeChunk[] = [];
  let start = 0;
  let buffer: string[] = [];
  let used = 0;
  const flush = (end: number): void => {
    if (buffer.length === 0) return;
    chunks.push({ path, startLine: start + 1, endLine: end, text: header + buffer.join('\n'), kind: 'agentless-window' });
    buffer = [];
    used = 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const cost = countTokens(lines[i] + '\n');
    if (cost > budget) {
      flush(i);
      const tokens = encodeTokens(lines[i]);
      for (let t = 0; t < tokens.length; t += budget) {
        chunks.push({ path, startLine: i + 1, endLine: i + 1, text: header + decodeTokens(tokens.slice(t, t + budget)), kind: 'agentless-window' });
      }
      start = i + 1;
      continue;
    }
    if (used + cost > budget) flush(i);
    if (buffer.length === 0) start = i;
    buffer.push(lines[i]);
    used += cost;
  }
  flush(lines.length);
  return chunks;
}

/** The FileParser that makes a RepoIndex hold Agentless' chunks (its id keys caches and the collection). */
export async function createAgentlessFileParser(chunkTokens = AGENTLESS_CHUNK_TOKENS): Promise<FileParser> {
  return {
    id: `agentless-simple:v2:${chunkTokens}`,
    parse(path, content) {
      // each file through its own language's grammar; a file no grammar parses has no definitions
      const parser = parserForPath(path);
      const definitions = parser ? extractDefinitions(path, content, parser) : [];
      return { chunks: agentlessChunks(path, content, definitions, chunkTokens), definitions };
    },
  };
}

export interface RetrievedFiles {
  /** files in order of their first chunk among the top chunks */
  files: string[];
  /** the top chunks (path, lines, score) */
  chunks: Array<{ path: string; startLine: number; endLine: number; score: number }>;
}

/**
 * The `topChunks` best chunks of `allowed` files for `query` and their files. Dense search runs over the
 * whole commit, so it is widened until enough allowed chunks are found or every chunk was ranked.
 */
export async function retrieveAgentlessFiles(index: RepoIndex, query: string, allowed: ReadonlySet<string>, topChunks = 100): Promise<RetrievedFiles> {
  const total = index.chunks.length;
  let k = Math.min(total, topChunks * 2);
  let hits = await index.searchDense(query, k);
  for (;;) {
    const kept = hits.filter((h) => allowed.has(h.chunk.path));
    if (kept.length >= topChunks || k >= total) {
      const top = kept.slice(0, topChunks);
      const files: string[] = [];
      for (const h of top) if (!files.includes(h.chunk.path)) files.push(h.chunk.path);
      return { files, chunks: top.map((h) => ({ path: h.chunk.path, startLine: h.chunk.startLine, endLine: h.chunk.endLine, score: h.score })) };
    }
    k = Math.min(total, k * 4);
    hits = await index.searchDense(query, k);
  }
}
