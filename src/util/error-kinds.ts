/**
 * Every kind a recorded stage error carries, declared once and spelled one way: lowercase words joined by "-"
 * (the cannot-run family adds ":" and its reason). A thrower names its kind from here (`KindedError`,
 * `EvaluationError`, `LlmError`), so the compiler refuses a kind nobody declared and `check-architecture`
 * refuses one written as a bare string; failure-cause.ts reads causes from the same names.
 *
 * Artifacts written before the kinds had one style hold older spellings; `currentKind` (util/legacy.ts) reads them
 * as today's.
 */
export const ERROR_KINDS = {
  // the stage runner and the run's configuration
  /** a spend cap stopped the instance (src/llm/spend.ts); the analysis reports what it had spent */
  budgetExhausted: 'budget-exhausted',
  /** work that needs a chat model ran without one */
  noModel: 'no-llm',
  /** the run's configuration cannot work (checked at start) */
  configuration: 'configuration',
  /** an unknown localizer */
  badConfig: 'bad-config',
  /** a localizer's or stage's option the schema refuses */
  badOptions: 'bad-options',
  /** no mirror or clone of the instance's repository */
  missingRepo: 'missing-repo',
  /** an earlier stage has no artifact for the instance, or recorded an error */
  missingInput: 'missing-input',
  inputFailed: 'input-failed',
  // model calls (src/llm/errors.ts)
  timeout: 'timeout',
  http: 'http',
  connection: 'connection',
  parse: 'parse',
  aborted: 'aborted',
  invalid: 'invalid',
  replayMiss: 'replay-miss',
  circuitOpen: 'circuit-open',
  // the index's providers (src/embedding/, src/vectorstore/failures.ts): down, they fail every instance alike
  embedderFailed: 'embedder-failed',
  vectorStoreFailed: 'vector-store-failed',
  // images (sandbox/common/image-recipe.ts): one that is absent and cannot be built here, or whose build failed
  imageMissing: 'image-missing',
  imageBuildFailed: 'image-build-failed',
  // the machine and git (src/repo/errors.ts)
  diskFull: 'disk-full',
  missingCommit: 'missing-commit',
  gitFailed: 'git-failed',
  // evaluation (validation/evaluate.ts)
  patchApplyFailed: 'patch-apply-failed',
  noTests: 'no-tests',
  evaluationError: 'evaluation-error',
  // agents (localizer/explorer/)
  maxSteps: 'max-steps',
  tokens: 'tokens',
  explorerTimeout: 'explorer-timeout',
  invalidAnswer: 'invalid-answer',
} as const;

/** Why a test run could not start (validation/run-diagnosis.ts), recorded as `cannot-run:<reason>`. */
export const CANNOT_RUN_REASONS = ['no-test-output', 'no-tests-ran', 'collection-failed', 'network'] as const;
export type CannotRunReason = (typeof CANNOT_RUN_REASONS)[number];

export type ErrorKind = (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS] | `cannot-run:${CannotRunReason}`;

export function cannotRunKind(reason: CannotRunReason): ErrorKind {
  return `cannot-run:${reason}`;
}

const DECLARED_KINDS: ReadonlySet<string> = new Set(Object.values(ERROR_KINDS));

/**
 * Whether `kind` is one locfix declared (or the cannot-run family). An error from a library or a server may carry a
 * `kind` or `code` of its own — an HTTP client copies the body's `error.code` — and must not name a cause by it.
 */
export function isDeclaredKind(kind: unknown): kind is ErrorKind {
  if (typeof kind !== 'string') return false;
  if (DECLARED_KINDS.has(kind)) return true;
  return kind.startsWith('cannot-run:') && (CANNOT_RUN_REASONS as readonly string[]).includes(kind.slice('cannot-run:'.length));
}
