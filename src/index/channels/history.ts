/**
 * The history channel: files changed by the earlier commits whose messages best match a query
 * (src/index/commit-history-index.ts). The history is read on the first search, so indexing alone never
 * pays for it; an unreadable history (shallow or damaged mirror) leaves the channel empty with a note.
 */
import { familyOf, languageForPath } from '../../languages/index.ts';
import { CommitHistoryIndex, DEFAULT_COMMIT_HISTORY } from '../commit-history-index.ts';
import { commitTermMemo } from '../index-memo.ts';
import { CoChangeTable } from '../co-change.ts';
import type { CommitRecord } from '../../repo/history.ts';
import type { FileFacts, FileHit } from '../types.ts';
import type { IndexChannel } from './types.ts';

export interface HistoryPart {
  /** empty when the snapshot has no history or history is off */
  searchHistory(query: string, k: number): Promise<FileHit[]>;
  /** each indexed file's size, and how often and how recently the recent commits changed it */
  fileFacts(): Promise<FileFacts>;
  /** files the recent commits changed together with the seed files (src/index/co-change.ts) */
  searchCoChange(seeds: readonly string[], k: number): Promise<FileHit[]>;
}

/** Per indexed file: how many of the commits (newest first) changed it, and the newest one's position. */
export function changesOf(commits: readonly CommitRecord[], isIndexed: (path: string) => boolean): Pick<FileFacts, 'changes' | 'commitsRead'> {
  const changes: FileFacts['changes'] = {};
  commits.forEach((c, position) => {
    for (const f of c.files) {
      if (!isIndexed(f)) continue;
      const seen = Object.hasOwn(changes, f) ? changes[f] : undefined;
      if (seen) seen.count++;
      else changes[f] = { count: 1, newest: position };
    }
  });
  return { changes, commitsRead: commits.length };
}

function familyOfPath(path: string): string | undefined {
  const spec = languageForPath(path);
  return spec && familyOf(spec);
}

export const historyChannel: IndexChannel<HistoryPart> = {
  name: 'history',
  async open({ snapshot, deps, progress }) {
    return {
      async finish(records) {
        const fileSet = new Set(records.map((r) => r.file.path));
        const settings = { ...DEFAULT_COMMIT_HISTORY, ...(deps.history || {}) };
        let recent: Promise<CommitRecord[] | undefined> | undefined;
        const recentCommits = (): Promise<CommitRecord[] | undefined> => {
          recent ??= (async () => {
            if (deps.history === false || !snapshot.recentCommits) return undefined;
            try {
              return await snapshot.recentCommits(settings.maxCommits);
            } catch (err) {
              // history is one optional signal: retrieval goes on without it
              progress(`history unavailable for ${snapshot.repo}@${snapshot.commit.slice(0, 12)}: ${(err as Error).message.split('\n')[0]}`);
              return undefined;
            }
          })();
          return recent;
        };
        let history: Promise<CommitHistoryIndex | undefined> | undefined;
        const historyIndex = (): Promise<CommitHistoryIndex | undefined> => {
          history ??= (async () => {
            const commits = await recentCommits();
            if (!commits) return undefined;
            // a commit's size counts the files of the languages this index took (its main language family)
            const families = new Set([...fileSet].map(familyOfPath));
            try {
              return new CommitHistoryIndex(
                commits,
                (p) => fileSet.has(p),
                settings,
                commitTermMemo,
                (p) => families.has(familyOfPath(p)),
              );
            } catch (err) {
              // as before the file facts shared the commits: an index that cannot be built leaves the channel empty
              progress(`history unavailable for ${snapshot.repo}@${snapshot.commit.slice(0, 12)}: ${(err as Error).message.split('\n')[0]}`);
              return undefined;
            }
          })();
          return history;
        };
        let coChange: Promise<CoChangeTable> | undefined;
        const coChangeTable = (): Promise<CoChangeTable> => {
          coChange ??= (async () => new CoChangeTable((await recentCommits()) ?? [], (p) => fileSet.has(p), settings.maxFilesPerCommit))();
          return coChange;
        };
        return {
          searchHistory: async (query, k) => (await historyIndex())?.search(query, k) ?? [],
          searchCoChange: async (seeds, k) => (seeds.length ? (await coChangeTable()).search(seeds, k) : []),
          fileFacts: async () => ({
            size: Object.fromEntries(records.map((r) => [r.file.path, r.file.size])),
            ...changesOf((await recentCommits()) ?? [], (p) => fileSet.has(p)),
          }),
        };
      },
    };
  },
};
