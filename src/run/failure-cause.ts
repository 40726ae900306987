/**
 * Why a stage failed for an instance, declared once: the method's own failure (its model's answer unusable, a
 * context it overflowed), the infrastructure's (a model server that does not answer, a replay that holds no
 * answer, the machine), or the run's configuration's. Only the method's failures are outcomes of the method: an
 * instance stopped by the others was not reached, is in no rate, and `--retry-errors` runs it again.
 *
 * A recorded stage error carries a `kind` (the thrower's, e.g. an LlmError's) and, for HTTP failures, the status
 * in `details`; `causeOf` reads a cause from them and nothing else, so a cause never rests on message wording.
 */

export const CAUSE_CLASSES = ['method', 'infrastructure', 'configuration'] as const;
export type CauseClass = (typeof CAUSE_CLASSES)[number];

/** Each cause, its class and what it means in words. */
export const FAILURE_CAUSES = {
  // infrastructure
  'model-unreachable': { class: 'infrastructure', means: 'the model server did not answer' },
  'circuit-open': { class: 'infrastructure', means: 'not called: the model server had failed every recent call' },
  'model-timeout': { class: 'infrastructure', means: 'a model call timed out' },
  'rate-limited': { class: 'infrastructure', means: 'the model server refused the call: rate limit (HTTP 429)' },
  'server-error': { class: 'infrastructure', means: 'the model server failed (HTTP 5xx)' },
  'replay-miss': { class: 'infrastructure', means: 'the replayed recording holds no answer for the request' },
  interrupted: { class: 'infrastructure', means: 'the call was aborted (the run was stopped)' },
  'disk-full': { class: 'infrastructure', means: 'the disk was full' },
  // configuration
  configuration: { class: 'configuration', means: "the run's configuration cannot work" },
  'model-access': { class: 'configuration', means: 'the model server refused the credentials or does not serve the model (HTTP 401/403/404)' },
  // the method's own
  'unusable-answer': { class: 'method', means: "the model's answer could not be used" },
  'bad-request': { class: 'method', means: 'the model server refused the request the method made (e.g. a context overflow, HTTP 400)' },
  method: { class: 'method', means: 'the stage failed on this instance' },
} as const satisfies Record<string, { class: CauseClass; means: string }>;

export type FailureCauseName = keyof typeof FAILURE_CAUSES;

export interface FailureCause {
  cause: FailureCauseName;
  class: CauseClass;
}

/** Stage error kinds that are the configuration's (stage-runner's CONFIGURATION_KINDS, named here by value). */
const CONFIGURATION_ERROR_KINDS = new Set(['configuration', 'no-llm', 'bad-config', 'bad-options', 'missing-repo']);

function named(cause: FailureCauseName): FailureCause {
  return { cause, class: FAILURE_CAUSES[cause].class };
}

/** The cause of a recorded stage error, from its kind and details. */
export function causeOf(error: { kind?: string; message?: string; details?: Record<string, unknown> } | undefined): FailureCause {
  const kind = error?.kind;
  if (kind && CONFIGURATION_ERROR_KINDS.has(kind)) return named('configuration');
  switch (kind) {
    case 'connection':
      return named(error?.details?.circuitOpen === true ? 'circuit-open' : 'model-unreachable');
    case 'circuit-open':
      return named('circuit-open');
    case 'timeout':
      return named('model-timeout');
    case 'replay-miss':
      return named('replay-miss');
    case 'aborted':
      return named('interrupted');
    case 'ENOSPC':
    case 'disk-full':
      return named('disk-full');
    case 'parse':
      return named('unusable-answer');
    case 'http': {
      const status = typeof error?.details?.status === 'number' ? error.details.status : undefined;
      if (status === 429) return named('rate-limited');
      if (status === 408) return named('model-timeout');
      if (status !== undefined && status >= 500) return named('server-error');
      if (status === 401 || status === 403 || status === 404) return named('model-access');
      return named('bad-request');
    }
    default:
      return named('method');
  }
}

/** "infrastructure (model-unreachable: the model server did not answer)" */
export function describeCause(cause: FailureCause): string {
  return `${cause.class} (${cause.cause}: ${FAILURE_CAUSES[cause.cause].means})`;
}
