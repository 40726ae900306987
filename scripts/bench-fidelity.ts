/**
 * Fidelity against the real SWE-bench harness, on real Lite instances.
 *
 *   npm run bench:fidelity -- --regrade DIR [--dataset FILE] [--pattern P] [--out FILE]
 *                             [--harness 5.0.2|4.1] [--exact] [--reshape] [--forge] [--compare-rules]
 *   npm run bench:fidelity -- --execute [--per-version N] [--repos a/b,c/d] [--published DIR] [--workers N]
 *                             [--mirrors DIR] [--runs-dir DIR] [--out FILE.jsonl]   (rows already in FILE are skipped)
 *                             [--image-store DIR]   (bubblewrap sandboxes over that store instead of Docker)
 *   npm run bench:fidelity -- --summarize FILE.jsonl
 *   npm run bench:fidelity -- --compare-runs RUNS_A,RUNS_B   (two --execute runs-dirs, report by report)
 *
 * `--execute` evaluates real instances again in the offline environment images (scripts/fidelity-execute.ts
 * says what it runs per instance); `--summarize` prints the per-repository/version tables of its output.
 *
 * `--regrade DIR` takes published harness runs laid out as <DIR>/<instance>/{test_output.txt, report.json,
 * patch.diff} (InternLM/SWE-Fixer's result/lite_no_p2p_result/ is one) and grades each test_output.txt
 * with locfix's log parsers, grading and cannot-run diagnosis (logs from harness versions before the
 * start/end markers are read whole, as those versions did), against the dataset's FAIL_TO_PASS /
 * PASS_TO_PASS. It reports, test by test, where locfix's statuses differ from the harness' own
 * report.json, and which instances locfix would call evaluation errors. That measures everything after
 * the test run: parsing, grading and the error rules.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadDataset } from '../src/dataset/load.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import { selectInstances } from '../src/dataset/select.ts';
import { END_TEST_OUTPUT, START_TEST_OUTPUT } from '../src/harness/constants.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { pythonTestCommand } from '../src/harness/specs.ts';
import { evalReport, statusMapFromLog, type InstanceReport, type TestsStatus } from '../validation/grading.ts';
import { type GradingRules, gradingSwitches, parseHarnessVersion, parseTestExitCode } from '../validation/grading-rules.ts';
import { forgePasses, reshapeAs50 } from './fidelity-rules.ts';
import { verdictCause } from '../validation/verdict-cause.ts';
import { logParserFor } from '../validation/log-parsers/index.ts';
import { diagnoseTestRun, patchedFiles, repositoryRoots } from '../validation/run-diagnosis.ts';
import { envImageFor, executeFidelity } from './fidelity-execute.ts';
import { summarizeFidelity } from './fidelity-summary.ts';
import { compareRuns } from './fidelity-compare.ts';
import { benchInput } from './bench-inputs.ts';

const { values } = parseArgs({
  options: {
    regrade: { type: 'string' },
    dataset: { type: 'string' },
    pattern: { type: 'string' },
    out: { type: 'string' },
    execute: { type: 'boolean' },
    summarize: { type: 'string' },
    'per-version': { type: 'string' },
    repos: { type: 'string' },
    published: { type: 'string' },
    workers: { type: 'string', default: '2' },
    mirrors: { type: 'string' },
    'runs-dir': { type: 'string', default: path.join(os.tmpdir(), 'locfix-fidelity-runs') },
    timeout: { type: 'string', default: '1800' },
    harness: { type: 'string', default: '5.0.2' },
    exact: { type: 'boolean' },
    reshape: { type: 'boolean' },
    forge: { type: 'boolean' },
    'compare-rules': { type: 'boolean' },
    lists: { type: 'string', default: 'dataset' },
    'image-store': { type: 'string' },
    'compare-runs': { type: 'string' },
  },
});

if (!['dataset', 'report'].includes(values.lists!)) throw new Error(`--lists takes dataset or report, not ${JSON.stringify(values.lists)}`);
const RULES: GradingRules = { harness: parseHarnessVersion(values.harness!), unforgeable: !values.exact };
const RULE_SETS: Record<string, GradingRules> = {
  '4.1': { harness: '4.1', unforgeable: false },
  '5.0.2': { harness: '5.0.2', unforgeable: false },
  '5.0.2+locfix': { harness: '5.0.2', unforgeable: true },
};

/** The first `perVersion` rows of each repository/version, interleaved so that a partial run covers every group. */
export function stratifiedSubset(instances: readonly SweInstance[], perVersion: number | undefined): SweInstance[] {
  const groups = new Map<string, SweInstance[]>();
  for (const i of instances) groups.set(`${i.repo}@${i.version}`, [...(groups.get(`${i.repo}@${i.version}`) ?? []), i]);
  const taken = [...groups.values()].map((g) => (perVersion === undefined ? g : g.slice(0, perVersion)));
  const order: SweInstance[] = [];
  for (let round = 0; taken.some((g) => g.length > round); round++) for (const g of taken) if (g[round]) order.push(g[round]);
  return order;
}

