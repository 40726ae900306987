/**
 * The gate, before any number: every selected row's gold patch and empty patch run on this machine, in the same
 * sandboxes and under the same grading rules as the predictions will be. A row passes when the gold patch resolves it
 * and the empty patch does not; otherwise it names why, so a rate can be given over the rows that can be resolved
 * here, beside the rate over all rows:
 *
 * - `environment`: the gold patch's evaluation could not run (a missing image, tests that cannot start, a log that
 *   cannot be graded);
 * - `unsatisfiable-test-ids`: ids in FAIL_TO_PASS or PASS_TO_PASS that the gold run's log never reports (such as a
 *   parametrisation the parser cannot name, `[100%]`): no patch can make them pass;
 * - `gold-unresolved`: the gold run reports every id, and some fail;
 * - `flaky`: repeated gold runs disagree;
 * - `empty-resolves`: the tests pass with no fix at all;
 * - `empty-environment`: the empty patch's run could not run (the row's baseline is unknown).
 *
 * The known-bad lists kept as data (src/harness/known-gold-failures.json) are reported beside each row, never
 * instead of running it. The result is `<run>/gate.json`; the runs' logs are under `<run>/gate/`.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import { LOG_TEST_OUTPUT } from '../src/harness/constants.ts';
import { makeInstanceSpec } from '../src/harness/instance-spec.ts';
import { knownGoldFailure } from '../src/harness/known-gold-failures.ts';
import { readJsonIfExists, writeJsonAtomic } from '../src/util/fsx.ts';
import type { EvaluationOptions, InstanceOutcome } from './evaluate.ts';
import { instanceLogDir } from './evaluate.ts';
import { resolveTestKey, statusMapFromLog } from './grading.ts';
import { DEFAULT_GRADING_RULES, type GradingRules } from './grading-rules.ts';
import { logParserFor } from './log-parsers/index.ts';
import { goldPredictions } from './predictions.ts';
import { runEvaluation } from './run-evaluation.ts';

export const GATE_FILE = 'gate.json';
export const GATE_DIR = 'gate';

export const GATE_REASONS = ['environment', 'unsatisfiable-test-ids', 'gold-unresolved', 'flaky', 'empty-resolves', 'empty-environment'] as const;
export type GateReason = (typeof GATE_REASONS)[number];

export interface GateRow {
  instanceId: string;
  passes: boolean;
  /** why it does not pass (none when it does) */
  reasons: GateReason[];
  /** the gold runs' verdicts, one per repeat */
  gold: boolean[];
  /** the gold run's error, when it could not run */
  goldError?: string;
  /** FAIL_TO_PASS / PASS_TO_PASS ids the gold run's log never reports */
  unsatisfiable?: string[];
  empty?: boolean;
  emptyError?: string;
  /** the dataset's own known-bad entry for the row, beside the gate's verdict */
  knownBad?: string;
}

export interface GateResult {
  createdAt: string;
  grading: GradingRules;
  repeats: number;
  rows: GateRow[];
  /** rows that pass, and how many fail for each reason */
  summary: { rows: number; passing: number; byReason: Partial<Record<GateReason, number>>; knownBad: number };
}

export type GateOptions = Omit<EvaluationOptions, 'runId' | 'runsDir' | 'predictions' | 'runEmptyPatches' | 'onProgress'> & {
  /** the run folder the gate belongs to: gate.json and gate/ go there */
  runDir: string;
  /** gold runs per row (default 1; 2 or more tell a flaky row) */
  repeats?: number;
  onProgress?: (what: string, outcome: InstanceOutcome) => void;
};

/** FAIL_TO_PASS / PASS_TO_PASS ids that the log never reports under `rules`; undefined when there is no gradable log. */
async function unreportedIds(logDir: string, instance: SweInstance, rules: GradingRules): Promise<string[] | undefined> {
  const log = await fs.readFile(path.join(logDir, LOG_TEST_OUTPUT), 'utf8').catch(() => undefined);
  if (log === undefined) return undefined;
  const reading = statusMapFromLog(log, logParserFor(makeInstanceSpec(instance).spec, instance.instance_id), rules);
  if (!reading.found) return undefined;
  return [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].filter((id) => resolveTestKey(id, reading.statusMap, rules) === undefined);
}

