/**
 * Training pairs for a learned file ranker that are not the benchmark (issue 34): (query, changed files) mined
 * from a repository's own history. A commit or merge on the first-parent line of the default branch qualifies
 * when its message names an issue or ticket and it changes 1-3 non-test source files; its message is the query.
 *
 * What must never be trained on is cut off by date: every commit at or after the earliest base commit of an
 * evaluated instance of the same repository. A gold fix comes after its instance's base commit, so no gold fix
 * of an evaluated instance can be a pair; `excludedCommits` drops any commit named explicitly besides.
 */
import { languageForPath } from '../../src/languages/index.ts';
import { assertCommitHash, runGit } from '../../src/repo/git.ts';
import { streamCommitLog } from '../../src/repo/commit-log.ts';
import { isTestPath } from '../../src/index/file-filter.ts';

export interface TrainingPair {
  repo: string;
  commit: string;
  /** committer time, seconds since the epoch */
  committedAt: number;
  /** the issue or ticket references the message names (`#123`, `gh-123`, `JIRA-12`) */
  refs: string[];
  /** the message, trailers and the merge boilerplate left out */
  query: string;
  /** the non-test source files it changes (against its first parent), sorted */
  files: string[];
}

export interface MiningOptions {
  repo: string;
  gitDir: string;
  /** commits at or after this committer time (seconds) are not mined; undefined: no cutoff */
  before?: number;
  /** commits never to mine (gold fixes named explicitly) */
  excludedCommits?: ReadonlySet<string>;
  /** at most this many source files changed (default 3) */
  maxFiles?: number;
  /** the branch or commit whose first-parent history is read (default HEAD) */
  head?: string;
}

/**
 * References to an issue or ticket: `#123`, `gh-123`, `bpo-123`, `issue 123`, `CVE-2018-16984`, `JIRA-123` (not a
 * hex hash, not `v1-2`). A key of that last form that names a standard, an encoding or an error code (`UTF-8`,
 * `PEP-8`, `ORA-01400`) is no ticket: 14 messages of 6 Lite repositories named nothing else.
 */
