/**
 * SWE-bench 5.0 task repositories as a dataset source (swebench/task/repo.py): `sweb.yaml` names the datasets the
 * repository publishes and their splits; `tasks/<instance_id>/` holds one instance as `task.yaml` (the short
 * fields, its split and the datasets it belongs to), `tests.json` (FAIL_TO_PASS, PASS_TO_PASS),
 * `problem_statement.md`, `hints.md` (absent when empty), `gold.patch`, `test.patch` and `eval.sh`.
 *
 * `--dataset DIR` reads every task the repository publishes (in a published split, in any of its datasets);
 * `--dataset DIR#NAME` only those of dataset NAME, as the harness' `-d NAME`. A task whose files cannot be read
 * is one row error naming the folder and the file; a NAME the repository does not publish is an error listing
 * what it does publish.
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const TASK_REPO_CONFIG = 'sweb.yaml';
const TASK_FILE = 'task.yaml';
const TESTS_FILE = 'tests.json';
/** dataset columns kept in files of their own, as the harness keeps them */
const AS_FILE: Record<string, string> = {
  patch: 'gold.patch',
  test_patch: 'test.patch',
  eval_script: 'eval.sh',
  problem_statement: 'problem_statement.md',
};

export interface TaskRow {
  /** `tasks/<folder>`, for messages */
  where: string;
  value?: Record<string, unknown>;
  error?: string;
}

/** `DIR#NAME` → the folder and the dataset name; `DIR` → the folder alone. */
export function splitTaskRepoSource(source: string): { dir: string; dataset?: string } {
  const at = source.lastIndexOf('#');
  return at > 0 ? { dir: source.slice(0, at), dataset: source.slice(at + 1) } : { dir: source };
}

/** Whether `dir` is a task repository: a folder with `sweb.yaml` or a `tasks/` folder. */
export async function isTaskRepo(dir: string): Promise<boolean> {
  const has = async (name: string) => (await fs.stat(path.join(dir, name)).catch(() => undefined)) !== undefined;
  return (await has(TASK_REPO_CONFIG)) || (await fs.stat(path.join(dir, 'tasks')).catch(() => undefined))?.isDirectory() === true;
}

interface TaskRepoConfig {
  datasets: string[];
  splits: string[];
}

async function readConfig(dir: string): Promise<TaskRepoConfig> {
  const file = path.join(dir, TASK_REPO_CONFIG);
  const text = await readTaskFile(dir, TASK_REPO_CONFIG).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    throw new Error(`${dir} has no ${TASK_REPO_CONFIG}: a task repository names the datasets it publishes there`);
  });
  let parsed: unknown;
  try {
    parsed = YAML.parse(text);
  } catch (err) {
    throw new Error(`${file}: not YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const config = (parsed ?? {}) as { datasets?: unknown; splits?: unknown };
  const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
  const datasets = strings(config.datasets);
  if (!datasets?.length) throw new Error(`${file} does not name any datasets (a "datasets:" list)`);
  return { datasets, splits: strings(config.splits) ?? ['test'] };
}

/** A task file that cannot be read, named; `code` is the errno's when the system refused it. */
class TaskFileError extends Error {
  constructor(
    name: string,
    detail: string,
    readonly code?: string,
  ) {
    super(`${name}: ${detail}`);
    this.name = 'TaskFileError';
  }
}

/** bytes a task file may hold: above the largest field a row may hold (src/dataset/limits.ts), in UTF-8 */
const MAX_TASK_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A task repository is data someone else published: a task file that is a symbolic link (`problem_statement.md`
 * → `/etc/shadow`) would send a host file to the model server. Every file is opened without following a link
 * (O_NOFOLLOW, so no race between a check and the read) and must be a regular file of bounded size; anything
 * else is that task's error, named.
 */
async function readTaskFile(folder: string, name: string): Promise<string> {
  const file = path.join(folder, name);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new Error(`${name}: a symbolic link (to ${await fs.readlink(file).catch(() => '?')}); task files are read only as regular files; refused`);
    if (code === 'ENOENT') throw err;
    throw new TaskFileError(name, (err as Error).message, code);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${name}: not a regular file; refused`);
    if (stat.size > MAX_TASK_FILE_BYTES) throw new Error(`${name}: ${stat.size} bytes, over the ${MAX_TASK_FILE_BYTES} a task file may hold; refused`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Refuses a folder of the repository that is a symbolic link (a task folder, `tasks/`): it would lead outside. */
async function assertNotLink(dir: string, what: string): Promise<void> {
  if ((await fs.lstat(dir).catch(() => undefined))?.isSymbolicLink())
    throw new Error(`${what}: a symbolic link (to ${await fs.readlink(dir).catch(() => '?')}); a task repository is read without following links; refused`);
}

async function readTask(folder: string): Promise<Record<string, unknown>> {
  const read = (name: string) => readTaskFile(folder, name);
  const meta = YAML.parse(await read(TASK_FILE)) as unknown;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw new Error(`${TASK_FILE} is not a mapping`);
  const row: Record<string, unknown> = { ...(meta as Record<string, unknown>) };
  for (const [column, name] of Object.entries(AS_FILE)) {
    row[column] = await read(name).catch((err: NodeJS.ErrnoException) => {
      // the harness requires every one of them; an eval script is the only one locfix can do without
      if (column === 'eval_script' && err.code === 'ENOENT') return undefined;
      throw err.code === 'ENOENT' ? new Error(`${name}: missing`) : err;
    });
  }
  // absent when empty, as the harness writes it; any other failure (a link, a folder) is the task's error
  row.hints_text = await read('hints.md').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return '';
    throw err;
  });
  const tests = JSON.parse(await read(TESTS_FILE)) as unknown;
  if (typeof tests !== 'object' || tests === null || Array.isArray(tests)) throw new Error(`${TESTS_FILE} is not an object`);
  return { ...row, ...(tests as Record<string, unknown>) };
}

/**
 * The task rows a source names, each read from its folder (or the reason it could not be), ordered by folder
 * name as the harness orders them.
 */
export async function readTaskRepo(source: string): Promise<TaskRow[]> {
  const { dir, dataset } = splitTaskRepoSource(source);
  const config = await readConfig(dir);
  if (dataset !== undefined && !config.datasets.includes(dataset)) {
    throw new Error(`${path.join(dir, TASK_REPO_CONFIG)} does not publish ${dataset}. It publishes: ${config.datasets.join(' ')}`);
  }
  const wanted = new Set(dataset === undefined ? config.datasets : [dataset]);
  const tasksDir = path.join(dir, 'tasks');
  await assertNotLink(tasksDir, 'tasks/');
  const names = (await fs.readdir(tasksDir).catch(() => [] as string[])).sort();
  const rows: TaskRow[] = [];
  for (const name of names) {
    const folder = path.join(tasksDir, name);
    if (!(await fs.lstat(path.join(folder, TASK_FILE)).catch(() => undefined))) continue;
    const where = `tasks/${name}`;
    try {
      await assertNotLink(folder, 'the task folder');
      const value = await readTask(folder);
      const datasets = Array.isArray(value.datasets) ? value.datasets : [];
      // a task in an unpublished split, or of no wanted dataset, stays in the tree but is not in the dataset
      if (!config.splits.includes(String(value.split)) || !datasets.some((d) => wanted.has(String(d)))) continue;
      rows.push({ where, value });
    } catch (err) {
      rows.push({ where, error: (err as Error).message });
    }
  }
  return rows;
}
