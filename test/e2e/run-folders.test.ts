/**
 * Every analysis command takes every kind of run folder, and counts only work that happened (issue 29):
 * stage folders (`localize`, `retrieve --shard`), a `locfix run` stopped after localization, an imported run
 * and a merged one; two configurations of one localizer are two arms; a comparison within one repository
 * has no clustered interval. Real CLI, real Chroma, real git, the mini-benchmark; no model.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocfix } from '../support/cli.ts';
import { startPipelineWorld, stopPipelineWorld, type PipelineWorld } from './pipeline-world.ts';

const IDS = ['minibench__confetti-5', 'minibench__confetti-9', 'minibench__qty-7', 'minibench__qty-12', 'minibench__urlkit-14'];
let world: PipelineWorld;
const cache = () => path.join(world.dir, 'cache');
const runs = (name: string) => path.join(world.dir, 'runs', name);
const common = () => ['--dataset', world.bench.datasetPath, '--mirrors', world.bench.mirrorsDir, '--chroma-url', world.chroma.url, '--cache-dir', cache()];
const NO_HISTORY = JSON.stringify({ retrieval: { weights: { history: 0, definitions: 0 } } });

async function locfix(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runLocfix(args, cache());
  if (r.code !== 0) throw new Error(`locfix ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r;
}

beforeAll(async () => {
  world = await startPipelineWorld('run-folders', IDS);
  const ids = IDS.join(',');
  await locfix(['localize', '--localizer', 'retrieval', '--instances', ids, '--out', runs('ret-a'), ...common()]);
  await locfix(['localize', '--localizer', 'retrieval', '--localizer-options', NO_HISTORY, '--instances', ids, '--out', runs('ret-b'), ...common()]);
}, 600_000);
afterAll(async () => {
  if (world) await stopPipelineWorld(world);
});

describe('run folders of every kind, one reader', () => {
  it('compare: two configurations of one localizer are two arms, compared pairwise (not pooled)', async () => {
    const { stdout } = await locfix(['compare', runs('ret-a'), runs('ret-b'), '--json']);
    const c = JSON.parse(stdout) as {
      arms: Array<{ arm: string; localizer: string }>;
      metrics: Array<{ metric: string; reference: string; alternative: string }>;
    };
    expect(c.arms.map((a) => [a.arm, a.localizer])).toEqual([
      ['ret-a', 'retrieval'],
      ['ret-b', 'retrieval'],
    ]);
    expect(c.metrics.find((m) => m.metric === 'hit1')).toMatchObject({ reference: 'ret-a', alternative: 'ret-b' });
  }, 120_000);

  it('analyze and report take a stage folder: no patch there is "not reached", never an empty patch', async () => {
    const { stdout } = await locfix(['analyze', runs('ret-a'), '--json']);
    const a = JSON.parse(stdout) as {
      summary: { total: number; judged: number; categories: Record<string, { count: number }> };
      instances: Array<{ notJudged?: string }>;
    };
    expect(a.summary).toMatchObject({ total: 5, judged: 0 });
    expect(a.summary.categories['not-reached'].count).toBe(5);
    expect(a.summary.categories['empty-patch'].count).toBe(0);
    expect(a.instances[0].notJudged).toMatch(/localize-functions: this folder holds the stages localize-files only/);
    // nothing below file level is judged there, so no base file is read and nothing warns (before: one warning each)
    const written = JSON.parse(await readFile(path.join(runs('ret-a'), 'analysis.json'), 'utf8')) as { warnings: string[] };
    expect(written.warnings).toEqual([]);
    // without --out a report of two runs would replace the first run's own report: refused, naming why
    const unnamed = await runLocfix(['report', runs('ret-a'), runs('ret-b')], cache());
    expect(unnamed.code).toBe(1);
    expect(unnamed.stderr).toMatch(/a report of 2 runs needs --out DIR \(.*ret-a\/report is the first run's own report\)/);
    await locfix(['report', runs('ret-a'), runs('ret-b'), '--out', runs('report-ab')]);
    const md = await readFile(path.join(runs('report-ab'), 'report.md'), 'utf8');
    expect(md).toMatch(
      /5 instances selected by every run \(the tables\); each pair's statistics are over the instances its runs selected \(n in each row\), work not done counting as a miss and as unresolved; 5 localized by every run; 0 judged by every run/,
    );
    expect(md).toMatch(/A run judged none of the instances .*: no resolution statistics/);
    // the localization table says what its means are over (it had no n column)
    expect(md).toMatch(/\| run \| n \| Hit@1 \|/);
    expect(md).toMatch(/\| ret-a \(retrieval\) \| 5 \| /);
  }, 120_000);

  it('a locfix run stopped after localization: eval-loc scores it, analyze counts nothing as a failure', async () => {
    await locfix([
      'run',
      '--run-id',
      'stopped',
      '--runs-dir',
      path.join(world.dir, 'runs'),
      '--localizer',
      'retrieval',
      '--stop-after',
      'localize-files',
      '--instances',
      IDS.join(','),
      '--embedder',
      'lexical',
      ...common(),
    ]);
    // before: "localize-files.selection.json not found"
    const { stdout } = await locfix(['eval-loc', runs('stopped'), '--json']);
    expect(JSON.parse(stdout)).toMatchObject({ n: 5 });
    const analysis = JSON.parse(await readFile(path.join(runs('stopped'), 'analysis.json'), 'utf8')) as {
      summary: { judged: number; categories: Record<string, { count: number }>; notJudgedReasons: Record<string, number> };
    };
    // before: 100 % "empty patch"
    expect(analysis.summary.categories['empty-patch'].count).toBe(0);
    expect(analysis.summary.notJudgedReasons).toEqual({ 'not-reached: localize-functions: the run stopped after localize-files (--stop-after)': 5 });
    // a run folder and a stage folder of the same localizer compare as two arms
    const cmp = JSON.parse((await locfix(['compare', runs('stopped'), runs('ret-a'), '--json'])).stdout) as { arms: Array<{ arm: string }> };
    expect(cmp.arms.map((a) => a.arm)).toEqual(['stopped', 'ret-a']);
  }, 300_000);

  it('an imported run compares with your own; merge joins the shards `retrieve --shard` writes', async () => {
    const rows = (await readFile(world.bench.datasetPath, 'utf8'))
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { instance_id: string; patch: string })
      .filter((r) => IDS.includes(r.instance_id));
    const predictions = path.join(world.dir, 'predictions.jsonl');
    await writeFile(predictions, rows.map((r) => JSON.stringify({ instance_id: r.instance_id, model_patch: r.patch })).join('\n'));
    await locfix([
      'import-run',
      predictions,
      '--format',
      'predictions',
      '--label',
      'gold-edits',
      '--out',
      runs('imported'),
      '--instances',
      IDS.join(','),
      ...common().slice(0, 2),
    ]);
    const cmp = JSON.parse((await locfix(['compare', runs('imported'), runs('ret-a'), '--json'])).stdout) as {
      arms: Array<{ arm: string }>;
      localizedInstances: number;
    };
    expect(cmp.arms.map((a) => a.arm)).toEqual(['gold-edits', 'retrieval']);
    expect(cmp.localizedInstances).toBe(5);

    for (const shard of ['1/2', '2/2'])
      await locfix(['retrieve', '--instances', IDS.join(','), '--shard', shard, '--out', runs(`shard-${shard[0]}`), ...common()]);
    // before: "is not a locfix run (no instances.jsonl)"
    await locfix(['merge', '--out', runs('merged'), runs('shard-1'), runs('shard-2')]);
    expect(JSON.parse((await locfix(['eval-loc', runs('merged'), '--json'])).stdout)).toMatchObject({ n: 5 });
    // parts of different arms do not merge
    const refused = await runLocfix(['merge', '--out', runs('mixed'), runs('ret-a'), runs('imported')], cache());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/different configurations/);
  }, 300_000);

  it('one configuration is one arm whatever was typed and whichever command ran it; merge names what differs (issue 41)', async () => {
    const ids = IDS.join(',');
    const typed = JSON.stringify({ queries: 'raw+structural+title', retrieval: { weights: { history: 1 } } });
    await locfix(['localize', '--localizer', 'retrieval', '--localizer-options', typed, '--instances', ids, '--out', runs('ret-typed'), ...common()]);
    await locfix(['retrieve', '--instances', ids, '--out', runs('ret-cmd'), ...common()]);
    const cmp = JSON.parse((await locfix(['compare', runs('ret-a'), runs('ret-typed'), runs('ret-cmd'), runs('ret-b'), '--json'])).stdout) as {
      arms: Array<{ arm: string; runs: string[] }>;
    };
    // before: four arms (the default typed out, and `retrieve`'s own names for the same options)
    expect(cmp.arms.map((a) => [a.arm, a.runs])).toEqual([
      ['ret-a', ['ret-a', 'ret-typed', 'ret-cmd']],
      ['ret-b', ['ret-b']],
    ]);
    // before: "runs of different arms (retrieval / retrieval, or other settings)"
    const mixed = await runLocfix(['merge', '--out', runs('merge-ab'), runs('ret-a'), runs('ret-b')], cache());
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toMatch(/What differs \(ret-a → ret-b\):\n\s+file-localization\.localizer\.options\.retrieval\.weights\.definitions: 0\.5 → 0/);
    // repeats of one configuration over the same instances are compared, not merged (before: "conflicts", one seed dropped)
    const two = IDS.slice(0, 2).join(',');
    for (const seed of ['0', '1'])
      await locfix([
        'run',
        ...['--run-id', `seed-${seed}`, '--runs-dir', path.join(world.dir, 'runs'), '--seed', seed],
        ...['--localizer', 'retrieval', '--stop-after', 'localize-files', '--instances', two, '--embedder', 'lexical'],
        ...common(),
      ]);
    const repeats = await runLocfix(['merge', '--out', runs('merge-seeds'), runs('seed-0'), runs('seed-1')], cache());
    expect(repeats.code).toBe(1);
    expect(repeats.stderr).toMatch(/repeats of one configuration over 2 of the same instances: merging would drop one seed's answers\. Use locfix compare/);
  }, 300_000);

  it('within one repository there is no clustered interval, and nothing is flagged by it', async () => {
    const confetti = 'minibench__confetti-5,minibench__confetti-9';
    await locfix(['localize', '--localizer', 'retrieval', '--instances', confetti, '--out', runs('one-a'), ...common()]);
    await locfix(['localize', '--localizer', 'retrieval', '--localizer-options', NO_HISTORY, '--instances', confetti, '--out', runs('one-b'), ...common()]);
    const { stdout } = await locfix(['compare', runs('one-a'), runs('one-b')]);
    expect(stdout).toMatch(/no interval: one repository: no clustered interval/);
  }, 300_000);
});

describe('configuration errors stop the command at start', () => {
  it('no model for stages that need one, a wrong --mirrors: refused before any instance, with the fix named', async () => {
    const run = await runLocfix(
      ['run', '--run-id', 'no-model', '--runs-dir', path.join(world.dir, 'runs'), '--localizer', 'retrieval', '--instances', IDS[0], ...common()],
      cache(),
    );
    // before: each instance recorded "repair needs a chat model" and the analysis called it an empty patch
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/localize-functions, localize-lines, repair \(stop earlier with --stop-after localize-files\) needs a chat model: pass --llm/);
    expect(existsSync(path.join(runs('no-model'), 'localize-files'))).toBe(false);
    const blagent = await runLocfix(['localize', '--localizer', 'blagent', '--instances', IDS[0], '--out', runs('no-model-blagent'), ...common()], cache());
    expect(blagent.code).toBe(1);
    expect(blagent.stderr).toMatch(/the blagent localizer needs a chat model/);
    // a replay folder that is not there: before, every instance recorded the failure of its model stages
    const replay = await runLocfix(
      [
        'run',
        '--run-id',
        'bad-replay',
        '--runs-dir',
        path.join(world.dir, 'runs'),
        '--localizer',
        'retrieval',
        '--llm',
        `replay:${path.join(world.dir, 'no-recording')}`,
        '--instances',
        IDS[0],
        ...common(),
      ],
      cache(),
    );
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(/--llm: the chat model cannot be opened: replay: .*no-recording does not exist/);
    expect(existsSync(path.join(runs('bad-replay'), 'localize-files'))).toBe(false);
    const flags = common();
    flags[flags.indexOf('--mirrors') + 1] = path.join(world.dir, 'no-such-mirrors');
    const mirrors = await runLocfix(['localize', '--localizer', 'retrieval', '--instances', IDS[0], '--out', runs('bad-mirrors'), ...flags], cache());
    expect(mirrors.code).toBe(1);
    expect(mirrors.stderr).toMatch(/--mirrors .*no-such-mirrors: no mirror for 1 of the selection's 1 repositories \(minibench\/confetti\)/);
    expect(existsSync(path.join(runs('bad-mirrors'), 'localize-files'))).toBe(false);
  }, 120_000);

  it('a failure of kind configuration recorded by an older run is never reused: the rerun does the instance', async () => {
    const artifact = path.join(runs('ret-a'), 'localize-files', `${IDS[0]}.json`);
    const ok = JSON.parse(await readFile(artifact, 'utf8')) as Record<string, unknown>;
    await writeFile(
      artifact,
      JSON.stringify({ ...ok, status: 'error', output: undefined, error: { message: 'no mirror for minibench/confetti', kind: 'missing-repo' } }),
    );
    const { stderr } = await locfix(['localize', '--localizer', 'retrieval', '--instances', IDS.join(','), '--out', runs('ret-a'), ...common()]);
    expect(stderr).toMatch(/localize: 5 of 5 instances ok/);
    expect(JSON.parse(await readFile(artifact, 'utf8'))).toMatchObject({ status: 'ok', attempt: 2 });
  }, 120_000);
});
