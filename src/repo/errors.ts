/**
 * Repository failures carry a code so that a run can record "this instance failed at the repo step" and go
 * on with the other instances, instead of crashing.
 */
export type RepoErrorCode = 'missing-repo' | 'missing-commit' | 'git-failed';

export class RepoError extends Error {
  readonly code: RepoErrorCode;
  readonly repo: string;
  readonly commit: string | undefined;

  constructor(code: RepoErrorCode, repo: string, message: string, options?: { commit?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RepoError';
    this.code = code;
    this.repo = repo;
    this.commit = options?.commit;
  }

  /** the kind a stage records (src/util/error-kinds.ts spells the same three) */
  get kind(): RepoErrorCode {
    return this.code;
  }
}
