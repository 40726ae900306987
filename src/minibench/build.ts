/**
 * Builds the bundled mini-benchmark: small Python projects with real git history, published as bare
 * mirrors (`<outDir>/mirrors/<owner>+<name>/repo`, the layout `--mirrors DIR` reads), and SWE-bench
 * instances for them in `<outDir>/dataset.jsonl`.
 *
 * Everything comes from plain files under this folder (see README.md here):
 *   projects/<project>/project.json   repo name and the commit list; each commit is a full tree described as
 *                                     "files of <from> minus <exclude> plus <overlay>"
 *   projects/<project>/base/…          the project as of its main release (what most instances start from)
 *   projects/<project>/history/…       files that differed in other commits (earlier or later ones)
 *   instances/<id>/meta.json           base commit label, version, dates, FAIL_TO_PASS / PASS_TO_PASS
 *   instances/<id>/issue.md            the problem statement, written like a real report
 *   instances/<id>/fix/…               full contents of the files the gold patch changes
 *   instances/<id>/test_patch/…        full contents of the test files the test patch adds or changes
 *
 * Commit ids are the same on every machine: the history is written with `git fast-import` from fixed
 * author/committer identity and dates, file modes and messages, with no user or system git configuration. Patches are computed by git itself from the fixture files, so they
 * always apply to their base commit. A stamp (hash of all fixture files and of this builder) makes a
 * second build with unchanged sources a no-op; a changed source rebuilds into a temp dir that is renamed
 * into place, so readers never see a half-built benchmark.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { SweInstanceSchema, type SweInstance } from '../dataset/schema.ts';
import { pathExists, readJsonIfExists } from '../util/fsx.ts';

/** Bump when the builder's output changes for the same fixture files (the stamp also hashes this file). */
export const MINIBENCH_BUILDER_VERSION = 1;
/** Where users' builds go by default, relative to the working directory. */
export const DEFAULT_MINIBENCH_DIR = path.join('.locfix', 'minibench');
/** The fixture sources shipped with locfix (this folder). */
export const MINIBENCH_SOURCE_DIR = path.dirname(fileURLToPath(import.meta.url));

const AUTHOR = { name: 'Minibench Maintainers', email: 'maintainers@minibench.invalid' };
const DEFAULT_BRANCH = 'main';

export interface MiniBenchInstanceInfo {
  instance_id: string;
  repo: string;
  /** Repository-relative paths the gold patch changes (what file localization should find). */
  goldFiles: string[];
  /** Test files the test patch adds or changes. */
  testFiles: string[];
  /** One line: what is wrong and where the fix goes. */
  description: string;
  /** Issue kinds: traceback, behavioural, dotted-module-path, two-files, misleading-obvious-file. */
  kinds: string[];
  /** Label of the base commit in the project's history. */
  baseLabel: string;
}

export interface MiniBenchBuild {
  /** `<outDir>/dataset.jsonl`: SWE-bench rows (FAIL_TO_PASS / PASS_TO_PASS as JSON strings, as on the Hub). */
  datasetPath: string;
  /** `<outDir>/mirrors`, holding `<owner>+<name>/repo` bare repositories. */
  mirrorsDir: string;
  /** The instances, validated and normalized by SweInstanceSchema, in dataset order. */
  instances: SweInstance[];
  /** `<outDir>/catalog.json`: per-instance gold files, description and kinds. */
  catalogPath: string;
  catalog: MiniBenchInstanceInfo[];
}

