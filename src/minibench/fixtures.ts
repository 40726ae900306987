/**
 * The mini-benchmark's fixture data (the top-level minibench/ folder): project and instance descriptions,
 * validated as they are read, and the hash of all fixture files and of the builder that makes a second build
 * from unchanged sources a no-op. Only reads files.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { pathExists } from '../util/fsx.ts';

/** Bump when the builder's output changes for the same fixture files (the stamp also hashes the builder's code). */
export const MINIBENCH_BUILDER_VERSION = 1;
/** The fixture sources shipped with locfix: data, kept out of src/. */
export const MINIBENCH_SOURCE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'minibench');
/** The builder's own files: a change to any of them changes the output, so the stamp hashes them. */
const BUILDER_FILES = ['build.ts', 'fixtures.ts', 'git-history.ts'];

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

export type ProjectSpec = z.infer<typeof ProjectSpecSchema>;
export type InstanceMeta = z.infer<typeof InstanceMetaSchema>;

export interface LoadedInstance {
  id: string;
  dir: string;
  meta: InstanceMeta;
  problemStatement: string;
  fixFiles: Map<string, Buffer>;
  testFiles: Map<string, Buffer>;
}

export interface LoadedProject {
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
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
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

export async function loadFixtures(sourceDir: string): Promise<LoadedProject[]> {
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

  const instanceIds = (await fs.readdir(instancesDir, { withFileTypes: true })).filter((e) => e.isDirectory() && !isIgnoredEntry(e.name)).map((e) => e.name);
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
  // the builder's TypeScript sources, also when this runs compiled from dist/ (whose minibench/ links to the real one)
  const builderDir = path.join(path.dirname(await fs.realpath(MINIBENCH_SOURCE_DIR)), 'src', 'minibench');
  for (const file of BUILDER_FILES) hash.update(await fs.readFile(path.join(builderDir, file)));
  for (const sub of ['projects', 'instances']) {
    const files = await readTree(path.join(sourceDir, sub));
    for (const [rel, content] of files) {
      hash.update(`${sub}/${rel}\0${content.length}\0`);
      hash.update(content);
    }
  }
  return hash.digest('hex');
}
