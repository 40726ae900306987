/**
 * How far the oracle's rules (localizer/oracle/gold-locations.ts) carry on real gold patches: for every row, the
 * gold files are read at the base commit from the mirrors and placed at function and line level. Reported per
 * dataset and repository: rows the oracle can show whole (every gold file placed), rows it can show in part, rows
 * it cannot (only new files, or no mirror), runs of changed lines by the rule that placed them, functions and
 * lines per row, and — for Python hunks whose git header names a `def` — how often the oracle names that same
 * function (git's header is the nearest def line above the hunk: an independent, approximate check).
 *
 *   npm run bench:oracle -- --dataset ROWS [--dataset ROWS …] [--mirrors DIR] [--out FILE.json] [--show N]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { goldLocations, type GoldLocations, type PlacementRule } from '../localizer/oracle/gold-locations.ts';
import { loadDataset } from '../src/dataset/load.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { modifiedExistingFiles, parsePatch } from '../src/patch.ts';
import { RepoStore } from '../src/repo/store.ts';
import { benchDatasets, benchInput } from './bench-inputs.ts';

interface RowResult {
  instance: string;
  repo: string;
  gold?: GoldLocations;
  /** why the base files could not be read */
  unreadable?: string;
  ms: number;
  /** Python hunks whose header names a def: [named by the oracle, all] */
  headerChecks: [number, number];
}

/** Python hunk headers naming a def, and whether the oracle named that function for the file. */
function headerAgreement(instance: SweInstance, gold: GoldLocations): [number, number] {
  let agree = 0;
  let all = 0;
  for (const file of parsePatch(instance.patch)) {
    if (!file.oldPath?.endsWith('.py')) continue;
    const placed = gold.files.find((f) => f.path === file.oldPath);
    if (!placed) continue;
    const names = placed.locations.filter((l) => l.startsWith('function: ')).map((l) => l.slice('function: '.length).split('.').at(-1));
    for (const hunk of file.hunks) {
      const def = /^\s*(?:async\s+)?def\s+(\w+)/.exec(hunk.header);
      if (!def) continue;
      all++;
      if (names.includes(def[1])) agree++;
    }
  }
  return [agree, all];
}

async function examine(instance: SweInstance, store: RepoStore): Promise<RowResult> {
  const t0 = performance.now();
  try {
    const snapshot = await store.snapshot(instance.repo, instance.base_commit);
    const sources = await snapshot.readFiles(modifiedExistingFiles(instance.patch));
    const gold = goldLocations(instance.patch, (p) => sources.get(p));
    return { instance: instance.instance_id, repo: instance.repo, gold, ms: performance.now() - t0, headerChecks: headerAgreement(instance, gold) };
  } catch (err) {
    return {
      instance: instance.instance_id,
      repo: instance.repo,
      unreadable: (err as Error).message.split('\n')[0],
      ms: performance.now() - t0,
      headerChecks: [0, 0],
    };
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : Number.NaN;
};

function summarize(rows: readonly RowResult[]) {
  const read = rows.filter((r) => r.gold);
  const whole = read.filter((r) => r.gold!.files.length && !r.gold!.unplaced.length);
  const part = read.filter((r) => r.gold!.files.length && r.gold!.unplaced.length);
  const none = read.filter((r) => !r.gold!.files.length);
  const rules: Partial<Record<PlacementRule, number>> = {};
  for (const r of read)
    for (const f of r.gold!.files) for (const [k, v] of Object.entries(f.rules) as Array<[PlacementRule, number]>) rules[k] = (rules[k] ?? 0) + v;
  const runs = Object.values(rules).reduce((a, b) => a + b, 0);
  const fnCount = (r: RowResult) => r.gold!.files.reduce((a, f) => a + f.locations.filter((l) => l.startsWith('function: ')).length, 0);
  const lineCount = (r: RowResult) => r.gold!.files.reduce((a, f) => a + f.lines.reduce((b, x) => b + x.end - x.start + 1, 0), 0);
  const onlyFunctions = read.filter((r) => r.gold!.files.length && r.gold!.files.every((f) => f.locations.every((l) => l.startsWith('function: '))));
  const header = rows.reduce<[number, number]>((acc, r) => [acc[0] + r.headerChecks[0], acc[1] + r.headerChecks[1]], [0, 0]);
  return {
    rows: rows.length,
    unreadable: rows.length - read.length,
    whole: whole.length,
    partial: part.length,
    nothingToShow: none.length,
    onlyFunctions: onlyFunctions.length,
    rules,
    runs,
    medianFunctions: median(read.map(fnCount)),
    medianLines: median(read.map(lineCount)),
    headerAgreement: header,
    medianMs: median(rows.map((r) => r.ms)),
  };
}

function line(label: string, s: ReturnType<typeof summarize>): string {
  const share = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}%` : '—');
  const rules = (['function', 'class-body', 'module', 'no-grammar'] as const).map((k) => `${k} ${share(s.rules[k] ?? 0, s.runs)}`).join(', ');
  return (
    `${label}: ${s.rows} rows; whole ${s.whole}, partly ${s.partial}, nothing to show ${s.nothingToShow}, unreadable ${s.unreadable}; ` +
    `only functions ${s.onlyFunctions}; runs ${s.runs} (${rules}); median ${s.medianFunctions} functions, ${s.medianLines} lines a row; ` +
    `git header's def named ${s.headerAgreement[0]}/${s.headerAgreement[1]}; ${s.medianMs.toFixed(1)} ms a row`
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { dataset: { type: 'string', multiple: true }, mirrors: { type: 'string' }, out: { type: 'string' }, show: { type: 'string', default: '0' } },
  });
  const mirrors = benchInput(values, 'mirrors');
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'locfix-bench-oracle-'));
  const store = new RepoStore({ cacheDir, mirrorsDir: mirrors, allowClone: false });
  const out: Record<string, unknown> = {};
  try {
    for (const source of benchDatasets(values.dataset)) {
      const { instances } = await loadDataset(source);
      const rows: RowResult[] = [];
      for (const instance of instances) rows.push(await examine(instance, store));
      const byRepo = Object.fromEntries([...new Set(rows.map((r) => r.repo))].sort().map((repo) => [repo, summarize(rows.filter((r) => r.repo === repo))]));
      const all = summarize(rows);
      console.log(line(path.basename(source), all));
      for (const [repo, s] of Object.entries(byRepo)) console.log(`  ${line(repo, s)}`);
      for (const r of rows.filter((x) => x.unreadable)) console.log(`  unreadable ${r.instance}: ${r.unreadable}`);
      for (const r of rows.filter((x) => x.gold?.unplaced.length))
        console.log(`  unplaced ${r.instance}: ${r.gold!.unplaced.map((u) => `${u.path} (${u.reason})`).join('; ')}`);
      for (const r of rows.slice(0, Number(values.show)))
        console.log(`  ${r.instance}: ${JSON.stringify(r.gold?.files.map((f) => [f.path, f.locations, f.lines]))}`);
      out[source] = {
        all,
        byRepo,
        rows: rows.map((r) => ({ instance: r.instance, unreadable: r.unreadable, files: r.gold?.files, unplaced: r.gold?.unplaced })),
      };
    }
  } finally {
    await store.close();
    rmSync(cacheDir, { recursive: true, force: true });
  }
  if (values.out) writeFileSync(values.out, `${JSON.stringify(out, null, 2)}\n`);
}

await main();
