/** The one error every chat call rejects with, so stages can record what went wrong and after how many tries. */
import type { ERROR_KINDS } from '../util/error-kinds.ts';

/**
 * 'invalid': the request itself is malformed (no messages, bad n); never sent, never retried.
 * 'budget-exhausted': a spend cap refused the call before it was sent (spend.ts); never retried.
 * 'replay-miss': a replayed recording holds no answer for the request (replay.ts); never retried.
 */
export type LlmErrorKind = (typeof ERROR_KINDS)['timeout' | 'http' | 'connection' | 'parse' | 'aborted' | 'invalid' | 'budgetExhausted' | 'replayMiss'];

export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  /** HTTP requests made before giving up (1 = no retry) */
  attempts: number;
  /** HTTP status for kind 'http' */
  readonly status?: number;
  readonly modelId?: string;
  /** the server's Retry-After, when it sent one */
  readonly retryAfterMs?: number;
  /** a circuit breaker refused the call: the server had failed every recent call (circuit-breaker.ts) */
  readonly circuitOpen?: boolean;

  constructor(
    kind: LlmErrorKind,
    message: string,
    options: { attempts?: number; status?: number; modelId?: string; retryAfterMs?: number; circuitOpen?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.attempts = options.attempts ?? 1;
    this.status = options.status;
    this.modelId = options.modelId;
    this.retryAfterMs = options.retryAfterMs;
    if (options.circuitOpen) this.circuitOpen = true;
  }

  /** What a stage records beside the kind (stage-runner's toStageError), so the failure's cause can be told
   * without reading the message: the HTTP status, the attempts, whether a circuit breaker refused the call. */
  get details(): Record<string, unknown> {
    return { attempts: this.attempts, ...(this.status !== undefined ? { status: this.status } : {}), ...(this.circuitOpen ? { circuitOpen: true } : {}) };
  }

  /** 429, 5xx, connection failures, timeouts and unparseable answers may go away on a retry; other 4xx won't. */
  get retryable(): boolean {
    switch (this.kind) {
      case 'http':
        return this.status === 429 || this.status === 408 || (this.status !== undefined && this.status >= 500);
      case 'timeout':
      case 'connection':
      case 'parse':
        return true;
      case 'aborted':
      case 'invalid':
      case 'budget-exhausted':
      case 'replay-miss':
        return false;
    }
  }

  toJSON(): { kind: LlmErrorKind; message: string; attempts: number; status?: number } {
    return { kind: this.kind, message: this.message, attempts: this.attempts, ...(this.status !== undefined ? { status: this.status } : {}) };
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** True when `err` (or one of its causes) is a network-level failure: refused, reset, closed socket, DNS. */
export function isConnectionFailure(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (e instanceof TypeError && /fetch failed|terminated|network/i.test(e.message)) return true;
    if (e instanceof Error && /socket hang up|other side closed|terminated/i.test(e.message)) return true;
  }
  return false;
}

export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message && !err.message.includes(cause.message)) return `${err.message}: ${cause.message}`;
  return err.message;
}