const REFERENCE = /(?:^|[\s([,;:])(#\d+|(?:gh|bpo|GH)-\d+|[Ii]ssue\s+#?\d+|CVE-\d{4}-\d+|[A-Z][A-Z0-9]{1,9}-\d+)\b/g;
const NOT_TICKETS = /^(?:UTF|UCS|PEP|ISO|RFC|SHA|MD|ORA|ECMA|ES|IEEE|HTTP|TLS|SSL|CP|ASCII|LATIN|WIN)-/;
const TRAILER = /^(?:Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Change-Id|Cc):/i;

export function referencesOf(message: string): string[] {
  const refs = [...message.matchAll(REFERENCE)].map((m) => m[1]!.replace(/^[Ii]ssue\s+#?/, '#')).filter((ref) => !NOT_TICKETS.test(ref));
  return [...new Set(refs)];
}

/** The message as a query: trailers dropped, and a merge's "Merge pull request #N from owner/branch" line. */
export function queryOf(message: string): string {
  return message
    .split('\n')
    .filter((line) => !TRAILER.test(line.trim()) && !/^Merge (?:pull request|branch|remote-tracking branch) /.test(line.trim()))
    .join('\n')
    .trim();
}

/** Source files a pair may name: a language locfix parses, and not a test. */
export function isSourceFile(file: string): boolean {
  return languageForPath(file) !== undefined && !isTestPath(file);
}

/** A commit of the first-parent history, with the files it changes against its first parent. */
interface HistoryCommit {
  id: string;
  committedAt: number;
  message: string;
  files: string[];
}

/**
 * The first-parent history of `head`, each commit with the files it changes against its first parent. The root
 * commit is left out: it "changes" every file it adds, which says nothing about any of them. Read as a stream of
 * NUL-separated records (src/repo/commit-log.ts): no message can add a file, and none costs more than the cap.
 */
async function firstParentLog(gitDir: string, head: string): Promise<HistoryCommit[]> {
  const commits: HistoryCommit[] = [];
  await streamCommitLog(gitDir, ['--first-parent', '-m', '--no-renames', '--end-of-options', head], '%H %ct %P', (c) => {
    const [id, time, firstParent] = c.header;
    if (id && firstParent) commits.push({ id, committedAt: Number(time), message: c.message, files: c.files });
  });
  return commits;
}

export async function minePairs(options: MiningOptions): Promise<TrainingPair[]> {
  const maxFiles = options.maxFiles ?? 3;
  const pairs: TrainingPair[] = [];
  for (const c of await firstParentLog(options.gitDir, options.head ?? 'HEAD')) {
    if (options.before !== undefined && c.committedAt >= options.before) continue;
    if (options.excludedCommits?.has(c.id)) continue;
    const refs = referencesOf(c.message);
    if (refs.length === 0) continue;
    const changed = [...new Set(c.files)];
    const files = changed.filter(isSourceFile).sort();
    if (files.length === 0 || files.length > maxFiles) continue;
    const query = queryOf(c.message);
    if (!query) continue;
    pairs.push({ repo: options.repo, commit: c.id, committedAt: c.committedAt, refs, query, files });
  }
  return pairs;
}

/** The cutoff of a repository: the committer time of its earliest evaluated base commit (undefined: none given). */
export async function cutoffOf(gitDir: string, baseCommits: readonly string[]): Promise<number | undefined> {
  let earliest: number | undefined;
  for (const commit of new Set(baseCommits)) {
    assertCommitHash(commit, `${gitDir}: an evaluated base commit`);
    const { stdout } = await runGit(['--git-dir', gitDir, 'show', '-s', '--format=%ct', '--end-of-options', `${commit}^{commit}`]);
    const text = stdout.toString('utf8').trim();
    // an empty answer is no time: read as 0 it would cut the repository at 1970 and mine nothing, silently
    if (!/^\d+$/.test(text)) throw new Error(`${gitDir}: no committer time for ${commit} (git answered ${JSON.stringify(text.slice(0, 80))})`);
    const time = Number(text);
    earliest = earliest === undefined ? time : Math.min(earliest, time);
  }
  return earliest;
}

/** An evaluated row as far as mining needs it: SWE-bench's `repo` and `base_commit`. */
export interface EvaluatedRow {
  repo: string;
  base_commit: string;
}

/**
 * A repository's key for matching rows to mirrors. GitHub names are case-insensitive, and the two spellings meet:
 * the Multilingual rows say `briannesbitt/carbon`, a mirror fetched by its GitHub name is `briannesbitt+Carbon`.
 * Matched exactly, that mirror had no cutoff, and every gold fix of its rows could become a training pair.
 */
export const repositoryKey = (repo: string): string => repo.toLowerCase();

/** The base commits of evaluated rows, by repository key. */
export function basesByRepository(rows: Iterable<EvaluatedRow>): Map<string, string[]> {
  const bases = new Map<string, string[]>();
  for (const row of rows) {
    const key = repositoryKey(row.repo);
    bases.set(key, [...(bases.get(key) ?? []), row.base_commit]);
  }
  return bases;
}

/**
 * Mirror folders by repository (`owner+name`, or SWE-bench's `swe-bench+owner__name`, src/repo/store.ts). Two
 * folders of one repository (`owner+Name` beside a lower-case link to it) would mine it twice, so they are an error.
 */
export function mirrorRepositories(folders: readonly string[]): Map<string, string> {
  const byKey = new Map<string, { repo: string; folder: string }>();
  for (const folder of folders) {
    const repo = folder.startsWith('swe-bench+') && folder.includes('__') ? folder.slice('swe-bench+'.length).replace('__', '/') : folder.replace('+', '/');
    const other = byKey.get(repositoryKey(repo));
    if (other) throw new Error(`two mirror folders hold ${repo}: ${other.folder} and ${folder}; keep one`);
    byKey.set(repositoryKey(repo), { repo, folder });
  }
  return new Map([...byKey.values()].map(({ repo, folder }) => [repo, folder]));
}

/**
 * The repositories a `--repos a/b,…` list picks from `available`, whatever their case; without a list, all. A name
 * that matches none is an error: it would otherwise give an empty run, or quietly leave a repository out.
 */
export function selectRepositories(list: string | undefined, available: readonly string[], where: string): string[] {
  if (list === undefined) return [...available].sort();
  const wanted = list
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const missing = wanted.filter((w) => !available.some((a) => repositoryKey(a) === repositoryKey(w)));
  if (missing.length) throw new Error(`--repos: ${missing.join(', ')} not in ${where} (it has ${[...available].sort().join(', ') || 'none'})`);
  return available.filter((a) => wanted.some((w) => repositoryKey(w) === repositoryKey(a))).sort();
}
