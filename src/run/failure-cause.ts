/**
 * Why a stage failed for an instance, declared once: the method's own failure (its model's answer unusable, a
 * context it overflowed), the infrastructure's (a model server that does not answer, a replay that holds no
 * answer, the machine), or the run's configuration's. Only the method's failures are outcomes of the method: an
 * instance stopped by the others was not reached, is in no rate, and `--retry-errors` runs it again.
 *
 * A recorded stage error carries a `kind` (the thrower's, e.g. an LlmError's) and, for HTTP failures, the status
 * in `details`; `causeOf` reads a cause from them and nothing else, so a cause never rests on message wording.
 */

import { ERROR_KINDS as K } from '../util/error-kinds.ts';
import { currentKind } from '../util/legacy.ts';

/** The evaluation stage's name (src/run/stage.ts STAGE.evaluate), by value: its kinds mean other things. */
const EVALUATE_STAGE = 'evaluate';

/**
 * `recording`: a replayed recording holds no answer — not infrastructure that will be back, but a gap that stays
 * until the request is recorded; out of the method's rates like infrastructure.
 */
export const CAUSE_CLASSES = ['method', 'infrastructure', 'configuration', 'recording'] as const;
export type CauseClass = (typeof CAUSE_CLASSES)[number];

/** Each cause, its class and what it means in words. */
export const FAILURE_CAUSES = {
  // infrastructure
  'model-unreachable': { class: 'infrastructure', means: 'the model server did not answer' },
  'circuit-open': { class: 'infrastructure', means: 'not called: the model server had failed every recent call' },
  'model-timeout': { class: 'infrastructure', means: 'a model call timed out' },
  'rate-limited': { class: 'infrastructure', means: 'the model server refused the call: rate limit (HTTP 429)' },
  'server-error': { class: 'infrastructure', means: 'the model server failed (HTTP 5xx)' },
  'embedder-unavailable': { class: 'infrastructure', means: 'the embedding server did not answer or failed' },
  'vector-store-unavailable': { class: 'infrastructure', means: 'the vector store (Chroma) did not answer or failed' },
  'image-unavailable': { class: 'infrastructure', means: "the instance's image is missing and cannot be built on this machine" },
  'image-unbuildable': { class: 'infrastructure', means: "building the instance's image failed" },
  // a recording's gap: no rerun fills it until the request is recorded
  'recording-gap': { class: 'recording', means: 'the replayed recording holds no answer for the request (record it, or run against a live model)' },
  interrupted: { class: 'infrastructure', means: 'the call was aborted (the run was stopped)' },
  'disk-full': { class: 'infrastructure', means: 'the disk was full' },
  'repository-unavailable': { class: 'infrastructure', means: "git could not give the instance's commit (a mirror without it, or git failing)" },
  // configuration
  configuration: { class: 'configuration', means: "the run's configuration cannot work" },
  'mirror-missing': { class: 'configuration', means: "no mirror or clone of the instance's repository (--mirrors, --mirror)" },
  'model-access': { class: 'configuration', means: 'the model server refused the credentials or does not serve the model (HTTP 401/403/404)' },
  // evaluation, by harness 5.0's infra_failure tiers: `environment` cannot come from a patch, `ambiguous` can
  'evaluation-environment': {
    class: 'infrastructure',
    means: "the tests cannot run in this environment (the gold patch's cannot either, or the log shows the environment breaking)",
  },
  'tests-timed-out': { class: 'method', means: 'the tests timed out (the patch or the machine: ambiguous)' },
  'evaluation-ambiguous': { class: 'method', means: 'the evaluation failed without a sign of whose fault it was (ambiguous)' },
  'patch-does-not-apply': { class: 'method', means: 'the patch does not apply to the repository' },
  // the method's own
  'unusable-answer': { class: 'method', means: "the model's answer could not be used" },
  // judged: hard instances must not leave the denominator because a method is expensive on them (a run's cap
  // records nothing: the work it cut is not done)
  'spend-cap': { class: 'method', means: 'the instance spent its spend cap (--max-instance-tokens / --max-instance-dollars)' },
  'bad-request': { class: 'method', means: 'the model server refused the request the method made (e.g. a context overflow, HTTP 400)' },
  method: { class: 'method', means: 'the stage failed on this instance' },
} as const satisfies Record<string, { class: CauseClass; means: string }>;

export type FailureCauseName = keyof typeof FAILURE_CAUSES;

/** Harness 5.0's tiers of an evaluation failure (validation/infra-failure.ts), named here by value. */
export type EvaluationTier = 'environment' | 'ambiguous';

