/**
 * An error that says what kind of failure it is. The stage runner records `kind` and `details` with the artifact
 * (stage-runner.ts `toStageError`), and failure-cause.ts reads a cause from them; one class instead of properties
 * glued onto a plain Error, so every thrower spells the kind the same way and `check-architecture` can refuse the
 * glued form.
 */
import type { ErrorKind } from '../util/error-kinds.ts';

export class KindedError extends Error {
  constructor(
    /** one of src/util/error-kinds.ts' kinds */
    readonly kind: ErrorKind,
    message: string,
    /** recorded beside the message (what an agent did before it stopped, the harness' infrastructure label) */
    readonly details?: Record<string, unknown>,
    /** the error it was made from (kept for a reader; never read for the kind) */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'KindedError';
  }
}
