/**
 * Repository mirrors: how repositories are named on disk and on the command line, and the per-mirror git
 * processes a store reads through.
 */
import { CatFileBatch, TreeLister } from './catfile.ts';
import { RepoError } from './errors.ts';
import { GitCommandError } from './git.ts';
import type { TreeEntry } from './types.ts';

const REPO_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export function defaultCloneUrl(repo: string): string {
  return `https://github.com/${repo}.git`;
}

/** "owner/name" -> "owner+name": the folder naming used by mirror directories and the clone cache. */
export function mirrorFolderName(repo: string): string {
  return repo.replace('/', '+');
}

/**
 * Parses CLI mirror specs `owner/name=PATH` (repeatable `--mirror`) into the `mirrors` option.
 * Throws an Error naming the bad spec.
 */
export function parseMirrorSpecs(specs: readonly string[]): Record<string, string> {
  const mirrors: Record<string, string> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const repo = eq > 0 ? spec.slice(0, eq) : '';
    const dir = eq > 0 ? spec.slice(eq + 1) : '';
    if (!REPO_NAME.test(repo) || dir === '') {
      throw new Error(`invalid mirror ${JSON.stringify(spec)}: expected owner/name=PATH (a bare repository or a .git folder)`);
    }
    mirrors[repo] = dir;
  }
  return mirrors;
}

export function assertRepoName(repo: string): void {
  if (!REPO_NAME.test(repo) || repo.split('/').some((part) => part === '.' || part === '..')) {
    throw new RepoError('missing-repo', repo, `invalid repository name ${JSON.stringify(repo)}: expected "owner/name"`);
  }
}

export function describeGitFailure(err: unknown): string {
  if (err instanceof GitCommandError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

export interface FileTree {
  entries: TreeEntry[];
  byPath: Map<string, TreeEntry>;
}

/** One repository's mirror: its git dir, its cat-file process, and where it came from. */
export class Mirror {
  readonly catFile: CatFileBatch;
  constructor(
    readonly repo: string,
    readonly gitDir: string,
    /** true for the store's own clone, which may be fetched into when a commit is missing */
    readonly owned: boolean,
  ) {
    this.catFile = new CatFileBatch(gitDir);
    this.catFileCheck = new CatFileBatch(gitDir, { checkOnly: true });
    this.trees = new TreeLister(this.catFile, this.catFileCheck);
  }
  /** object types and sizes only (listing trees without reading blobs) */
  readonly catFileCheck: CatFileBatch;
  /** a commit's file list through the long-lived cat-file processes, trees memoized by id */
  readonly trees: TreeLister;
}
