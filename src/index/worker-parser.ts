/**
 * The default tree-sitter FileParser run in a worker thread, so that parsing (the largest CPU cost of
 * indexing) proceeds on the other core while the main thread tokenizes, embeds and talks to the vector
 * store. Same parser, same id, same chunks as createDefaultFileParser(); `parallel` tells the index it may
 * ask for several files before awaiting the first.
 *
 * A file the parser rejects resolves to that error's message (the index falls back to line windows, as it
 * does in-thread); the worker itself failing rejects every outstanding request with WorkerParserError.
 */
import { Worker } from 'node:worker_threads';
import type { FileParser, ParsedFile } from './file-parser.ts';
import type { ParseResponse } from './parse-worker.ts';

export class WorkerParserError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkerParserError';
  }
}

export interface WorkerFileParser extends FileParser {
  readonly parallel: true;
  /** stops the worker; outstanding requests are rejected */
  close(): Promise<void>;
}

export async function createWorkerFileParser(options: { maxChars?: number } = {}): Promise<WorkerFileParser> {
  const worker = new Worker(new URL('./parse-worker-entry.mjs', import.meta.url), { workerData: { maxChars: options.maxChars } });
  const pending = new Map<number, { resolve(p: ParsedFile): void; reject(e: Error): void }>();
  let seq = 0;
  let failure: Error | undefined;

  const failAll = (err: Error): void => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  worker.on('error', (err) => failAll(new WorkerParserError(`parse worker failed: ${err.message}`, { cause: err })));
  worker.on('exit', (code) => failAll(new WorkerParserError(`parse worker exited (code ${code})`)));

  const id = await new Promise<string>((resolve, reject) => {
    const onMessage = (m: { ready?: string }): void => {
      if (m.ready === undefined) return;
      worker.off('message', onMessage);
      resolve(m.ready);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new WorkerParserError(`parse worker exited (code ${code}) before it was ready`)));
  });
  worker.on('message', (m: ParseResponse) => {
    const p = pending.get(m.seq);
    if (!p) return;
    pending.delete(m.seq);
    if (pending.size === 0) worker.unref();
    if ('error' in m) p.reject(new Error(m.error));
    else p.resolve({ chunks: m.chunks, definitions: m.definitions });
  });
  // an idle worker must not keep the process alive
  worker.unref();

  return {
    id,
    parallel: true,
    parse(path: string, content: string): Promise<ParsedFile> {
      if (failure) return Promise.reject(failure);
      const n = seq++;
      return new Promise<ParsedFile>((resolve, reject) => {
        pending.set(n, { resolve, reject });
        worker.ref();
        worker.postMessage({ seq: n, path, content });
      });
    },
    async close(): Promise<void> {
      failAll(new WorkerParserError('parse worker closed'));
      await worker.terminate();
    },
  };
}
