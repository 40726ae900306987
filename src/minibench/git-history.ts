/**
 * Writes a fixture project's history as a bare git repository with `git fast-import` (fixed identities,
 * dates, modes and messages, no user or system git configuration, so commit ids are the same on every
 * machine), and computes each instance's gold and test patches with git itself from the fixture files.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readTree, type LoadedProject, type MiniBenchInstanceInfo, type ProjectSpec } from './fixtures.ts';

const AUTHOR = { name: 'Minibench Maintainers', email: 'maintainers@minibench.invalid' };
const DEFAULT_BRANCH = 'main';

/** An environment that makes git ignore the user's and the system's configuration and repository hints. */
function gitEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('GIT_')) env[key] = value;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(home, 'gitconfig-empty'),
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    TZ: 'UTC',
    GIT_AUTHOR_NAME: AUTHOR.name,
    GIT_AUTHOR_EMAIL: AUTHOR.email,
    GIT_COMMITTER_NAME: AUTHOR.name,
    GIT_COMMITTER_EMAIL: AUTHOR.email,
  });
  return env;
}

/** Options passed to every git call, so that no configuration default can change the output. */
const GIT_FIXED_CONFIG = [
  '-c',
  'core.autocrlf=false',
  '-c',
  'core.fileMode=true',
  '-c',
  'core.abbrev=10',
  '-c',
  'core.quotePath=false',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'tag.gpgSign=false',
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.algorithm=myers',
  '-c',
  'init.defaultBranch=' + DEFAULT_BRANCH,
];

