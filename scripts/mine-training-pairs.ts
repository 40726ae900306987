/**
 * Mines training pairs for a learned file ranker from the repositories' own history (issue 34): for every mirror
 * (`owner+name/repo`), the first-parent commits and merges that name an issue or ticket and change 1-3 non-test
 * source files, message as the query (scripts/ranker/training-pairs.ts). A repository with evaluated instances is read
 * only before its earliest base commit among the rows of every `--exclude` dataset and of SWE-bench Verified (always),
 * so no gold fix and nothing after it can be trained on; `--exclude-commits FILE` names more commits (one hash per
 * line) never to mine. Repository names match whatever their case.
 *
 *   npm run mine:pairs -- --mirrors $LOCFIX_MIRRORS --exclude swe-bench-lite-full.jsonl --exclude swe-bench-multilingual-dev.jsonl \
 *     --out pairs.jsonl [--repos owner/name,…]
 *
 * Prints per repository: the cutoff, the commits read and the pairs kept. The output is sorted (repository, then
 * history order), so the same mirrors give the same file byte for byte.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  basesByRepository,
  cutoffOf,
  type EvaluatedRow,
  minePairs,
  mirrorRepositories,
  repositoryKey,
  selectRepositories,
  type TrainingPair,
} from './ranker/training-pairs.ts';

const VERIFIED_BASES = path.join(import.meta.dirname, 'data', 'swe-bench-verified-bases.jsonl');

const { values } = parseArgs({
  options: {
    mirrors: { type: 'string', default: process.env.LOCFIX_MIRRORS },
    exclude: { type: 'string', multiple: true, default: [] },
    'exclude-commits': { type: 'string' },
    repos: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!values.mirrors || !values.out) throw new Error('usage: npm run mine:pairs -- --mirrors DIR --exclude DATASET… --out FILE [--repos owner/name,…]');
if (values.exclude!.length === 0) throw new Error('name the evaluated datasets with --exclude: without them, gold fixes could become training pairs');

/**
 * Base commits of the evaluated rows, by repository. SWE-bench Verified's always count: its rows are not evaluated
 * here, but its gold fixes must never be trained on, and since a row carries no fix commit, the repository is cut
 * at its earliest Verified base commit as well (scripts/data/README.md says where the list comes from).
 */
const rows: EvaluatedRow[] = [];
for (const file of [...values.exclude!, VERIFIED_BASES]) {
  for (const [i, line] of (await readFile(file, 'utf8')).split('\n').entries()) {
    if (!line.trim()) continue;
    let row: Partial<EvaluatedRow> | null;
    try {
      row = JSON.parse(line) as Partial<EvaluatedRow> | null;
    } catch (err) {
      throw new Error(`${file}:${i + 1}: not JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (typeof row?.repo !== 'string' || typeof row.base_commit !== 'string') throw new Error(`${file}:${i + 1}: a row needs repo and base_commit`);
    // a value that is no hash would reach git as an option (`--output=FILE`) or give no cutoff at all
    if (!/^[0-9a-f]{7,40}$/i.test(row.base_commit))
      throw new Error(`${file}:${i + 1}: base_commit is not a commit hash: ${JSON.stringify(row.base_commit).slice(0, 80)}`);
    rows.push(row as EvaluatedRow);
  }
}
const bases = basesByRepository(rows);
const excludedCommits = new Set(
  values['exclude-commits']
    ? (await readFile(values['exclude-commits'], 'utf8'))
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
    : [],
);

const folders = mirrorRepositories(readdirSync(values.mirrors).filter((d) => d.includes('+') && existsSync(path.join(values.mirrors!, d, 'repo'))));
const repos = selectRepositories(values.repos, [...folders.keys()], `the mirrors of ${values.mirrors}`);

const all: TrainingPair[] = [];
const failed: string[] = [];
console.log('| repository | cutoff (earliest evaluated base commit) | pairs |\n|---|---|--:|');
// one repository that cannot be read (a corrupt mirror, a commit its rows name that it lacks) is reported in its
// row and left out; the others' pairs are still written
for (const repo of repos) {
  const gitDir = path.join(values.mirrors, folders.get(repo)!, 'repo');
  const evaluated = bases.get(repositoryKey(repo)) ?? [];
  try {
    const before = evaluated.length ? await cutoffOf(gitDir, evaluated) : undefined;
    const pairs = await minePairs({ repo, gitDir, before, excludedCommits });
    all.push(...pairs);
    console.log(`| ${repo} | ${before === undefined ? 'none (no evaluated rows)' : new Date(before * 1000).toISOString().slice(0, 10)} | ${pairs.length} |`);
  } catch (err) {
    failed.push(repo);
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.replace(/\|/g, '\\|').slice(0, 300);
    console.log(`| ${repo} | failed: ${why} | 0 |`);
  }
}
await writeFile(values.out, all.map((p) => JSON.stringify(p)).join('\n') + (all.length ? '\n' : ''));
console.log(`${all.length} pairs from ${repos.length - failed.length} of ${repos.length} repositories in ${values.out}`);
if (failed.length) {
  console.log(`not mined (see their rows): ${failed.join(', ')}`);
  process.exitCode = 1;
}