export interface BuildOptions {
  /** Fixture sources; defaults to the bundled ones. */
  sourceDir?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Fixture descriptions

const CommitSpecSchema = z.object({
  label: z.string().regex(/^[\w.-]+$/, 'expected a label of letters, digits, "_", "." or "-"'),
  date: z.string().refine((d) => !Number.isNaN(Date.parse(d)), 'expected an ISO 8601 date with time zone'),
  message: z.string().min(1),
  from: z.string().min(1).optional(),
  exclude: z.array(z.string()).default([]),
  overlay: z.string().min(1).optional(),
});

const ProjectSpecSchema = z.object({
  repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected "owner/name"'),
  description: z.string().default(''),
  commits: z.array(CommitSpecSchema).min(1),
});

const InstanceMetaSchema = z.object({
  description: z.string().min(1),
  kinds: z.array(z.string()).default([]),
  created_at: z.string().refine((d) => !Number.isNaN(Date.parse(d)), 'expected an ISO 8601 date'),
  version: z.string().min(1),
  base: z.string().optional(),
  FAIL_TO_PASS: z.array(z.string()).min(1),
  PASS_TO_PASS: z.array(z.string()),
});

type ProjectSpec = z.infer<typeof ProjectSpecSchema>;
type InstanceMeta = z.infer<typeof InstanceMetaSchema>;

interface LoadedInstance {
  id: string;
  dir: string;
  meta: InstanceMeta;
  problemStatement: string;
  fixFiles: Map<string, Buffer>;
  testFiles: Map<string, Buffer>;
}

interface LoadedProject {
  name: string;
  dir: string;
  spec: ProjectSpec;
  instances: LoadedInstance[];
}

/** Names that are build or editor by-products in fixture folders, never fixture content. */
function isIgnoredEntry(name: string): boolean {
  return name === '__pycache__' || name === '.pytest_cache' || name.endsWith('.pyc') || name === '.DS_Store';
}

/** All files under `dir` as repository-relative POSIX paths → contents, sorted by path. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  async function walk(current: string, prefix: string): Promise<void> {
    const entries = await fs.readdir(current, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (isIgnoredEntry(entry.name)) continue;
      const full = path.join(current, entry.name);
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(full, rel);
      else if (entry.isFile()) files.set(rel, await fs.readFile(full));
      else throw new Error(`minibench fixture ${full}: only regular files and folders are supported`);
    }
  }
  await walk(dir, '');
  return files;
}

async function readJsonFile<T>(file: string, schema: z.ZodType<T>): Promise<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`minibench fixture ${file}: ${(err as Error).message}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new Error(`minibench fixture ${file}: ${problems}`);
  }
  return parsed.data;
}

/** `owner/name-N` → `owner__name-N`; the id must match the repo it belongs to. */
function repoOfInstanceId(id: string): { repo: string; number: number } | undefined {
  const match = /^([\w.-]+?)__([\w.-]+)-(\d+)$/.exec(id);
  if (!match) return undefined;
  return { repo: `${match[1]}/${match[2]}`, number: Number(match[3]) };
}

async function loadFixtures(sourceDir: string): Promise<LoadedProject[]> {
  const projectsDir = path.join(sourceDir, 'projects');
  const instancesDir = path.join(sourceDir, 'instances');
  const projectNames = (await fs.readdir(projectsDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !isIgnoredEntry(e.name))
    .map((e) => e.name)
    .sort();
  const projects: LoadedProject[] = [];
  for (const name of projectNames) {
    const dir = path.join(projectsDir, name);
    const spec = await readJsonFile(path.join(dir, 'project.json'), ProjectSpecSchema);
    const labels = new Set<string>();
    for (const commit of spec.commits) {
      if (labels.has(commit.label)) throw new Error(`minibench fixture ${dir}/project.json: duplicate commit label "${commit.label}"`);
      labels.add(commit.label);
    }
    projects.push({ name, dir, spec, instances: [] });
  }
  const byRepo = new Map(projects.map((p) => [p.spec.repo, p]));

  const instanceIds = (await fs.readdir(instancesDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !isIgnoredEntry(e.name))
    .map((e) => e.name);
  for (const id of instanceIds) {
    const dir = path.join(instancesDir, id);
    const parsedId = repoOfInstanceId(id);
    if (!parsedId) throw new Error(`minibench fixture ${dir}: folder name must be an instance id "owner__name-N"`);
    const project = byRepo.get(parsedId.repo);
    if (!project) throw new Error(`minibench fixture ${dir}: no project under projects/ has repo "${parsedId.repo}"`);
    const meta = await readJsonFile(path.join(dir, 'meta.json'), InstanceMetaSchema);
    const baseLabel = meta.base ?? project.spec.commits[project.spec.commits.length - 1].label;
    if (!project.spec.commits.some((c) => c.label === baseLabel)) {
      throw new Error(`minibench fixture ${dir}/meta.json: base "${baseLabel}" is not a commit label of ${parsedId.repo}`);
    }
    const fixDir = path.join(dir, 'fix');
    const testDir = path.join(dir, 'test_patch');
    if (!(await pathExists(fixDir))) throw new Error(`minibench fixture ${dir}: missing fix/ folder (the gold patch)`);
    if (!(await pathExists(testDir))) throw new Error(`minibench fixture ${dir}: missing test_patch/ folder`);
    const problemStatement = (await fs.readFile(path.join(dir, 'issue.md'), 'utf8')).replace(/\r\n/g, '\n');
    project.instances.push({
      id,
      dir,
      meta: { ...meta, base: baseLabel },
      problemStatement,
      fixFiles: await readTree(fixDir),
      testFiles: await readTree(testDir),
    });
  }
  for (const project of projects) {
    project.instances.sort((a, b) => repoOfInstanceId(a.id)!.number - repoOfInstanceId(b.id)!.number);
  }
  return projects;
}

/** Hash of every fixture file (path + bytes) and of the builder itself. */
export async function hashMiniBenchSources(sourceDir: string = MINIBENCH_SOURCE_DIR): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`minibench-builder-v${MINIBENCH_BUILDER_VERSION}\0`);
  hash.update(await fs.readFile(fileURLToPath(import.meta.url)));
  for (const sub of ['projects', 'instances']) {
    const files = await readTree(path.join(sourceDir, sub));
    for (const [rel, content] of files) {
      hash.update(`${sub}/${rel}\0${content.length}\0`);
      hash.update(content);
    }
  }
  return hash.digest('hex');
}

// ---------------------------------------------------------------------------------------------------------
// git

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
  '-c', 'core.autocrlf=false',
  '-c', 'core.fileMode=true',
  '-c', 'core.abbrev=10',
  '-c', 'core.quotePath=false',
  '-c', 'commit.gpgSign=false',
  '-c', 'tag.gpgSign=false',
  '-c', 'diff.noprefix=false',
  '-c', 'diff.mnemonicPrefix=false',
  '-c', 'diff.algorithm=myers',
  '-c', 'init.defaultBranch=' + DEFAULT_BRANCH,
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

interface BuiltProject {
  rows: Record<string, unknown>[];
  catalog: MiniBenchInstanceInfo[];
}

async function buildProject(project: LoadedProject, mirrorsDir: string, scratch: string): Promise<BuiltProject> {
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

  const built = await Promise.all(project.instances.map(async (instance) => {
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
  }));
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

// ---------------------------------------------------------------------------------------------------------
// Build, reuse, publish

interface Stamp {
  builderVersion: number;
  sourceHash: string;
}

async function readUsableBuild(outDir: string, sourceHash: string): Promise<MiniBenchBuild | undefined> {
  const stamp = await readJsonIfExists<Stamp>(path.join(outDir, 'stamp.json')).catch(() => undefined);
  if (!stamp || stamp.sourceHash !== sourceHash || stamp.builderVersion !== MINIBENCH_BUILDER_VERSION) return undefined;
  const datasetPath = path.join(outDir, 'dataset.jsonl');
  const catalogPath = path.join(outDir, 'catalog.json');
  const mirrorsDir = path.join(outDir, 'mirrors');
  const catalog = await readJsonIfExists<MiniBenchInstanceInfo[]>(catalogPath).catch(() => undefined);
  if (!catalog || !(await pathExists(datasetPath))) return undefined;
  const text = await fs.readFile(datasetPath, 'utf8');
  const instances = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => SweInstanceSchema.parse(JSON.parse(line)));
  for (const repo of new Set(instances.map((i) => i.repo))) {
    if (!(await pathExists(path.join(mirrorsDir, repo.replace('/', '+'), 'repo', 'HEAD')))) return undefined;
  }
  return { datasetPath, mirrorsDir, instances, catalogPath, catalog };
}

/**
 * Builds the mini-benchmark into `outDir` (default `.locfix/minibench`), or reuses the build already there
 * when it was made from the same fixture sources by the same builder.
 */
export async function buildMiniBenchmark(outDir: string = DEFAULT_MINIBENCH_DIR, options: BuildOptions = {}): Promise<MiniBenchBuild> {
  const sourceDir = options.sourceDir ?? MINIBENCH_SOURCE_DIR;
  const target = path.resolve(outDir);
  const sourceHash = await hashMiniBenchSources(sourceDir);
  const existing = await readUsableBuild(target, sourceHash);
  if (existing) return existing;

  const projects = await loadFixtures(sourceDir);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  // Staging next to the target, so that publishing is a rename on one filesystem.
  const staging = `${target}.tmp-${suffix}`;
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-minibench-'));
  try {
    const mirrorsDir = path.join(staging, 'mirrors');
    await fs.mkdir(mirrorsDir, { recursive: true });
    await fs.mkdir(path.join(scratch, 'home'), { recursive: true });
    await fs.writeFile(path.join(scratch, 'home', 'gitconfig-empty'), '');
    // Projects are independent; building them side by side mostly overlaps git process start-up.
    const builtProjects = await Promise.all(projects.map((project) => buildProject(project, mirrorsDir, scratch)));
    const rows = builtProjects.flatMap((b) => b.rows);
    const catalog = builtProjects.flatMap((b) => b.catalog);
    for (const row of rows) {
      const parsed = SweInstanceSchema.safeParse(row);
      if (!parsed.success) throw new Error(`minibench instance ${String(row.instance_id)} does not fit the SWE-bench schema: ${parsed.error.message}`);
    }
    await fs.writeFile(path.join(staging, 'dataset.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    await fs.writeFile(path.join(staging, 'catalog.json'), JSON.stringify(catalog, null, 2) + '\n');
    // The stamp is written last: a staging folder without it is never taken for a finished build.
    const stamp: Stamp = { builderVersion: MINIBENCH_BUILDER_VERSION, sourceHash };
    await fs.writeFile(path.join(staging, 'stamp.json'), JSON.stringify(stamp, null, 2) + '\n');
    await publish(staging, target, sourceHash, suffix);
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
  const result = await readUsableBuild(target, sourceHash);
  if (!result) throw new Error(`minibench: the build in ${target} is incomplete right after publishing it`);
  return result;
}

/** Moves `staging` to `target`, replacing an outdated build; a concurrent identical build may win. */
async function publish(staging: string, target: string, sourceHash: string, suffix: string): Promise<void> {
  try {
    await fs.rename(staging, target);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
  }
  if (await readUsableBuild(target, sourceHash)) return; // another process published the same build
  const old = `${target}.old-${suffix}`;
  await fs.rename(target, old);
  try {
    await fs.rename(staging, target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || !(await readUsableBuild(target, sourceHash))) throw err;
  } finally {
    await fs.rm(old, { recursive: true, force: true });
  }
}
