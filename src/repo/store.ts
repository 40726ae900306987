/**
 * The repository store: one bare mirror per repository, read at any commit without a checkout.
 *
 * Where a mirror comes from, first match wins:
 *   1. `mirrors["owner/name"]`: an explicit path (bare repository, `.git` folder, or a work tree with `.git`);
 *   2. `<mirrorsDir>/owner+name/repo` (also `<mirrorsDir>/owner+name` itself, and SWE-bench's own GitHub
 *      mirror naming `<mirrorsDir>/swe-bench+owner__name/repo`);
 *   3. the store's own clone `<cacheDir>/repos/owner+name.git`, made with `git clone --mirror` from
 *      `cloneUrl(repo)` on first use when `allowClone` is true (the default) and no `mirrorsDir` is given:
 *      a repository missing from a given mirrors folder is an error naming the folder, never a clone.
 *
 * Trees come from `git ls-tree -r -l -z` (cached per commit in a small LRU) and blobs from one long-lived
 * `git cat-file --batch` process per mirror (see catfile.ts). Commits resolve through that same process
 * (`<rev>^{commit}`, what `git rev-parse --verify <rev>^{commit}` answers), so short ids, tags and refs
 * become full ids without one git process per instance. Every failure is a RepoError naming repo/commit.
 *
 * `materialize` makes a real work tree only for the stages that need one (Docker, applying patches).
 * It uses a fresh repository whose object store *borrows* the mirror's objects (objects/info/alternates)
 * and a detached checkout: as fast as `git archive | tar -x` (~1.7 s for a django commit here) but the
 * result is a git checkout, so `git diff`/`git apply` work in it. The borrowed objects mean the checkout's
 * history needs the mirror to stay where it is; pass `{ git: false }` for self-contained plain files
 * (`git archive | tar -x`), e.g. to copy into a container.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RepoError } from './errors.ts';
import { CommitHistoryReader } from './history.ts';
import { findGitDir, gitEnv, runGit } from './git.ts';
import { LRUCache } from 'lru-cache';
import { assertRepoName, defaultCloneUrl, describeGitFailure, mirrorFolderName, Mirror, type FileTree } from './mirrors.ts';
import { GitRepoSnapshot, type SnapshotSource } from './snapshot.ts';

export interface RepoStoreOptions {
  /** holds the store's own clones under `repos/` */
  cacheDir: string;
  /** "owner/name" -> path to a bare repository or a .git folder (or a work tree containing .git) */
  mirrors?: Record<string, string>;
  /** folder holding mirrors laid out as `owner+name/repo` */
  mirrorsDir?: string;
  /** where to clone a repository from; default `https://github.com/<repo>.git` */
  cloneUrl?: (repo: string) => string;
  /** clone missing repositories into the cache (default true) */
  allowClone?: boolean;
  /** how many commits' file lists to keep in memory per store (default 16) */
  treeCacheSize?: number;
}

export interface MaterializeOptions {
  /** true (default): a git checkout borrowing the mirror's objects; false: plain files from `git archive` */
  git?: boolean;
}

export class RepoStore implements SnapshotSource {
  readonly cacheDir: string;
  private readonly mirrors: Record<string, string>;
  private readonly mirrorsDir: string | undefined;
  private readonly cloneUrl: (repo: string) => string;
  private readonly allowClone: boolean;
  private readonly opened = new Map<string, Promise<Mirror>>();
  private readonly commits = new Map<string, Promise<string>>();
  private readonly trees: LRUCache<string, Promise<FileTree>>;
  private readonly inflight = new Set<Promise<unknown>>();
  /** commits before a snapshot's commit, memoized per mirror */
  readonly history = new CommitHistoryReader();

  constructor(options: RepoStoreOptions) {
    this.cacheDir = path.resolve(options.cacheDir);
    this.mirrors = { ...(options.mirrors ?? {}) };
    this.mirrorsDir = options.mirrorsDir === undefined ? undefined : path.resolve(options.mirrorsDir);
    this.cloneUrl = options.cloneUrl ?? defaultCloneUrl;
    this.allowClone = options.allowClone ?? true;
    this.trees = new LRUCache({ max: Math.max(1, options.treeCacheSize ?? 16) });
  }

