/**
 * One request queue per server endpoint, shared by every model that talks to it: a vLLM server serving two
 * models, or an Ollama host, has one capacity, so the concurrency limit is per server (scheme, host and
 * port of the base URL), not per model.
 */
import PQueue from 'p-queue';

const queues = new Map<string, PQueue>();

export function normalizeBaseURL(baseURL: string): string {
  return baseURL.replace(/\/+$/, '');
}

/** Scheme, host and port: Ollama's /api and /v1 on one host are one server with one capacity. */
export function endpointKey(baseURL: string): string {
  try {
    return new URL(baseURL).origin;
  } catch {
    return normalizeBaseURL(baseURL);
  }
}

/**
 * The queue for `baseURL`. The first caller's concurrency creates it; a later caller asking for a
 * different limit changes it for everyone (the configuration read last wins), so one run never has two
 * limits for one server.
 */
export function endpointQueue(baseURL: string, concurrency: number): PQueue {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`LLM concurrency must be a positive integer, got ${concurrency}`);
  const key = endpointKey(baseURL);
  let queue = queues.get(key);
  if (!queue) queues.set(key, (queue = new PQueue({ concurrency })));
  else if (queue.concurrency !== concurrency) queue.concurrency = concurrency;
  return queue;
}