async function git(cwd: string, home: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...GIT_FIXED_CONFIG, ...args],
      { cwd, env: gitEnv(home), maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`git ${args.join(' ')} (in ${cwd}) failed: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      },
    );
    // A git command that does not read its input may exit before we finish writing it; its exit status,
    // not the broken pipe, is what counts.
    child.stdin?.on('error', () => {});
    child.stdin?.end(input ?? '');
  });
}

/** The full tree of one commit: files of `from` minus `exclude`, plus (and overridden by) `overlay`. */
async function commitTree(project: LoadedProject, commit: ProjectSpec['commits'][number]): Promise<Map<string, Buffer>> {
  const where = `minibench fixture ${project.dir}/project.json, commit "${commit.label}"`;
  const tree = commit.from ? await readTree(path.join(project.dir, commit.from)) : new Map<string, Buffer>();
  for (const rel of commit.exclude) {
    if (!tree.delete(rel)) throw new Error(`${where}: excluded file "${rel}" is not in "${commit.from ?? '(nothing)'}"`);
  }
  if (commit.overlay) {
    for (const [rel, content] of await readTree(path.join(project.dir, commit.overlay))) tree.set(rel, content);
  }
  if (tree.size === 0) throw new Error(`${where}: the commit would be empty`);
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `2024-01-15T09:00:00+01:00` → `1705305600 +0100`, the form git stores in commits. */
function gitTimestamp(iso: string): string {
  const seconds = Math.floor(Date.parse(iso) / 1000);
  const zone = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  const offset = zone ? `${zone[1]}${zone[2]}${zone[3]}` : '+0000';
  return `${seconds} ${offset}`;
}

/**
 * Builds a `git fast-import` stream. One process writes the whole history (and the throwaway commits the
 * patches are diffed from), which is much faster than one `git add`/`git commit` per step and gives the
 * same commit ids as porcelain commits with the same content, identity, dates and message.
 */
class FastImportStream {
  private readonly chunks: Buffer[] = [];
  private nextMark = 1;

  commit(ref: string, options: { date: string; message: string; parentMark?: number; files: Map<string, Buffer>; replaceTree: boolean }): number {
    const mark = this.nextMark++;
    const stamp = gitTimestamp(options.date);
    const message = Buffer.from(options.message.endsWith('\n') ? options.message : options.message + '\n');
    this.text(`commit ${ref}\nmark :${mark}\n`);
    this.text(`author ${AUTHOR.name} <${AUTHOR.email}> ${stamp}\ncommitter ${AUTHOR.name} <${AUTHOR.email}> ${stamp}\n`);
    this.text(`data ${message.length}\n`);
    this.chunks.push(message, Buffer.from('\n'));
    if (options.parentMark !== undefined) this.text(`from :${options.parentMark}\n`);
    if (options.replaceTree) this.text('deleteall\n');
    for (const [rel, content] of options.files) {
      if (/[\n"]/.test(rel) || rel.startsWith(' ')) throw new Error(`minibench fixture: unsupported file name ${JSON.stringify(rel)}`);
      this.text(`M 100644 inline ${rel}\ndata ${content.length}\n`);
      this.chunks.push(content, Buffer.from('\n'));
    }
    this.text('\n');
    return mark;
  }

  reset(ref: string, mark: number): void {
    this.text(`reset ${ref}\nfrom :${mark}\n\n`);
  }

  private text(value: string): void {
    this.chunks.push(Buffer.from(value, 'utf8'));
  }

  bytes(): Buffer {
    return Buffer.concat([...this.chunks, Buffer.from('done\n')]);
  }
}

/** Runs `git fast-import` on `stream` and returns mark number → commit id. */
async function runFastImport(repo: string, home: string, stream: Buffer): Promise<Map<number, string>> {
  const marksFile = path.join(repo, 'minibench-marks');
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      'git',
      [...GIT_FIXED_CONFIG, 'fast-import', '--quiet', '--done', `--export-marks=${marksFile}`],
      { cwd: repo, env: gitEnv(home), maxBuffer: 16 * 1024 * 1024 },
      (err, _stdout, stderr) => (err ? reject(new Error(`git fast-import (in ${repo}) failed: ${String(stderr).trim() || err.message}`)) : resolve()),
    );
    child.stdin?.on('error', () => {}); // a failing fast-import is reported through its exit status
    child.stdin?.end(stream);
  });
  const marks = new Map<number, string>();
  for (const line of (await fs.readFile(marksFile, 'utf8')).split('\n')) {
    const match = /^:(\d+) ([0-9a-f]{40})$/.exec(line);
    if (match) marks.set(Number(match[1]), match[2]);
  }
  await fs.rm(marksFile, { force: true });
  return marks;
}

/** Files named in a `git diff` output, in order. */
function filesInDiff(diff: string): string[] {
  const files: string[] = [];
  for (const match of diff.matchAll(/^diff --git a\/(.+?) b\/(.+)$/gm)) files.push(match[2]);
  return files;
}

async function diffCommits(repo: string, home: string, from: string, to: string, expected: Iterable<string>, what: string): Promise<string> {
  const diff = await git(repo, home, ['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to]);
  const changed = new Set(filesInDiff(diff));
  const unchanged = [...expected].filter((rel) => !changed.has(rel));
  if (unchanged.length) throw new Error(`${what}: ${unchanged.join(', ')} identical to the base commit`);
  return diff;
}

export interface BuiltProject {
  rows: Record<string, unknown>[];
  catalog: MiniBenchInstanceInfo[];
}

export async function buildProject(project: LoadedProject, mirrorsDir: string, scratch: string): Promise<BuiltProject> {
  const [owner, name] = project.spec.repo.split('/');
  const scratchRepo = path.join(scratch, `${owner}+${name}.git`);
  const home = path.join(scratch, 'home');
  await fs.mkdir(scratchRepo, { recursive: true });
  await git(scratchRepo, home, ['init', '-q', '--bare', `--initial-branch=${DEFAULT_BRANCH}`]);

  const stream = new FastImportStream();
  const markOf = new Map<string, number>();
  let previous: number | undefined;
  for (const commit of project.spec.commits) {
    previous = stream.commit(`refs/heads/${DEFAULT_BRANCH}`, {
      date: commit.date,
      message: commit.message,
      parentMark: previous,
      files: await commitTree(project, commit),
      replaceTree: true,
    });
    markOf.set(commit.label, previous);
    if (/^v\d/.test(commit.label)) stream.reset(`refs/tags/${commit.label}`, previous);
  }
  // Throwaway commits (base + fix files, base + test files) under refs/minibench/*, which a clone leaves
  // behind: the published mirror holds the history only, never a gold fix.
  const patchMarks = new Map<string, { fix: number; tests: number }>();
  for (const instance of project.instances) {
    const base = markOf.get(instance.meta.base!)!;
    const common = { date: instance.meta.created_at, parentMark: base, replaceTree: false };
    patchMarks.set(instance.id, {
      fix: stream.commit(`refs/minibench/${instance.id}/fix`, { ...common, message: `gold patch of ${instance.id}`, files: instance.fixFiles }),
      tests: stream.commit(`refs/minibench/${instance.id}/tests`, { ...common, message: `test patch of ${instance.id}`, files: instance.testFiles }),
    });
  }
  const commits = await runFastImport(scratchRepo, home, stream.bytes());
  const commitOf = (mark: number): string => {
    const id = commits.get(mark);
    if (!id) throw new Error(`git fast-import in ${scratchRepo} did not report commit mark :${mark}`);
    return id;
  };

  const built = await Promise.all(
    project.instances.map(async (instance) => {
      const where = `minibench instance ${instance.id}`;
      const baseLabel = instance.meta.base!;
      const baseCommit = commitOf(markOf.get(baseLabel)!);
      const marks = patchMarks.get(instance.id)!;
      const [patch, testPatch] = await Promise.all([
        diffCommits(scratchRepo, home, baseCommit, commitOf(marks.fix), instance.fixFiles.keys(), `${where}: fix/`),
        diffCommits(scratchRepo, home, baseCommit, commitOf(marks.tests), instance.testFiles.keys(), `${where}: test_patch/`),
      ]);
      return {
        row: {
          repo: project.spec.repo,
          instance_id: instance.id,
          base_commit: baseCommit,
          patch,
          test_patch: testPatch,
          problem_statement: instance.problemStatement,
          hints_text: '',
          created_at: instance.meta.created_at,
          version: instance.meta.version,
          FAIL_TO_PASS: JSON.stringify(instance.meta.FAIL_TO_PASS),
          PASS_TO_PASS: JSON.stringify(instance.meta.PASS_TO_PASS),
          environment_setup_commit: '', // filled in below, per version
        },
        info: {
          instance_id: instance.id,
          repo: project.spec.repo,
          goldFiles: filesInDiff(patch),
          testFiles: filesInDiff(testPatch),
          description: instance.meta.description,
          kinds: instance.meta.kinds,
          baseLabel,
        },
      };
    }),
  );
  // As in SWE-bench, one environment commit per (repository, version): the newest base of that version.
  const envCommit = new Map<string, { createdAt: string; commit: string }>();
  for (const { row } of built) {
    const current = envCommit.get(row.version as string);
    if (!current || (row.created_at as string) > current.createdAt) {
      envCommit.set(row.version as string, { createdAt: row.created_at as string, commit: row.base_commit as string });
    }
  }
  for (const { row } of built) row.environment_setup_commit = envCommit.get(row.version as string)!.commit;

  const mirror = path.join(mirrorsDir, `${owner}+${name}`, 'repo');
  await fs.mkdir(path.dirname(mirror), { recursive: true });
  await git(scratch, home, ['clone', '-q', '--bare', '--no-local', scratchRepo, mirror]);
  // The clone's origin would point at a scratch folder that is about to vanish.
  await git(mirror, home, ['remote', 'remove', 'origin']);
  return { rows: built.map((b) => b.row), catalog: built.map((b) => b.info) };
}
