/**
 * A read-only view of one repository at one commit, read through its mirror's long-lived git processes
 * (no checkout). Trees come from the store's per-commit cache; reads are tracked so closing the store waits
 * for them.
 */
import { recentChanges, type CommitChange } from './change-history.ts';
import { RepoError } from './errors.ts';
import type { CommitHistoryReader, CommitRecord } from './history.ts';
import { describeGitFailure, type FileTree, type Mirror } from './mirrors.ts';
import type { RepoSnapshot, TreeEntry } from './types.ts';

/** What a snapshot reads through (RepoStore provides it). */
export interface SnapshotSource {
  fileTree(mirror: Mirror, commit: string): Promise<FileTree>;
  /** registers an operation the store's close() waits for */
  track<T>(operation: Promise<T>): Promise<T>;
  readonly history: CommitHistoryReader;
}

export class GitRepoSnapshot implements RepoSnapshot {
  constructor(
    private readonly store: SnapshotSource,
    private readonly mirror: Mirror,
    readonly commit: string,
  ) {}

  get repo(): string {
    return this.mirror.repo;
  }

  /** the mirror's git directory, for stages that run their own git commands against this commit */
  get gitDir(): string {
    return this.mirror.gitDir;
  }

  async listFiles(): Promise<TreeEntry[]> {
    return (await this.store.fileTree(this.mirror, this.commit)).entries;
  }

  readFile(filePath: string): Promise<string | undefined> {
    return this.store.track(this.readFileNow(filePath));
  }

  readFiles(paths: readonly string[]): Promise<Map<string, string>> {
    return this.store.track(this.readFilesNow(paths));
  }

  readBlob(blob: string): Promise<Buffer> {
    return this.store.track(this.readBlobNow(blob));
  }

  recentCommits(limit: number): Promise<CommitRecord[]> {
    return this.store.track(
      this.store.history.recentCommits(this.mirror.gitDir, this.commit, limit).catch((err: unknown) => {
        throw new RepoError('git-failed', this.repo, `${this.repo}@${this.commit}: reading the commit history failed: ${describeGitFailure(err)}`, {
          commit: this.commit,
          cause: err,
        });
      }),
    );
  }

  recentChanges(limit: number): Promise<CommitChange[]> {
    return this.store.track(
      recentChanges(this.mirror.gitDir, this.commit, limit).catch((err: unknown) => {
        throw new RepoError('git-failed', this.repo, `${this.repo}@${this.commit}: reading the changes of its history failed: ${describeGitFailure(err)}`, {
          commit: this.commit,
          cause: err,
        });
      }),
    );
  }

  private async readFileNow(filePath: string): Promise<string | undefined> {
    const entry = (await this.store.fileTree(this.mirror, this.commit)).byPath.get(filePath);
    if (!entry) return undefined;
    return (await this.readBlobNow(entry.blob)).toString('utf8');
  }

  private async readFilesNow(paths: readonly string[]): Promise<Map<string, string>> {
    const tree = await this.store.fileTree(this.mirror, this.commit);
    const wanted = paths.map((p) => tree.byPath.get(p)).filter((e): e is TreeEntry => e !== undefined);
    const contents = await Promise.all(wanted.map((entry) => this.readBlobNow(entry.blob)));
    const result = new Map<string, string>();
    wanted.forEach((entry, i) => result.set(entry.path, contents[i]!.toString('utf8')));
    return result;
  }

  private async readBlobNow(blob: string): Promise<Buffer> {
    if (!/^[0-9a-f]{40,64}$/.test(blob)) {
      throw new RepoError('git-failed', this.repo, `${this.repo}: invalid blob id ${JSON.stringify(blob)}`, { commit: this.commit });
    }
    let object: Awaited<ReturnType<Mirror['catFile']['read']>>;
    try {
      object = await this.mirror.catFile.read(blob);
    } catch (err) {
      throw new RepoError('git-failed', this.repo, `${this.repo}@${this.commit}: reading blob ${blob} failed: ${describeGitFailure(err)}`, {
        commit: this.commit,
        cause: err,
      });
    }
    if (object?.type !== 'blob') {
      throw new RepoError('git-failed', this.repo, `${this.repo}@${this.commit}: blob ${blob} is ${object ? `a ${object.type}` : 'missing from the mirror'}`, {
        commit: this.commit,
      });
    }
    return object.content;
  }
}