/** Ids of the rows an earlier run wrote to `out` (a torn last line is not a row). */
function finishedRows(out: string): Set<string> {
  const ids = new Set<string>();
  for (const line of readFileSync(out, 'utf8').split('\n')) {
    try {
      const row = JSON.parse(line) as { id?: string };
      if (row.id) ids.add(row.id);
    } catch {
      // blank or torn line
    }
  }
  return ids;
}

async function execute(): Promise<void> {
  const loaded = await loadDataset(benchInput(values, 'dataset'), { cacheDir: path.resolve('.locfix', 'cache') });
  const repos = values.repos?.split(',');
  const { instances } = selectInstances(loaded.instances, { pattern: values.pattern });
  const served = instances.filter((i) => envImageFor(i) && (!repos || repos.includes(i.repo)));
  const perVersion = values['per-version'] === undefined ? undefined : Number(values['per-version']);
  const out = values.out ?? path.join(values['runs-dir']!, 'fidelity.jsonl');
  mkdirSync(path.dirname(out), { recursive: true });
  appendFileSync(out, '');
  // A run that stopped goes on where it stopped: rows already in --out are not run again.
  const done = finishedRows(out);
  const chosen = stratifiedSubset(served, perVersion);
  const todo = chosen.filter((i) => !done.has(i.instance_id));
  console.log(
    `${chosen.length} of ${served.length} served rows (${instances.length} selected), ${chosen.length - todo.length} already in ${out}; results -> ${out}`,
  );
  await executeFidelity({
    instances: todo,
    runsDir: values['runs-dir']!,
    mirrors: benchInput(values, 'mirrors'),
    out,
    workers: Number(values.workers),
    timeoutMs: Number(values.timeout) * 1000,
    published: values.published,
    ...(values['image-store'] ? { bwrapImageStore: values['image-store'] } : {}),
  });
  console.log(summarizeFidelity(out));
}

interface InstanceFidelity {
  id: string;
  repo: string;
  version: string;
  harnessResolved: boolean;
  locfixResolved: boolean;
  /** locfix would call it an evaluation error (and why) */
  cannotRun?: string;
  tests: number;
  /** the log predates the harness' start/end markers and was read whole */
  legacyLog: boolean;
  /** why the log could not be graded under the chosen rules */
  notGraded?: string;
  /** --compare-rules: the verdict under each rule set, and why a set's verdict differs from 4.1's */
  verdicts?: Record<string, boolean>;
  causes?: Record<string, string>;
  /** tests whose success/failure differs from the harness report */
  disagreements: Array<{ test: string; category: string; harness: 'success' | 'failure' | 'absent'; locfix: 'success' | 'failure' | 'absent' }>;
}

function side(status: TestsStatus | undefined, category: keyof TestsStatus, test: string): 'success' | 'failure' | 'absent' {
  if (!status) return 'absent';
  if (status[category].success.includes(test)) return 'success';
  if (status[category].failure.includes(test)) return 'failure';
  return 'absent';
}

/**
 * A log from before the markers: the whole log is what that harness parsed, so it is all marked as test
 * output; the cannot-run rules look at what follows the traced test command (`+ <test_cmd> …`) only, as
 * the markers would have enclosed it.
 */
function markLegacyLog(raw: string, testCmd: string): string {
  const at = raw.lastIndexOf(`\n+ ${testCmd.split(' ')[0]}`);
  const before = at < 0 ? '' : raw.slice(0, at + 1);
  const after = at < 0 ? raw : raw.slice(at + 1);
  return `${before}${START_TEST_OUTPUT}\n${after}\n${END_TEST_OUTPUT}\n`;
}

/** The log as graded: legacy logs marked; with --reshape in 5.0's shape; with --forge with passing lines added. */
function preparedLog(instance: SweInstance, raw: string, parserName: string): { log: string; legacy: boolean; preExitCode: boolean } {
  // Logs of harness versions before the start/end markers (SWE-Fixer's are such) were parsed whole by that
  // harness (grading.get_logs_eval then): read them the same way by marking the whole log as the output.
  const legacy = !raw.includes(START_TEST_OUTPUT);
  let log = legacy ? markLegacyLog(raw, pythonTestCommand(makeInstanceSpec(instance).spec.spec)) : raw;
  if (values.reshape) log = reshapeAs50(log, parserName).log;
  if (values.forge) log = forgePasses(log, [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS], parserName) ?? log;
  return { log, legacy, preExitCode: parseTestExitCode(log) === undefined };
}

