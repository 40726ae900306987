/**
 * A circuit breaker per model server: once several calls in a row have failed for good (every retry spent)
 * because the server did not answer — connection refused, timeouts, 5xx — further calls fail at once
 * instead of each spending its own retries and timeouts. Without it a dead server costs every remaining
 * instance (timeout × attempts) — 25 minutes each at the defaults. After `coolDownMs` one call is let through
 * as a probe: when it succeeds the breaker closes; when it fails, the breaker stays open for another
 * cool-down. Shared by every model on the same server in the process, like the endpoint queue.
 */
import { endpointKey } from './endpoint-queue.ts';
import { LlmError } from './errors.ts';

export interface BreakerOptions {
  /** calls in a row that failed for good before the breaker opens (default 3) */
  threshold?: number;
  /** how long it stays open before a probe call is let through (default 60 s) */
  coolDownMs?: number;
}

/** Failures that say the server is not there, as opposed to a bad request or an unparseable answer. */
export function isServerDown(err: unknown): boolean {
  if (!(err instanceof LlmError)) return false;
  return err.kind === 'connection' || err.kind === 'timeout' || (err.kind === 'http' && (err.status ?? 0) >= 500);
}

export class CircuitBreaker {
  private failuresInARow = 0;
  private openUntil = 0;
  private probing = false;
  private lastError = '';
  readonly threshold: number;
  readonly coolDownMs: number;

  constructor(
    readonly server: string,
    options: BreakerOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.threshold = options.threshold ?? 3;
    this.coolDownMs = options.coolDownMs ?? 60_000;
  }

  get open(): boolean {
    return this.failuresInARow >= this.threshold;
  }

  /** Runs `call` unless the breaker is open (then rejects at once with a 'connection' LlmError saying why). */
  async run<T>(call: () => Promise<T>, modelId: string): Promise<T> {
    let probe = false;
    if (this.open) {
      if (this.now() < this.openUntil || this.probing) {
        throw new LlmError(
          'connection',
          `${modelId}: not called: the last ${this.failuresInARow} calls to ${this.server} failed (${this.lastError}); ` +
            `next try in ${Math.max(0, Math.ceil((this.openUntil - this.now()) / 1000))} s. Rerun with --retry-errors once the server is back`,
          { modelId },
        );
      }
      probe = true;
      this.probing = true;
    }
    try {
      const result = await call();
      this.failuresInARow = 0;
      return result;
    } catch (err) {
      if (isServerDown(err)) {
        this.failuresInARow += 1;
        this.lastError = err instanceof Error ? err.message.slice(0, 200) : String(err);
        if (this.open) this.openUntil = this.now() + this.coolDownMs;
      } else if (!(err instanceof LlmError && err.kind === 'budget_exhausted')) {
        this.failuresInARow = 0; // the server answered, if not usefully: it is up (a spend cap never asked it)
      }
      throw err;
    } finally {
      if (probe) this.probing = false;
    }
  }
}

const breakers = new Map<string, CircuitBreaker>();

/** The breaker of a server (by base URL), created on first use. */
export function serverBreaker(baseURL: string, options: BreakerOptions = {}): CircuitBreaker {
  const key = endpointKey(baseURL);
  let breaker = breakers.get(key);
  if (!breaker) breakers.set(key, (breaker = new CircuitBreaker(baseURL, options)));
  return breaker;
}
