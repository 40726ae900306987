/**
 * The retry policy of a model call (src/llm/retry.ts, on p-retry): only retryable errors retry, the attempts
 * are counted on the error, a server's Retry-After is waited out (capped), and the caller's signal cancels a
 * backoff at once — a deadline must not sit out a minute of backoff.
 */
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.ts';
import { withRetries } from '../../src/llm/retry.ts';

const failing = (kind: ConstructorParameters<typeof LlmError>[0], extra: ConstructorParameters<typeof LlmError>[2] = {}) => {
  let calls = 0;
  return {
    calls: () => calls,
    attempt: async (): Promise<string> => {
      calls += 1;
      throw new LlmError(kind, `failure ${calls}`, extra);
    },
  };
};

describe('withRetries', () => {
  it('retries what may go away, counting attempts; gives up at once on what will not', async () => {
    const down = failing('connection');
    const err = (await withRetries(down.attempt, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }).catch((e: unknown) => e)) as LlmError;
    expect([err.kind, err.attempts, down.calls()]).toEqual(['connection', 3, 3]);
    const bad = failing('http', { status: 400 });
    const once = (await withRetries(bad.attempt, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }).catch((e: unknown) => e)) as LlmError;
    expect([once.attempts, bad.calls()]).toEqual([1, 1]);
    let n = 0;
    expect(
      await withRetries(async () => (++n < 3 ? Promise.reject(new LlmError('timeout', 'slow')) : 'ok'), { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2 }),
    ).toBe('ok');
  });

  it('waits what Retry-After asks, up to the cap', async () => {
    let n = 0;
    const started = Date.now();
    const delays: number[] = [];
    await withRetries(async () => (++n < 2 ? Promise.reject(new LlmError('http', 'busy', { status: 429, retryAfterMs: 400 })) : 'ok'), {
      maxAttempts: 3,
      baseDelayMs: 1,
      maxDelayMs: 10_000,
      onRetry: (_e, _a, minDelayMs) => delays.push(minDelayMs),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
    expect(delays).toEqual([400]);
  });

  it('the caller’s signal cancels a backoff at once, as an aborted call', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const down = failing('connection');
    const err = (await withRetries(down.attempt, { maxAttempts: 5, baseDelayMs: 30_000, maxDelayMs: 60_000, signal: controller.signal }).catch(
      (e: unknown) => e,
    )) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.kind).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(down.calls()).toBe(1);
  });
});