/** The row with the test lists the harness' report graded, where --lists report asks for them. */
function withListsOf(row: SweInstance, harness: InstanceReport[string] | undefined): SweInstance {
  const status = harness?.tests_status;
  if (values.lists !== 'report' || !status) return row;
  const all = (category: 'FAIL_TO_PASS' | 'PASS_TO_PASS') => [...status[category].success, ...status[category].failure];
  return { ...row, FAIL_TO_PASS: all('FAIL_TO_PASS'), PASS_TO_PASS: all('PASS_TO_PASS') };
}

function regradeOne(datasetRow: SweInstance, dir: string): InstanceFidelity | undefined {
  const logFile = path.join(dir, 'test_output.txt');
  const reportFile = path.join(dir, 'report.json');
  if (!existsSync(logFile) || !existsSync(reportFile)) return undefined;
  const harness = (JSON.parse(readFileSync(reportFile, 'utf8')) as InstanceReport)[datasetRow.instance_id];
  const instance = withListsOf(datasetRow, harness);
  const spec = makeInstanceSpec(instance);
  const { log, legacy, preExitCode } = preparedLog(instance, readFileSync(logFile, 'utf8'), spec.spec.logParser);
  const patch = existsSync(path.join(dir, 'patch.diff')) ? readFileSync(path.join(dir, 'patch.diff'), 'utf8') : '';
  const parser = logParserFor(spec.spec, instance.instance_id);
  const grade = (rules: GradingRules) => evalReport(instance.instance_id, patch, log, instance, parser, rules)[instance.instance_id];
  // a log from before 5.0 cannot be held to 5.0.2's exit-code check: not graded under 5.0.2, with the reason
  const pre50 = gradingSwitches(RULES).exitCodeCheck && preExitCode && !values['compare-rules'];
  const ours = pre50 ? undefined : grade(RULES);
  // no execution here, so no gold baseline: a stop that names the repository's own code is the patch's (conservative)
  const cannotRun = diagnoseTestRun(log, statusMapFromLog(log, parser, RULES).statusMap, instance, {
    networkOff: false,
    patchedFiles: patchedFiles(patch),
    repositoryCode: repositoryRoots(instance.patch),
  });
  const disagreements: InstanceFidelity['disagreements'] = [];
  for (const category of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
    for (const test of instance[category]) {
      const h = side(harness?.tests_status, category, test);
      const l = side(ours?.tests_status, category, test);
      if (ours && h !== l) disagreements.push({ test, category, harness: h, locfix: l });
    }
  }
  const row: InstanceFidelity = {
    id: instance.instance_id,
    repo: instance.repo,
    version: spec.version,
    harnessResolved: Boolean(harness?.resolved),
    locfixResolved: Boolean(ours?.resolved),
    ...(cannotRun ? { cannotRun: `${cannotRun.kind}: ${cannotRun.reason}` } : {}),
    ...(pre50
      ? { notGraded: 'the log predates harness 5.0 (no recorded test exit code): regrade with --harness 4.1, or --reshape' }
      : ours?.not_graded_reason
        ? { notGraded: ours.not_graded_reason }
        : {}),
    tests: instance.FAIL_TO_PASS.length + instance.PASS_TO_PASS.length,
    legacyLog: legacy,
    disagreements,
  };
  if (values['compare-rules']) {
    const graded = Object.fromEntries(Object.entries(RULE_SETS).map(([name, rules]) => [name, grade(rules)]));
    row.verdicts = Object.fromEntries(Object.entries(graded).map(([name, g]) => [name, g.resolved]));
    row.causes = {};
    // each rule set against the one it adds to: 5.0.2 against 4.1, locfix's rule against 5.0.2
    for (const [name, base] of RULE_SET_STEPS) {
      if (graded[name].resolved === graded[base].resolved) continue;
      const tests = { base: graded[base].tests_status, other: graded[name].tests_status };
      row.causes[name] = verdictCause(log, parser, tests, { base: RULE_SETS[base], other: RULE_SETS[name] });
    }
  }
  return row;
}

/** Each rule set beside the one it adds to: 5.0.2 against 4.1, locfix's rule against 5.0.2. */
const RULE_SET_STEPS = [
  ['5.0.2', '4.1'],
  ['5.0.2+locfix', '5.0.2'],
] as const;