/** One row's verdict from its gold runs and its empty-patch run (exported for its tests). */
export async function gateRow(instance: SweInstance, gold: InstanceOutcome[], empty: InstanceOutcome | undefined, goldLogDir: string, rules: GradingRules) {
  const id = instance.instance_id;
  const reasons: GateReason[] = [];
  const failed = gold.find((o) => !o.completed);
  const verdicts = gold.map((o) => o.completed && o.resolved);
  let unsatisfiable: string[] | undefined;
  if (failed) reasons.push('environment');
  else if (new Set(verdicts).size > 1) reasons.push('flaky');
  else if (!verdicts[0]) {
    unsatisfiable = await unreportedIds(goldLogDir, instance, rules);
    if (unsatisfiable === undefined) reasons.push('environment');
    else reasons.push(unsatisfiable.length ? 'unsatisfiable-test-ids' : 'gold-unresolved');
  }
  if (!empty?.completed) reasons.push('empty-environment');
  else if (empty.resolved) reasons.push('empty-resolves');
  const known = knownGoldFailure(id);
  const row: GateRow = {
    instanceId: id,
    passes: reasons.length === 0,
    reasons,
    gold: verdicts,
    ...(failed ? { goldError: failed.error ?? 'the evaluation did not complete' } : {}),
    ...(unsatisfiable?.length ? { unsatisfiable } : {}),
    ...(empty?.completed ? { empty: empty.resolved } : { emptyError: empty?.error ?? 'not evaluated' }),
    ...(known ? { knownBad: `${known.dataset}: ${known.reason}` } : {}),
  };
  return row;
}

function summarize(rows: readonly GateRow[]): GateResult['summary'] {
  const byReason: Partial<Record<GateReason, number>> = {};
  for (const r of rows) for (const reason of r.reasons) byReason[reason] = (byReason[reason] ?? 0) + 1;
  return { rows: rows.length, passing: rows.filter((r) => r.passes).length, byReason, knownBad: rows.filter((r) => r.knownBad).length };
}

/** Runs the gate for `options.dataset` and writes `<runDir>/gate.json`; resumes from the reports already written. */
export async function runGate(options: GateOptions): Promise<GateResult> {
  const { runDir, repeats = 1, onProgress, ...evaluation } = options;
  const runsDir = path.join(runDir, GATE_DIR);
  const rules = options.grading ?? DEFAULT_GRADING_RULES;
  const goldRuns: string[] = Array.from({ length: Math.max(1, repeats) }, (_, k) => (k === 0 ? 'gold' : `gold-${k + 1}`));
  const goldOutcomes: InstanceOutcome[][] = [];
  for (const runId of goldRuns) {
    const { outcomes } = await runEvaluation({
      ...evaluation,
      runsDir,
      runId,
      predictions: goldPredictions(options.dataset),
      onProgress: (o) => onProgress?.(runId, o),
    });
    goldOutcomes.push(outcomes);
  }
  const empties = options.dataset.map((i) => ({ instance_id: i.instance_id, model_name_or_path: 'empty', model_patch: '' }));
  const empty = await runEvaluation({
    ...evaluation,
    runsDir,
    runId: 'empty',
    predictions: empties,
    runEmptyPatches: true,
    onProgress: (o) => onProgress?.('empty', o),
  });
  const byId = (outcomes: readonly InstanceOutcome[]) => new Map(outcomes.map((o) => [o.instanceId, o]));
  const goldById = goldOutcomes.map(byId);
  const emptyById = byId(empty.outcomes);
  const rows: GateRow[] = [];
  for (const instance of options.dataset) {
    const gold = goldById.map((m) => m.get(instance.instance_id)).filter((o): o is InstanceOutcome => o !== undefined);
    const logDir = instanceLogDir(runsDir, 'gold', instance.instance_id);
    rows.push(await gateRow(instance, gold, emptyById.get(instance.instance_id), logDir, rules));
  }
  const result: GateResult = { createdAt: new Date().toISOString(), grading: rules, repeats: goldRuns.length, rows, summary: summarize(rows) };
  await writeJsonAtomic(path.join(runDir, GATE_FILE), result);
  return result;
}

/** A run's gate, when one was run for it (and its file reads). */
export async function readGate(runDir: string): Promise<GateResult | undefined> {
  const gate = await readJsonIfExists<GateResult>(path.join(runDir, GATE_FILE)).catch(() => undefined);
  return gate && Array.isArray(gate.rows) ? gate : undefined;
}

/** The gate's table, one line per row that does not pass, and the counts. */
export function describeGate(gate: GateResult): string[] {
  const s = gate.summary;
  const reasons = Object.entries(s.byReason).map(([reason, n]) => `${reason} ${n}`);
  const lines = [
    `gate: ${s.passing} of ${s.rows} rows pass (gold resolves, the empty patch does not)${reasons.length ? `; ${reasons.join(', ')}` : ''}${s.knownBad ? `; ${s.knownBad} on the dataset's known-bad list` : ''}`,
  ];
  for (const r of gate.rows.filter((row) => !row.passes || row.knownBad)) {
    const why = [
      ...r.reasons,
      ...(r.goldError ? [`gold: ${r.goldError.split('\n')[0]}`] : []),
      ...(r.unsatisfiable ? [`never reported: ${r.unsatisfiable.slice(0, 3).join(', ')}${r.unsatisfiable.length > 3 ? ', …' : ''}`] : []),
      ...(r.knownBad ? [`known bad (${r.knownBad})`] : []),
    ];
    lines.push(`  ${r.instanceId}: ${r.passes ? 'passes' : 'fails'}; ${why.join('; ')}`);
  }
  return lines;
}
