/**
 * Builds the bundled mini-benchmark (fixtures.ts reads its data, git-history.ts writes its history): small Python projects with real git history, published as bare
 * mirrors (`<outDir>/mirrors/<owner>+<name>/repo`, the layout `--mirrors DIR` reads), and SWE-bench
 * instances for them in `<outDir>/dataset.jsonl`.
 *
 * Everything comes from plain data files in the top-level minibench/ folder (see its README.md):
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
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SweInstanceSchema, type SweInstance } from '../dataset/schema.ts';
import { pathExists, readJsonIfExists } from '../util/fsx.ts';
import { hashMiniBenchSources, loadFixtures, MINIBENCH_BUILDER_VERSION, MINIBENCH_SOURCE_DIR, type MiniBenchInstanceInfo } from './fixtures.ts';
import { buildProject } from './git-history.ts';

/** Where users' builds go by default, relative to the working directory. */
export const DEFAULT_MINIBENCH_DIR = path.join('.locfix', 'minibench');

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
    // allSettled, not all: when one project fails, the others' git processes must finish before the scratch
    // folder is removed below (removing it under a running fast-import fails with ENOTEMPTY and hides the error).
    const settled = await Promise.allSettled(projects.map((project) => buildProject(project, mirrorsDir, scratch)));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const builtProjects = settled.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof buildProject>>>).value);
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
