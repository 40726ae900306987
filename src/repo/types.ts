import type { CommitChange } from './change-history.ts';
import type { CommitRecord } from './history.ts';

/** A read-only view of one repository at one commit, read straight from a bare mirror (no checkout). */
export interface TreeEntry {
  /** repository-relative POSIX path */
  path: string;
  /** git blob id: doubles as the content hash that index caches are keyed by */
  blob: string;
  size: number;
}

export interface RepoSnapshot {
  readonly repo: string; // "owner/name"
  readonly commit: string; // full 40-hex commit id
  /** every regular file at this commit (symlinks and submodules left out) */
  listFiles(): Promise<TreeEntry[]>;
  /** file content decoded as UTF-8 (invalid bytes replaced); undefined when the path is not a file here */
  readFile(path: string): Promise<string | undefined>;
  /** batch read; paths that are not files are absent from the map */
  readFiles(paths: readonly string[]): Promise<Map<string, string>>;
  /** raw bytes of a blob by id */
  readBlob(blob: string): Promise<Buffer>;
  /** the `limit` most recent single-parent commits up to this one, newest first (absent: no history here) */
  recentCommits?(limit: number): Promise<CommitRecord[]>;
  /** the `limit` most recent non-merge commits up to this one with their messages and changed source lines */
  recentChanges?(limit: number): Promise<CommitChange[]>;
}