  /** A read-only view of `repo` at `commit` (short ids and refs resolve to the full commit id). */
  async snapshot(repo: string, commit: string): Promise<GitRepoSnapshot> {
    const mirror = await this.mirror(repo);
    const full = await this.resolveCommit(mirror, commit);
    return new GitRepoSnapshot(this, mirror, full);
  }

  /** The git directory the store reads `repo` from (cloning it first if that is how it is found). */
  async gitDir(repo: string): Promise<string> {
    return (await this.mirror(repo)).gitDir;
  }

  /**
   * Writes a work tree of `repo` at `commit` into `dir` and returns its absolute path. `dir` must be absent
   * or empty, or an earlier git materialization of the same commit, which is reset to pristine
   * (`reset --hard` + `clean -fdx`), so stages can rerun.
   */
  async materialize(repo: string, commit: string, dir: string, options: MaterializeOptions = {}): Promise<string> {
    const snapshot = await this.snapshot(repo, commit);
    const target = path.resolve(dir);
    const useGit = options.git ?? true;
    const fail = (what: string, err: unknown): RepoError =>
      new RepoError('git-failed', repo, `${repo}@${snapshot.commit}: ${what} in ${target} failed: ${describeGitFailure(err)}`, {
        commit: snapshot.commit,
        cause: err,
      });

    const existing = await fs.readdir(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    if (existing.length > 0) {
      if (useGit && existing.includes('.git')) {
        const head = await runGit(['-C', target, 'rev-parse', '--verify', '--quiet', 'HEAD'], { okExitCodes: [1] }).catch(() => undefined);
        if (head?.stdout.toString('utf8').trim() === snapshot.commit) {
          try {
            await runGit(['-C', target, 'reset', '--hard', '--quiet', snapshot.commit]);
            await runGit(['-C', target, 'clean', '-fdxq']);
          } catch (err) {
            throw fail('resetting the existing checkout', err);
          }
          return target;
        }
      }
      throw new RepoError(
        'git-failed',
        repo,
        `${repo}@${snapshot.commit}: cannot materialize into ${target}: the folder is not empty${useGit ? ' and is not a checkout of this commit' : ''}`,
        {
          commit: snapshot.commit,
        },
      );
    }
    await fs.mkdir(target, { recursive: true });

    if (useGit) {
      try {
        await runGit(['init', '--quiet', target]);
        const objects = path.join(snapshot.gitDir, 'objects');
        await fs.writeFile(path.join(target, '.git', 'objects', 'info', 'alternates'), objects + '\n');
        await runGit(['-C', target, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', snapshot.commit]);
      } catch (err) {
        throw fail('checkout', err);
      }
    } else {
      try {
        await archiveInto(snapshot.gitDir, snapshot.commit, target);
      } catch (err) {
        throw fail('git archive | tar -x', err);
      }
    }
    return target;
  }

  /** Forgets the commit history and tree listings read for `repo` (a run that has moved on; read again if needed). */
  releaseRepo(repo: string): void {
    void this.opened.get(repo)?.then(
      (mirror) => {
        this.history.forget(mirror.gitDir);
        mirror.trees.clear();
      },
      () => undefined,
    );
  }

  /**
   * Ends every cat-file process (call it when a run is done, or the processes keep Node alive). Reading
   * afterwards is allowed and simply starts a new process.
   */
  async close(): Promise<void> {
    // Reads already started finish first (they may not have reached cat-file yet).
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    const mirrors = await Promise.allSettled([...this.opened.values()]);
    await Promise.all(mirrors.map((m) => (m.status === 'fulfilled' ? Promise.all([m.value.catFile.close(), m.value.catFileCheck.close()]) : undefined)));
  }

  /** @internal counts a snapshot read as in flight until it settles, so close() can wait for it */
  track<T>(operation: Promise<T>): Promise<T> {
    this.inflight.add(operation);
    const forget = (): void => void this.inflight.delete(operation);
    operation.then(forget, forget);
    return operation;
  }

  /** @internal the cached file list of one commit */
  fileTree(mirror: Mirror, commit: string): Promise<FileTree> {
    const key = `${mirror.gitDir}\0${commit}`;
    let tree = this.trees.get(key);
    if (!tree) {
      tree = mirror.trees.listFiles(commit).then(
        (entries) => {
          return { entries, byPath: new Map(entries.map((e) => [e.path, e])) };
        },
        (err: unknown) => {
          this.trees.delete(key); // a failure is not cached
          throw new RepoError('git-failed', mirror.repo, `${mirror.repo}@${commit}: listing files failed: ${describeGitFailure(err)}`, {
            commit,
            cause: err,
          });
        },
      );
      this.trees.set(key, tree);
    }
    return tree;
  }

  private mirror(repo: string): Promise<Mirror> {
    assertRepoName(repo);
    let mirror = this.opened.get(repo);
    if (!mirror) {
      mirror = this.openMirror(repo);
      this.opened.set(repo, mirror);
      mirror.catch(() => this.opened.delete(repo)); // retry on the next call (e.g. after the user adds a mirror)
    }
    return mirror;
  }

  private async openMirror(repo: string): Promise<Mirror> {
    const looked: string[] = [];
    // GitHub names are case-insensitive and the Hub lowercases some owners (`briannesbitt/carbon` is
    // `briannesbitt/Carbon`): an exact key wins, else the one key that differs only in case.
    const explicit = this.mirrors[repo] ?? this.mirrors[caseInsensitiveMatch(Object.keys(this.mirrors), repo, 'in --mirror') ?? ''];
    if (explicit !== undefined) {
      const gitDir = await findGitDir(explicit);
      if (!gitDir) {
        throw new RepoError('missing-repo', repo, `${repo}: the mirror given for it, ${path.resolve(explicit)}, is not a git repository`);
      }
      return new Mirror(repo, gitDir, false);
    }
    if (this.mirrorsDir) {
      const [owner, name] = repo.split('/') as [string, string];
      const candidates = [
        path.join(this.mirrorsDir, mirrorFolderName(repo), 'repo'),
        path.join(this.mirrorsDir, mirrorFolderName(repo)),
        path.join(this.mirrorsDir, `swe-bench+${owner}__${name}`, 'repo'),
      ];
      for (const candidate of candidates) {
        const gitDir = await findGitDir(candidate);
        if (gitDir) return new Mirror(repo, gitDir, false);
      }
      const folders = await fs.readdir(this.mirrorsDir).catch(() => [] as string[]);
      for (const wanted of [mirrorFolderName(repo), `swe-bench+${owner}__${name}`]) {
        const folder = caseInsensitiveMatch(folders, wanted, `in --mirrors ${this.mirrorsDir}`);
        if (!folder) continue;
        const gitDir = (await findGitDir(path.join(this.mirrorsDir, folder, 'repo'))) ?? (await findGitDir(path.join(this.mirrorsDir, folder)));
        if (gitDir) return new Mirror(repo, gitDir, false);
      }
      looked.push(candidates[0]!);
    }
    const cloneDir = path.join(this.cacheDir, 'repos', `${mirrorFolderName(repo)}.git`);
    const cached = await findGitDir(cloneDir);
    if (cached) return new Mirror(repo, cached, true);
    looked.push(cloneDir);
    if (this.mirrorsDir) {
      // The user said where the mirrors are: a miss there is a wrong path or a missing mirror, never a reason
      // to go to the network behind their back.
      const exists = await fs.stat(this.mirrorsDir).then(
        (st) => st.isDirectory(),
        () => false,
      );
      throw new RepoError(
        'missing-repo',
        repo,
        exists
          ? `${repo}: no mirror for it in --mirrors ${path.resolve(this.mirrorsDir)} (expected ${mirrorFolderName(repo)}/repo or ` +
              `swe-bench+${repo.replace('/', '__')}/repo there); add it, pass --mirror ${repo}=PATH, or drop --mirrors to clone`
          : `${repo}: the --mirrors folder ${path.resolve(this.mirrorsDir)} does not exist (expected ${mirrorFolderName(repo)}/repo in it)`,
      );
    }
    if (!this.allowClone) {
      throw new RepoError(
        'missing-repo',
        repo,
        `${repo}: no mirror found (looked in ${looked.join(', ')}) and cloning is off; ` +
          `pass --mirror ${repo}=PATH or --mirrors DIR (holding ${mirrorFolderName(repo)}/repo)`,
      );
    }
    await this.cloneMirror(repo, cloneDir);
    return new Mirror(repo, cloneDir, true);
  }

  private async cloneMirror(repo: string, cloneDir: string): Promise<void> {
    const url = this.cloneUrl(repo);
    const partial = `${cloneDir}.partial-${process.pid}`;
    await fs.rm(partial, { recursive: true, force: true });
    await fs.mkdir(path.dirname(cloneDir), { recursive: true });
    try {
      await runGit(['clone', '--mirror', '--quiet', url, partial]);
      try {
        await fs.rename(partial, cloneDir); // only a complete clone ever appears under its final name
      } catch (err) {
        // another locfix process finished the same clone first: use theirs
        if (!(await findGitDir(cloneDir))) throw err;
        await fs.rm(partial, { recursive: true, force: true });
      }
    } catch (err) {
      await fs.rm(partial, { recursive: true, force: true });
      throw new RepoError('missing-repo', repo, `${repo}: cloning ${url} into ${cloneDir} failed: ${describeGitFailure(err)}`, { cause: err });
    }
  }

  private resolveCommit(mirror: Mirror, commit: string): Promise<string> {
    const key = `${mirror.gitDir}\0${commit}`;
    let resolved = this.commits.get(key);
    if (!resolved) {
      resolved = this.revParse(mirror, commit);
      this.commits.set(key, resolved);
      resolved.catch(() => this.commits.delete(key));
    }
    return resolved;
  }

  private async revParse(mirror: Mirror, commit: string): Promise<string> {
    const repo = mirror.repo;
    if (commit.length === 0 || commit.startsWith('-') || /[\s\0]/.test(commit)) {
      throw new RepoError('missing-commit', repo, `${repo}: invalid commit ${JSON.stringify(commit)}`, { commit });
    }
    // Resolved through the mirror's cat-file process (`<rev>^{commit}` peels tags and expands short ids),
    // which costs far less than one `git rev-parse` process per instance. Missing or ambiguous -> undefined.
    const lookup = async (): Promise<string | undefined> => {
      const object = await mirror.catFile.read(`${commit}^{commit}`);
      return object?.type === 'commit' ? object.oid : undefined;
    };
    try {
      let full = await lookup();
      if (!full && mirror.owned && this.allowClone) {
        // The store's own clone may predate the commit: fetch once, then look again.
        await runGit(['--git-dir', mirror.gitDir, 'fetch', '--quiet', '--prune', 'origin']).catch(() => undefined);
        full = await lookup();
      }
      if (full) return full;
    } catch (err) {
      throw new RepoError('git-failed', repo, `${repo}: resolving commit ${commit} failed: ${describeGitFailure(err)}`, { commit, cause: err });
    }
    throw new RepoError('missing-commit', repo, `${repo}: commit ${commit} is not in the mirror ${mirror.gitDir}`, { commit });
  }
}

/** `git archive <commit> | tar -x -C <dir>` without a shell. */
function archiveInto(gitDir: string, commit: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const git = spawn('git', ['--git-dir', gitDir, 'archive', '--format=tar', commit], { env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const tar = spawn('tar', ['-x', '-f', '-', '-C', dir], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    git.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    tar.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    git.stdout.pipe(tar.stdin);
    tar.stdin.on('error', () => {});
    let gitCode: number | null = null;
    let failed = false;
    const onError = (err: Error): void => {
      if (failed) return;
      failed = true;
      git.kill();
      tar.kill();
      reject(err);
    };
    git.on('error', onError);
    tar.on('error', onError);
    git.on('close', (code) => (gitCode = code));
    tar.on('close', (code) => {
      if (failed) return;
      const finish = (): void => {
        if (gitCode === 0 && code === 0) resolve();
        else reject(new Error(`git archive exit ${gitCode}, tar exit ${code}${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
      };
      if (git.exitCode !== null || gitCode !== null) finish();
      else git.once('close', (c) => ((gitCode = c), finish()));
    });
  });
}

/** The one name that equals `wanted` but for case; two such names are ambiguous and refused. */
function caseInsensitiveMatch(names: readonly string[], wanted: string, where: string): string | undefined {
  const lower = wanted.toLowerCase();
  const matches = names.filter((n) => n.toLowerCase() === lower);
  if (matches.length > 1) {
    throw new RepoError('missing-repo', wanted, `${wanted}: ${matches.length} mirrors ${where} differ from it only in case (${matches.join(', ')}); keep one`);
  }
  return matches[0];
}
