/**
 * The history channel: files changed by the earlier commits whose messages best match a query
 * (src/index/commit-history-index.ts). The history is read on the first search, so indexing alone never
 * pays for it; an unreadable history (shallow or damaged mirror) leaves the channel empty with a note.
 */
import { familyOf, languageForPath } from '../../parsing/languages/index.ts';
import { CommitHistoryIndex, DEFAULT_COMMIT_HISTORY } from '../commit-history-index.ts';
import { commitTermMemo } from '../index-memo.ts';
import type { FileHit } from '../types.ts';
import type { IndexChannel } from './types.ts';

export interface HistoryPart {
  /** empty when the snapshot has no history or history is off */
  searchHistory(query: string, k: number): Promise<FileHit[]>;
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
        let history: Promise<CommitHistoryIndex | undefined> | undefined;
        const historyIndex = (): Promise<CommitHistoryIndex | undefined> => {
          history ??= (async () => {
            if (deps.history === false || !snapshot.recentCommits) return undefined;
            const settings = { ...DEFAULT_COMMIT_HISTORY, ...deps.history };
            try {
              const commits = await snapshot.recentCommits(settings.maxCommits);
              // a commit's size counts the files of the languages this index took (its main language family)
              const families = new Set([...fileSet].map(familyOfPath));
              return new CommitHistoryIndex(
                commits,
                (p) => fileSet.has(p),
                settings,
                commitTermMemo,
                (p) => families.has(familyOfPath(p)),
              );
            } catch (err) {
              // history is one optional signal: retrieval goes on without it
              progress(`history unavailable for ${snapshot.repo}@${snapshot.commit.slice(0, 12)}: ${(err as Error).message.split('\n')[0]}`);
              return undefined;
            }
          })();
          return history;
        };
        return { searchHistory: async (query, k) => (await historyIndex())?.search(query, k) ?? [] };
      },
    };
  },
};