function countBy(items: readonly string[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

/** Resolved counts under each rule set, and the verdicts each set changes, by the rule that changed them. */
function printRuleComparison(rows: readonly InstanceFidelity[]): void {
  for (const name of Object.keys(RULE_SETS)) console.log(`resolved under ${name.padEnd(13)} ${rows.filter((r) => r.verdicts?.[name]).length}/${rows.length}`);
  for (const [name, base] of RULE_SET_STEPS) {
    const changed = rows.filter((r) => r.causes?.[name]);
    console.log(`verdicts ${name} changes (against ${base}): ${changed.length}`);
    for (const [cause, n] of countBy(changed.map((r) => `${r.verdicts![name] ? 'now resolved' : 'now unresolved'}: ${r.causes![name]}`)))
      console.log(`  ${n} × ${cause}`);
    for (const r of changed.slice(0, 12)) console.log(`    ${r.id}: ${r.causes![name]}`);
  }
}

async function main(): Promise<void> {
  if (values.execute) return execute();
  if (values.summarize) return void console.log(summarizeFidelity(values.summarize));
  if (values['compare-runs']) {
    const [a, b] = values['compare-runs'].split(',');
    if (!a || !b) throw new Error('--compare-runs takes two runs-dirs: A,B');
    return void console.log(compareRuns(a, b));
  }
  if (!values.regrade) throw new Error('usage: npm run bench:fidelity -- --regrade DIR (a folder of <instance>/{test_output.txt,report.json})');
  const loaded = await loadDataset(benchInput(values, 'dataset'), { cacheDir: path.resolve('.locfix', 'cache') });
  const { instances } = selectInstances(loaded.instances, { pattern: values.pattern });
  const present = new Set(readdirSync(values.regrade));
  const rows: InstanceFidelity[] = [];
  for (const instance of instances) {
    if (!present.has(instance.instance_id)) continue;
    const row = regradeOne(instance, path.join(values.regrade, instance.instance_id));
    if (row) rows.push(row);
  }
  const byRepo = new Map<string, InstanceFidelity[]>();
  for (const r of rows) byRepo.set(r.repo, [...(byRepo.get(r.repo) ?? []), r]);
  const line = (label: string, all: InstanceFidelity[]) => {
    // a log the rules cannot grade has no verdict to agree or disagree with
    const list = all.filter((r) => !r.notGraded?.startsWith('the log predates'));
    const tests = list.reduce((n, r) => n + r.tests, 0);
    const off = list.reduce((n, r) => n + r.disagreements.length, 0);
    const verdicts = list.filter((r) => r.harnessResolved === r.locfixResolved).length;
    const errors = list.filter((r) => r.cannotRun).length;
    const skipped = all.length - list.length ? `  (${all.length - list.length} not gradable under these rules)` : '';
    return `${label.padEnd(28)} ${String(list.length).padStart(4)} inst  verdicts ${verdicts}/${list.length}  tests agree ${tests - off}/${tests} (${((100 * (tests - off)) / Math.max(1, tests)).toFixed(2)}%)  would be eval errors ${errors}${skipped}`;
  };
  console.log(line('all', rows));
  for (const [repo, list] of [...byRepo].sort()) console.log(line(repo, list));
  for (const r of rows.filter((x) => x.disagreements.length > 0 || x.harnessResolved !== x.locfixResolved)) {
    console.log(
      `  ${r.id}: harness ${r.harnessResolved ? 'resolved' : 'unresolved'}, locfix ${r.locfixResolved ? 'resolved' : 'unresolved'}; ${r.disagreements.length} test(s) differ, e.g. ${JSON.stringify(r.disagreements[0])}`,
    );
  }
  for (const r of rows.filter((x) => x.cannotRun)) console.log(`  would be an evaluation error: ${r.id}: ${r.cannotRun!.slice(0, 200)}`);
  const notGraded = rows.filter((r) => r.notGraded);
  console.log(`rules: harness ${RULES.harness}${RULES.unforgeable ? ' + locfix unforgeable' : ' (exact)'}; not graded: ${notGraded.length}`);
  for (const [reason, n] of countBy(notGraded.map((r) => r.notGraded!))) console.log(`  ${n} × ${reason}`);
  if (values['compare-rules']) printRuleComparison(rows);
  if (values.out) writeFileSync(values.out, JSON.stringify({ command: process.argv.slice(2).join(' '), instances: rows }, null, 2));
  for (const e of loaded.errors) console.error(`dataset: ${e.message}`);
}

await main();