export interface FailureCause {
  cause: FailureCauseName;
  class: CauseClass;
  /** of an evaluation failure: the harness' tier */
  tier?: EvaluationTier;
}

/** Stage error kinds that are the configuration's (stage-runner's CONFIGURATION_KINDS, named here by value). */
const CONFIGURATION_ERROR_KINDS: ReadonlySet<string> = new Set([K.configuration, K.noModel, K.badConfig, K.badOptions, K.missingRepo]);

function named(cause: FailureCauseName): FailureCause {
  return { cause, class: FAILURE_CAUSES[cause].class };
}

type RecordedError = { kind?: string; message?: string; details?: Record<string, unknown> };

/**
 * The cause of an evaluation error: the harness' label where the log shows one (its tier decides), else the kind
 * evaluation recorded. A test run that cannot start, where the gold patch's cannot either, is the environment's.
 */
function evaluationCause(error: RecordedError | undefined): FailureCause {
  const kind = currentKind(error?.kind) ?? '';
  if (kind === K.missingRepo) return named('mirror-missing');
  if (kind === K.noTests || (kind && CONFIGURATION_ERROR_KINDS.has(kind))) return named('configuration');
  const label = error?.details?.infraFailure as { tier?: unknown } | undefined;
  if (label?.tier === 'environment' || kind.startsWith('cannot-run:')) return { ...named('evaluation-environment'), tier: 'environment' };
  if (kind === K.patchApplyFailed) return named('patch-does-not-apply');
  // the image or the repository it is built from: never the patch's doing
  if (kind === K.imageMissing) return named('image-unavailable');
  if (kind === K.imageBuildFailed) return named('image-unbuildable');
  if (kind === K.missingCommit || kind === K.gitFailed) return named('repository-unavailable');
  if (kind === K.timeout) return { ...named('tests-timed-out'), tier: 'ambiguous' };
  return { ...named('evaluation-ambiguous'), tier: 'ambiguous' };
}

/** The cause of a recorded stage error, from its kind and details (`stage` "evaluate": evaluationCause). */
export function causeOf(error: RecordedError | undefined, stage?: string): FailureCause {
  if (stage === EVALUATE_STAGE) return evaluationCause(error);
  const kind = currentKind(error?.kind);
  if (kind === K.missingRepo) return named('mirror-missing');
  if (kind && CONFIGURATION_ERROR_KINDS.has(kind)) return named('configuration');
  switch (kind) {
    case K.connection:
      return named(error?.details?.circuitOpen === true ? 'circuit-open' : 'model-unreachable');
    case K.circuitOpen:
      return named('circuit-open');
    case K.timeout:
      return named('model-timeout');
    case K.replayMiss:
      return named('recording-gap');
    case K.embedderFailed:
      return named('embedder-unavailable');
    case K.vectorStoreFailed:
      return named('vector-store-unavailable');
    case K.imageMissing:
      return named('image-unavailable');
    case K.imageBuildFailed:
      return named('image-unbuildable');
    case K.aborted:
      return named('interrupted');
    // a Node error's own code (fs writes), as toStageError records it
    case 'ENOSPC':
    case K.diskFull:
      return named('disk-full');
    case K.parse:
      return named('unusable-answer');
    case K.budgetExhausted:
      return named('spend-cap');
    case K.missingCommit:
    case K.gitFailed:
      return named('repository-unavailable');
    case K.http: {
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
  return `${cause.class} (${cause.cause}: ${FAILURE_CAUSES[cause.cause].means}${cause.tier ? `; harness tier ${cause.tier}` : ''})`;
}

/**
 * Kinds rerun by `--retry-errors` though the method's: an earlier stage stopped the instance (this stage's own work
 * never ran), or a spend cap did (rerun with a raised cap; under the same cap the ledger refuses at no cost).
 */
const RETRIED_KINDS: ReadonlySet<string> = new Set([K.missingInput, K.inputFailed, K.budgetExhausted]);

/**
 * Whether `--retry-errors` runs a recorded error again: every failure that is not plainly the method's own —
 * infrastructure, configuration, an evaluation of ambiguous tier, and a stage whose input was missing. The method's
 * own failures are results; `--retry-errors all` reruns those too.
 */
export function retriedByDefault(error: RecordedError | undefined, stage?: string): boolean {
  if (RETRIED_KINDS.has(currentKind(error?.kind) ?? '')) return true;
  const cause = causeOf(error, stage);
  return cause.class !== 'method' || cause.tier === 'ambiguous';
}
