/**
 * Body of the parse worker (src/index/worker-parser.ts): the default tree-sitter FileParser, answering
 * one message per file in arrival order.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDefaultFileParser } from './default-parser.ts';

export interface ParseRequest {
  seq: number;
  path: string;
  content: string;
}

export type ParseResponse =
  | { seq: number; chunks: import('../parsing/types.ts').CodeChunk[]; definitions: import('../parsing/types.ts').Definition[] }
  | { seq: number; error: string };

if (!parentPort) throw new Error('parse-worker.ts must run in a worker thread');
const port = parentPort;
const { maxChars } = workerData as { maxChars?: number };
const parser = await createDefaultFileParser(maxChars === undefined ? {} : { maxChars });
port.postMessage({ ready: parser.id });
port.on('message', (req: ParseRequest) => {
  let res: ParseResponse;
  try {
    const parsed = parser.parse(req.path, req.content) as Awaited<ReturnType<typeof parser.parse>>;
    res = { seq: req.seq, chunks: parsed.chunks, definitions: parsed.definitions };
  } catch (err) {
    res = { seq: req.seq, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(res);
});
