/**
 * Mines training pairs for a learned file ranker from the repositories' own history (issue 34): for every mirror
 * (`owner+name/repo`), the first-parent commits and merges that name an issue or ticket and change 1-3 non-test
 * source files, message as the query (src/index/training-pairs.ts). A repository with evaluated instances is read
 * only before its earliest base commit among the rows of every `--exclude` dataset, so no gold fix and nothing
 * after it can be trained on; `--exclude-commits FILE` names more commits (one hash per line) never to mine.
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
import { cutoffOf, minePairs, type TrainingPair } from '../src/index/training-pairs.ts';

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

/** base commits of the evaluated rows, by repository */
const bases = new Map<string, string[]>();
for (const file of values.exclude!) {
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { repo: string; base_commit: string };
    bases.set(row.repo, [...(bases.get(row.repo) ?? []), row.base_commit]);
  }
}
const excludedCommits = new Set(
  values['exclude-commits']
    ? (await readFile(values['exclude-commits'], 'utf8'))
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
    : [],
);

const wanted = values.repos?.split(',').map((r) => r.trim());
/** a mirror folder's repository: `owner+name`, or SWE-bench's own mirror naming `swe-bench+owner__name` (src/repo/store.ts) */
const repoOfFolder = (folder: string) =>
  folder.startsWith('swe-bench+') && folder.includes('__') ? folder.slice('swe-bench+'.length).replace('__', '/') : folder.replace('+', '/');
const folders = new Map(
  readdirSync(values.mirrors)
    .filter((d) => d.includes('+') && existsSync(path.join(values.mirrors!, d, 'repo')))
    .map((d) => [repoOfFolder(d), d] as const),
);
const repos = [...folders.keys()].filter((r) => !wanted || wanted.includes(r)).sort();

const all: TrainingPair[] = [];
console.log('| repository | cutoff (earliest evaluated base commit) | pairs |\n|---|---|--:|');
for (const repo of repos) {
  const gitDir = path.join(values.mirrors, folders.get(repo)!, 'repo');
  const evaluated = bases.get(repo) ?? [];
  const before = evaluated.length ? await cutoffOf(gitDir, evaluated) : undefined;
  const pairs = await minePairs({ repo, gitDir, before, excludedCommits });
  all.push(...pairs);
  console.log(`| ${repo} | ${before === undefined ? 'none (no evaluated rows)' : new Date(before * 1000).toISOString().slice(0, 10)} | ${pairs.length} |`);
}
await writeFile(values.out, all.map((p) => JSON.stringify(p)).join('\n') + (all.length ? '\n' : ''));
console.log(`${all.length} pairs from ${repos.length} repositories in ${values.out}`);
