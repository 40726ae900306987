/**
 * An index channel: one kind of searchable evidence over a commit's files (dense vectors, BM25, the
 * definition table, similar past commits), built from the per-file records that buildRepoIndex lists,
 * reuses and parses once for all channels. Modelled on Continue's CodebaseIndex: the builder plans the
 * per-file work and each channel turns the records into its own part of the index, so a new channel (a
 * code graph) is one new file here plus one entry in repo-index.ts.
 */
import type { RepoSnapshot } from '../../repo/types.ts';
import type { BuildRepoIndexDeps } from '../build-options.ts';
import type { IndexMemo } from '../index-memo.ts';
import type { FileRecord, IndexTimings } from '../types.ts';

export interface ChannelContext {
  snapshot: RepoSnapshot;
  deps: BuildRepoIndexDeps;
  memo: IndexMemo;
  /** id of the file parser whose records the channel sees (part of every cache key) */
  parserId: string;
  /** the index's timings; a channel adds its own */
  timings: IndexTimings;
  progress(message: string): void;
}

export interface ChannelBuild<Part> {
  /** each file's record, in listing order, as it is reused or built (a channel may stream work from here) */
  add?(record: FileRecord): void;
  /** when parsing should pause to let the channel catch up: a promise to await, else undefined */
  throttle?(): Promise<void> | undefined;
  /** every record was added; work queued in batches may be sent now */
  flush?(): void;
  /** the channel's searchable part of the commit's index, from all its records in listing order */
  finish(records: readonly FileRecord[]): Promise<Part>;
}

export interface IndexChannel<Part> {
  readonly name: string;
  open(ctx: ChannelContext): Promise<ChannelBuild<Part>>;
}
