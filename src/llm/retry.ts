/** Retry policy: exponential backoff with full jitter, only for errors that may go away. */
import { LlmError } from './errors.ts';

export interface RetryOptions {
  /** total attempts including the first (>= 1) */
  maxAttempts: number;
  /** first backoff ceiling; doubles per attempt */
  baseDelayMs: number;
  maxDelayMs: number;
  signal?: AbortSignal;
  /** called before each backoff sleep, e.g. for logs */
  onRetry?: (error: LlmError, attempt: number, delayMs: number) => void;
}

/** Delay before retry number `attempt` (1 = after the first failure): uniform in [ceiling/2, ceiling]. */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable LlmError, or attempts run out. The thrown
 * LlmError carries the number of attempts made. `attempt` must throw LlmError for classified failures.
 */
export async function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const error = err instanceof LlmError ? err : new LlmError('connection', String((err as Error)?.message ?? err), { cause: err });
      error.attempts = n;
      if (!error.retryable || n >= options.maxAttempts || options.signal?.aborted) throw error;
      const retryAfter = error.retryAfterMs;
      const delay = Math.min(options.maxDelayMs, Math.max(retryAfter ?? 0, backoffDelay(n, options.baseDelayMs, options.maxDelayMs)));
      options.onRetry?.(error, n, delay);
      await sleep(delay, options.signal);
    }
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
