/**
 * Retry policy of a model call: exponential backoff with jitter (p-retry), only for errors that may go away,
 * waiting at least what a server's Retry-After asks (capped), and cancelled at once by the call's signal — a
 * deadline or Ctrl-C does not sit out a backoff. p-retry over a hand-written loop: its abortable delays and
 * attempt bookkeeping are maintained and tested elsewhere; what is locfix's own is which errors retry.
 */
import pRetry from 'p-retry';
import { LlmError } from './errors.ts';

export interface RetryOptions {
  /** total attempts including the first (>= 1) */
  maxAttempts: number;
  /** first backoff; doubles per attempt, times a random factor in [1, 2) */
  baseDelayMs: number;
  maxDelayMs: number;
  signal?: AbortSignal;
  /** called after each failed attempt that will be retried, with the least it waits before the next (for logs) */
  onRetry?: (error: LlmError, attempt: number, minDelayMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable LlmError, or attempts run out. The thrown
 * LlmError carries the number of attempts made; an abort is LlmError 'aborted'.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  try {
    return await pRetry(
      async (n) => {
        try {
          return await attempt(n);
        } catch (err) {
          const error = err instanceof LlmError ? err : new LlmError('connection', String((err as Error)?.message ?? err), { cause: err });
          error.attempts = n;
          throw error;
        }
      },
      {
        retries: Math.max(0, options.maxAttempts - 1),
        minTimeout: options.baseDelayMs,
        maxTimeout: options.maxDelayMs,
        factor: 2,
        randomize: true,
        ...(options.signal ? { signal: options.signal } : {}),
        shouldRetry: ({ error }) => error instanceof LlmError && error.retryable,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
          if (!(error instanceof LlmError) || !error.retryable || retriesLeft <= 0) return;
          // p-retry then waits at least its backoff's floor; a Retry-After asks for more, up to the cap
          const floor = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attemptNumber - 1));
          const extra = Math.min(options.maxDelayMs, error.retryAfterMs ?? 0) - floor;
          options.onRetry?.(error, attemptNumber, floor + Math.max(0, extra));
          if (extra > 0) await sleep(extra, options.signal);
        },
      },
    );
  } catch (err) {
    if (err instanceof LlmError) throw err;
    if (options.signal?.aborted) throw new LlmError('aborted', 'chat call aborted', { cause: err });
    throw err;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('aborted', 'chat call aborted'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new LlmError('aborted', 'chat call aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
