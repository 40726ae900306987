/**
 * The learned ranker's training, end to end on a real git repository made here (issue 34): mine pairs from its
 * history, record their searches at each parent commit, train twice and get the same model file byte for byte, with
 * the metadata a model must carry; then rank with it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURE_NAMES } from '../../localizer/retrieval/learned/features.ts';
import { loadRankerModel } from '../../localizer/retrieval/learned/model.ts';
import { parseRecordedPair } from '../../scripts/ranker/pair-recordings.ts';
import { defaultQueries } from '../../localizer/retrieval/query.ts';
import { ReplayIndex } from '../../localizer/retrieval/recording-index.ts';
import { retrieveFiles } from '../../localizer/retrieval/retriever.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
// indexing a small repository at some 30 commits, and two trainings: seconds idle, a minute or two under load
const SLOW = 300_000;
let dir: string;

/** a module per concern; each fix names its ticket and words of the function it changes */
const MODULES: Record<string, string[]> = {
  'widgets/parser.py': ['parse_number', 'parse_string', 'tokenize_line'],
  'widgets/render.py': ['render_html', 'escape_markup', 'render_table'],
  'widgets/cache.py': ['cache_lookup', 'evict_entries', 'cache_size'],
  'widgets/cli.py': ['parse_arguments', 'print_usage', 'main_entry'],
  'widgets/network.py': ['open_socket', 'retry_request', 'close_connection'],
};

function source(functions: readonly string[], version: number): string {
  return functions.map((f) => `def ${f}(value):\n    """${f.replace(/_/g, ' ')} version ${version}"""\n    return value + ${version}\n`).join('\n');
}

