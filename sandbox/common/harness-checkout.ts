/**
 * A self-contained git checkout of `repo` at `commit` as the harness makes it (image_builder's
 * git_clone_timesafe): the commit's whole history on the default branch, and the tags whose commit is no
 * newer than it; nothing later. Version-from-git tools (setuptools_scm, versioneer, `git describe`) then
 * see the version the harness' images see; a depth-1 fetch without tags made pytest report 0.1.dev1 and
 * fail its own minversion check. A failure names the repository, commit and mirror (the image recipe makes it
 * an ImageBuildError).
 */
import path from 'node:path';
import { assertCommitHash, runGit } from '../../src/repo/git.ts';

export async function harnessCheckout(gitDir: string, repo: string, commit: string, dir: string): Promise<void> {
  const mirror = path.resolve(gitDir);
  const git = async (args: string[]): Promise<string> => (await runGit(args)).stdout.toString('utf8').trim();
  // the dataset's base_commit: a hash, never an option or a revision expression
  assertCommitHash(commit, `${repo}: base_commit`);
  try {
    const baseTime = Number(await git(['--git-dir', mirror, 'show', '-s', '--format=%ct', '--end-of-options', `${commit}^{commit}`]));
    const tags = (await git(['--git-dir', mirror, 'for-each-ref', '--format=%(refname)%09%(*committerdate:unix)%09%(committerdate:unix)', 'refs/tags']))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'))
      // annotated tags carry the peeled commit's date in the second column, lightweight ones in the third
      .filter(([, peeled, own]) => Number(peeled || own) <= baseTime)
      .map(([ref]) => ref);
    const branch = await git(['--git-dir', mirror, 'symbolic-ref', '--short', 'HEAD']).catch(() => 'main');
    await runGit(['init', '-q', `--initial-branch=${branch || 'main'}`, dir]);
    await runGit(['-C', dir, 'fetch', '-q', '--no-tags', `file://${mirror}`, commit]);
    await runGit(['-C', dir, 'reset', '-q', '--hard', 'FETCH_HEAD']);
    // many refspecs per fetch, but not so many that one command line grows without bound
    for (let i = 0; i < tags.length; i += 500) {
      await runGit(['-C', dir, 'fetch', '-q', '--no-tags', `file://${mirror}`, ...tags.slice(i, i + 500).map((ref) => `+${ref}:${ref}`)]);
    }
  } catch (err) {
    throw new Error(`cannot check out ${repo}@${commit} from ${mirror}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
