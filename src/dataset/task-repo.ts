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
import { promises as fs } from 'node:fs';
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
  const text = await fs.readFile(file, 'utf8').catch(() => {
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

async function readTask(folder: string): Promise<Record<string, unknown>> {
  const read = (name: string) => fs.readFile(path.join(folder, name), 'utf8');
  const meta = YAML.parse(await read(TASK_FILE)) as unknown;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) throw new Error(`${TASK_FILE} is not a mapping`);
  const row: Record<string, unknown> = { ...(meta as Record<string, unknown>) };
  for (const [column, name] of Object.entries(AS_FILE)) {
    row[column] = await read(name).catch((err: NodeJS.ErrnoException) => {
      // the harness requires every one of them; an eval script is the only one locfix can do without
      if (column === 'eval_script' && err.code === 'ENOENT') return undefined;
      throw new Error(`${name}: ${err.code === 'ENOENT' ? 'missing' : err.message}`);
    });
  }
  row.hints_text = await read('hints.md').catch(() => '');
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
  const names = (await fs.readdir(tasksDir).catch(() => [] as string[])).sort();
  const rows: TaskRow[] = [];
  for (const name of names) {
    const folder = path.join(tasksDir, name);
    if (!(await fs.stat(path.join(folder, TASK_FILE)).catch(() => undefined))) continue;
    const where = `tasks/${name}`;
    try {
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