async function script(name: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', name), ...args], { cwd: ROOT, maxBuffer: 1 << 24 });
  return stdout;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-ranker-e2e-'));
  const work = path.join(dir, 'work');
  await mkdir(path.join(work, 'widgets'), { recursive: true });
  const git = (args: string[], time: number) =>
    run('git', ['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
      env: { ...process.env, GIT_AUTHOR_DATE: `@${time} +0000`, GIT_COMMITTER_DATE: `@${time} +0000` },
    });
  await run('git', ['-C', work, 'init', '-q', '-b', 'main']);
  for (const [file, fns] of Object.entries(MODULES)) await writeFile(path.join(work, file), source(fns, 0));
  await git(['add', '-A'], 1000);
  await git(['commit', '-q', '-m', 'Initial import'], 1000);
  const files = Object.keys(MODULES);
  for (let i = 1; i <= 30; i++) {
    const file = files[(i * 7) % files.length]!;
    const fn = MODULES[file]![i % 3]!;
    await writeFile(path.join(work, file), source(MODULES[file]!, i));
    await git(['add', '-A'], 1000 + i * 100);
    await git(['commit', '-q', '-m', `Fixed #${100 + i} -- ${fn.replace(/_/g, ' ')} went wrong for empty values`], 1000 + i * 100);
  }
  // the mirror spells the repository as GitHub shows it, the row in lower case (as Multilingual's briannesbitt/carbon)
  await mkdir(path.join(dir, 'mirrors', 'Acme+Widgets'), { recursive: true });
  await run('git', ['clone', '-q', '--bare', work, path.join(dir, 'mirrors', 'Acme+Widgets', 'repo')]);
  // the evaluated row: its base commit is the last one, so every earlier fix may be mined
  const head = (await run('git', ['-C', work, 'rev-parse', 'HEAD'])).stdout.trim();
  await writeFile(path.join(dir, 'evaluated.jsonl'), `${JSON.stringify({ repo: 'acme/widgets', base_commit: head })}\n`);
}, SLOW);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('training the learned ranker', () => {
  it(
    'mines, records, trains twice to the same bytes, and the model ranks',
    async () => {
      const mirrors = path.join(dir, 'mirrors');
      const pairs = path.join(dir, 'pairs.jsonl');
      await script('mine-training-pairs.ts', ['--mirrors', mirrors, '--exclude', path.join(dir, 'evaluated.jsonl'), '--out', pairs]);
      const mined = (await readFile(pairs, 'utf8')).trim().split('\n');
      // an evaluated dataset that cannot be read stops mining, naming the file and line: no cutoff is ever guessed
      const bad = path.join(dir, 'bad.jsonl');
      await writeFile(bad, '{"repo": "acme/widgets", "base_commit": "abcdef0"}\n{"repo": "acme/wid\n');
      await expect(script('mine-training-pairs.ts', ['--mirrors', mirrors, '--exclude', bad, '--out', path.join(dir, 'x.jsonl')])).rejects.toThrow(
        /bad\.jsonl:2: not JSON/,
      );
      await writeFile(bad, 'null\n');
      await expect(script('mine-training-pairs.ts', ['--mirrors', mirrors, '--exclude', bad, '--out', path.join(dir, 'x.jsonl')])).rejects.toThrow(
        /bad\.jsonl:1: a row needs repo and base_commit/,
      );
      expect(mined).toHaveLength(29); // the 30th fix is the evaluated row's base commit
      const recordings = path.join(dir, 'recordings');
      // --repos in another case still picks the repository (before, it sampled nothing and recorded nothing)
      await script('record-ranker-pairs.ts', ['--pairs', pairs, '--mirrors', mirrors, '--out', recordings, '--per-repo', '20', '--repos', 'acme/WIDGETS']);
      expect((await readdir(recordings)).length).toBe(20);

      const train = (out: string) => script('train-ranker.ts', ['--pairs-dir', recordings, '--grid', 'quick', '--out', out]);
      // the same command twice (the file records it, paths as their last part), in two folders
      const [first, second] = [path.join(dir, 'a', 'model.json'), path.join(dir, 'b', 'model.json')];
      await train(first);
      await train(second);
      const bytes = await readFile(first, 'utf8');
      expect(await readFile(second, 'utf8')).toBe(bytes);

      // an empty --params (an unset shell variable) is refused, not taken as "tune"; a folder without pairs names the fix
      await expect(script('train-ranker.ts', ['--pairs-dir', recordings, '--params', '', '--out', path.join(dir, 'x.json')])).rejects.toThrow(/JSON/);
      await mkdir(path.join(dir, 'empty'));
      await expect(script('train-ranker.ts', ['--pairs-dir', path.join(dir, 'empty'), '--out', path.join(dir, 'x.json')])).rejects.toThrow(
        /no recorded pair with a file to find .*npm run ranker:record first/,
      );

      const ranker = loadRankerModel(first);
      expect(ranker.model.features).toEqual(FEATURE_NAMES);
      expect(ranker.model.training.pairs).toBe(20);
      expect(ranker.model.training.dataSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(ranker.model.trees.length).toBeGreaterThan(0);
      // the command names no folder of the machine that trained it
      expect(ranker.model.training.command).not.toContain(dir);
      expect(Buffer.byteLength(bytes)).toBeLessThan(1 << 20);

      // issue 44: the same recordings as development rows of two repositories, trained on with grouped cross-validation
      const issues = path.join(dir, 'issues');
      await mkdir(issues);
      const rows: string[] = [];
      for (const [n, name] of (await readdir(recordings)).sort().slice(0, 12).entries()) {
        const { pair, recording } = parseRecordedPair(await readFile(path.join(recordings, name), 'utf8'), name);
        const repo = n % 2 ? 'acme/widgets' : 'acme/gadgets';
        const id = `${repo.replace('/', '__')}-${n}`;
        const patch = pair.files.map((f) => `diff --git a/${f} b/${f}\n--- a/${f}\n+++ b/${f}\n@@ -1 +1 @@\n-a\n+b\n`).join('');
        rows.push(JSON.stringify({ instance_id: id, repo, base_commit: pair.parent, problem_statement: pair.query, patch, test_patch: '' }));
        await writeFile(path.join(issues, `${id}.json`), JSON.stringify(recording));
      }
      const dataset = path.join(dir, 'dev-rows.jsonl');
      await writeFile(dataset, `${rows.join('\n')}\n`);
      const trainIssues = (out: string) =>
        script('train-ranker.ts', [
          '--issues',
          `${dataset}=${issues}`,
          '--pairs-dir',
          recordings,
          '--pairs-weights',
          '0,0.5',
          '--grid',
          'quick',
          '--folds',
          '2',
          '--out',
          out,
        ]);
      const [issueModel, again] = [path.join(dir, 'a', 'issues.json'), path.join(dir, 'b', 'issues.json')];
      const log = await trainIssues(issueModel);
      expect(log).toMatch(/12 issues from 2 repositories in 2 folds/);
      await trainIssues(again);
      expect(await readFile(again, 'utf8')).toBe(await readFile(issueModel, 'utf8'));
      const trained = loadRankerModel(issueModel).model.training;
      expect(trained.issues).toEqual([{ dataset: 'dev-rows.jsonl', rows: 12 }]);
      expect(trained.crossValidation?.folds).toBe(2);
      expect([0, 0.5]).toContain(trained.pairsWeight);
      expect(trained.command).toContain('--issues dev-rows.jsonl=issues');
      expect(trained.command).not.toContain(dir);
      // the fusion's weights chosen on the same rows: out-of-fold figures beside the defaults', and the weights to ship
      const tuned = await script('tune-fusion.ts', ['--issues', `${dataset}=${issues}`, '--folds', '2']);
      expect(tuned).toMatch(/^defaults +\d\.\d{3}\/\d\.\d{3}\/\d\.\d{3}/m);
      expect(tuned).toMatch(/^tuned, out of fold \d\.\d{3}/m);
      expect(tuned).toMatch(/weights chosen on every row: \{"dense":/);
      await expect(script('tune-fusion.ts', ['--issues', `${dataset}=${issues}`, '--from', 'dense=1'])).rejects.toThrow(
        /--from takes a JSON object of weights/,
      );
      // pair weights without pairs are refused, not ignored
      await expect(
        script('train-ranker.ts', ['--issues', `${dataset}=${issues}`, '--pairs-weights', '0.5', '--out', path.join(dir, 'x.json')]),
      ).rejects.toThrow(/--pairs-weights needs --pairs-dir/);
      // a recording folder without a row's recording stops training, naming the file
      await rm(path.join(issues, 'acme__widgets-1.json'));
      await expect(trainIssues(path.join(dir, 'x.json'))).rejects.toThrow(/acme__widgets-1\.json: no recording of row/);
      // so does tuning the fusion (before: a bare ENOENT), and a recording cut short says it cannot be read
      await expect(script('tune-fusion.ts', ['--issues', `${dataset}=${issues}`, '--folds', '2'])).rejects.toThrow(/no recording of row acme__widgets-1/);
      await writeFile(path.join(issues, 'acme__widgets-1.json'), '{"filePaths": [');
      await expect(trainIssues(path.join(dir, 'x.json'))).rejects.toThrow(/acme__widgets-1\.json: unreadable recording of row/);

      const file = (await readdir(recordings)).sort()[0]!;
      const { pair, recording } = parseRecordedPair(await readFile(path.join(recordings, file), 'utf8'), file);
      const result = await retrieveFiles(new ReplayIndex(recording), defaultQueries(pair.query), { fusion: 'learned', rankerModel: first });
      expect(result.ranking.length).toBeGreaterThan(0);
      for (const f of result.ranking) expect(Object.keys(MODULES)).toContain(f.path);
      expect(result.ranking[0]!.score).toBeGreaterThan(0);
    },
    SLOW,
  );
});
