/**
 * A circuit breaker per model server: once several calls in a row have failed for good (every retry spent)
 * because the server did not answer — connection refused, timeouts, 5xx — further calls fail at once
 * instead of each spending its own retries and timeouts. Without it a dead server costs every remaining
 * instance (timeout × attempts) — 25 minutes each at the defaults. After `coolDownMs` one call is let through
 * as a probe: when it succeeds the breaker closes; when it fails, the breaker stays open for another
 * cool-down. Shared by every model on the same server in the process, like the endpoint queue.
 */
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
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

/**
 * cockatiel's circuit breaker (consecutive failures, then half-open after the cool-down) with locfix's rules on
 * top: only server-down failures count; an answer of any kind (even a refusal) shows the server is up and
 * resets the count; a spend cap refusal never reached the server and changes nothing. While one probe is in
 * flight, other calls wait for its outcome. An open breaker fails with an LlmError that says why.
 */
export class CircuitBreaker {
  private failuresInARow = 0;
  private openedAt = 0;
  private lastError = '';
  private readonly policy: CircuitBreakerPolicy;
  readonly threshold: number;
  readonly coolDownMs: number;

  constructor(
    readonly server: string,
    options: BreakerOptions = {},
  ) {
    this.threshold = options.threshold ?? 3;
    this.coolDownMs = options.coolDownMs ?? 60_000;
    this.policy = circuitBreaker(handleWhen(isServerDown), { halfOpenAfter: this.coolDownMs, breaker: new ConsecutiveBreaker(this.threshold) });
    this.policy.onFailure(({ reason, handled }) => {
      if (!handled || !('error' in reason)) return;
      this.failuresInARow += 1;
      this.lastError = reason.error instanceof Error ? reason.error.message.slice(0, 200) : String(reason.error);
    });
    this.policy.onSuccess(() => {
      this.failuresInARow = 0;
    });
    this.policy.onBreak(() => {
      this.openedAt = Date.now();
    });
  }

  get open(): boolean {
    return this.policy.state !== CircuitState.Closed;
  }

  /** Runs `call` unless the breaker is open (then rejects at once with a 'connection' LlmError saying why). */
  async run<T>(call: () => Promise<T>, modelId: string): Promise<T> {
    let outcome: { value: T } | { answered: unknown };
    try {
      outcome = await this.policy.execute(async () => {
        try {
          return { value: await call() };
        } catch (err) {
          // server-down failures count, a spend cap's refusal passes by; any other failure is an answer
          if (isServerDown(err) || (err instanceof LlmError && err.kind === 'budget-exhausted')) throw err;
          return { answered: err };
        }
      });
    } catch (err) {
      if (!(err instanceof BrokenCircuitError)) throw err;
      const nextTry = Math.max(0, Math.ceil((this.openedAt + this.coolDownMs - Date.now()) / 1000));
      throw new LlmError(
        'connection',
        `${modelId}: not called: the last ${this.failuresInARow} calls to ${this.server} failed (${this.lastError}); ` +
          `next try in ${nextTry} s. Rerun with --retry-errors once the server is back`,
        { modelId, circuitOpen: true },
      );
    }
    if ('answered' in outcome) throw outcome.answered;
    return outcome.value;
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
