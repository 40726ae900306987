/**
 * Faults of training-pair mining (issue 42, round 3), each on a real git repository made here:
 * - a dataset value reached git as an option: `base_commit: "--output=FILE"` made `git show` write FILE, and the
 *   empty answer became a 1970 cutoff (that repository then yielded 0 pairs, silently);
 * - `parseCommitLog` ended a message at its first \x02, so a message could add a file the commit never touched;
 * - one repository with a huge message or a corrupt mirror aborted the whole run, with no output for any repository.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitAt, newWorkTree } from '../support/git-history.ts';
import { cutoffOf, minePairs } from '../../scripts/ranker/training-pairs.ts';
import { CommitHistoryReader } from '../../src/repo/history.ts';
import { streamCommitLog } from '../../src/repo/commit-log.ts';

const run = promisify(execFile);
let dir: string;
let gitDir: string;
const ids: Record<string, string> = {};

async function commit(work: string, name: string, files: Record<string, string>, message: string, time: number): Promise<void> {
  ids[name] = await commitAt(work, files, message, time);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-mining-hostile-'));
  const work = await newWorkTree(dir);
  await commit(work, 'root', { 'pkg/a.py': 'a = 1\n', 'pkg/b.py': 'b = 1\n' }, 'Initial import', 1000);
  // the message copies the old format's separators and names a file on a line of its own
  await commit(work, 'forged', { 'pkg/a.py': 'a = 2\n' }, 'Fixed #12 -- a was off\u0002\npkg/b.py\n\u0001more\n', 2000);
  await commit(work, 'huge', { 'pkg/b.py': 'b = 2\n' }, `Fixed #13 -- b ${'x'.repeat(3 << 20)}\n`, 3000);
  await commit(work, 'base', { 'pkg/a.py': 'a = 3\n' }, 'Fixed #14 -- the base', 4000);
  await mkdir(path.join(dir, 'mirrors', 'acme+pkg'), { recursive: true });
  gitDir = path.join(dir, 'mirrors', 'acme+pkg', 'repo');
  await run('git', ['clone', '-q', '--bare', work, gitDir]);
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('mining from hostile data', () => {
  it('a commit value from a dataset never reaches git as an option, and an empty answer is no cutoff', async () => {
    const target = path.join(dir, 'written-by-git.txt');
    await expect(cutoffOf(gitDir, [`--output=${target}`])).rejects.toThrow(/not a commit hash/);
    expect(existsSync(target)).toBe(false);
    await expect(cutoffOf(gitDir, ['0'.repeat(40)])).rejects.toThrow(/0{40}/);
    expect(await cutoffOf(gitDir, [ids.base!])).toBe(4000);
  });

  it("a message that copies the log format's separators adds no file; a huge one is cut, not fatal", async () => {
    const pairs = await minePairs({ repo: 'acme/pkg', gitDir });
    const forged = pairs.find((p) => p.commit === ids.forged);
    // before: ['pkg/a.py', 'pkg/b.py'], the second named only in the message
    expect(forged?.files).toEqual(['pkg/a.py']);
    expect(forged?.query).toMatch(/^Fixed #12 -- a was off/);
    expect(pairs.find((p) => p.commit === ids.huge)?.files).toEqual(['pkg/b.py']);
    // retrieval's history channel reads the same log the same way
    const history = await new CommitHistoryReader().recentCommits(gitDir, ids.base!, 10);
    expect(history.find((c) => c.id === ids.forged)?.files).toEqual(['pkg/a.py']);
    const commits: Array<{ message: string; truncated: boolean }> = [];
    await streamCommitLog(gitDir, ['-n', '1', ids.huge!], '%H', (c) => commits.push(c), { maxTokenBytes: 1 << 20 });
    expect(commits[0]).toMatchObject({ truncated: true });
    expect(commits[0]!.message.length).toBeLessThanOrEqual(1 << 20);
  });

  it('a corrupt mirror is reported in the summary with its reason; the other repositories are mined and written', async () => {
    await mkdir(path.join(dir, 'mirrors', 'broken+repo', 'repo'), { recursive: true });
    await writeFile(path.join(dir, 'mirrors', 'broken+repo', 'repo', 'HEAD'), 'ref: refs/heads/main\n');
    const evaluated = path.join(dir, 'evaluated.jsonl');
    await writeFile(evaluated, `${JSON.stringify({ repo: 'acme/pkg', base_commit: ids.base })}\n`);
    const out = path.join(dir, 'pairs.jsonl');
    const script = path.resolve(import.meta.dirname, '../../scripts/mine-training-pairs.ts');
    const result = await run(process.execPath, ['--import', 'tsx', script, '--mirrors', path.join(dir, 'mirrors'), '--exclude', evaluated, '--out', out]).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    // before: an uncaught GitCommandError, nothing written
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/\| broken\/repo \| failed: .*git/);
    expect(result.stdout).toMatch(/\| acme\/pkg \| \d{4}-\d{2}-\d{2} \| 2 \|/);
    const written = (await readFile(out, 'utf8')).trim().split('\n');
    expect(written.map((l) => (JSON.parse(l) as { commit: string }).commit).sort()).toEqual([ids.forged, ids.huge].sort());
  }, 120_000);

  it('an evaluated row whose base_commit is not a hash stops mining, naming file and line', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    await writeFile(bad, `${JSON.stringify({ repo: 'acme/pkg', base_commit: `--output=${path.join(dir, 'x')}` })}\n`);
    const script = path.resolve(import.meta.dirname, '../../scripts/mine-training-pairs.ts');
    await expect(
      run(process.execPath, ['--import', 'tsx', script, '--mirrors', path.join(dir, 'mirrors'), '--exclude', bad, '--out', path.join(dir, 'y.jsonl')]),
    ).rejects.toThrow(/bad\.jsonl:1: base_commit is not a commit hash/);
    expect(existsSync(path.join(dir, 'x'))).toBe(false);
  }, 60_000);
});
