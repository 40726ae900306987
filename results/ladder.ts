/**
 * The counterfactual ladder: one configuration run as it is and with perfect localization from the gold patch
 * down to each level (`oracleFrom` file, function, line), each over the same instances and seeds. What it
 * answers is causal where the per-stage analysis (failure-analysis.ts) is correlational: had localization been
 * right, would this pipeline have fixed the instance?
 *
 * Rungs, from the bottom: as-run, oracle-file, oracle-function, oracle-line; each adds one perfect level. An
 * instance unresolved as run is attributed to the lowest rung at which it resolves (the highest rung of the
 * ladder that still needs the oracle's help): `file` when perfect files suffice, `function` when files alone do
 * not but files and functions do, `line` likewise; `beyond-localization` when even perfect lines do not (repair,
 * selection or validation). A rung "resolves" an instance when at least half of its judged runs (seeds) did; an
 * attribution whose deciding rung had one resolving run, or that rests on one seed, is marked `onOneSample`.
 */
import { compareResolution, type ResolutionComparison } from './compare-resolution.ts';
import { FAILURE_CATEGORIES, NOT_JUDGED, type FailureCategory } from './failure-analysis.ts';
import { holmAdjust, type BootstrapOptions } from './statistics.ts';

export const RUNGS = ['as-run', 'oracle-file', 'oracle-function', 'oracle-line'] as const;
export type Rung = (typeof RUNGS)[number];
/** The level each oracle rung makes perfect beyond the rung below it. */
export const RUNG_LEVEL = { 'oracle-file': 'file', 'oracle-function': 'function', 'oracle-line': 'line' } as const;
export type LadderLevel = (typeof RUNG_LEVEL)[keyof typeof RUNG_LEVEL];

export type LadderCause = 'resolved' | LadderLevel | 'beyond-localization' | 'not-judged';
export const LADDER_CAUSES: readonly LadderCause[] = ['resolved', 'file', 'function', 'line', 'beyond-localization', 'not-judged'];

/** One run of a rung: its seed and each instance's category (its analysis.json). */
export interface LadderRun {
  rung: Rung;
  seed: number;
  categories: ReadonlyMap<string, FailureCategory>;
}

export interface RungFrequency {
  resolved: number;
  /** runs that judged the instance (not-reached / not-evaluated runs left out) */
  judged: number;
  runs: number;
}

export interface LadderInstance {
  instanceId: string;
  repo: string;
  frequencies: Record<Rung, RungFrequency>;
  /** today's per-stage category of the first as-run run */
  correlational?: FailureCategory;
  cause: LadderCause;
  /** the rung that decided the cause (the first one resolving it, or the last one tried) */
  decidedAt?: Rung;
  /** the deciding rung had one resolving run, or one judged run: a second sample could change it */
  onOneSample?: true;
  /** beyond localization: what the full oracle's run ended in; not judged: which rung and why */
  detail?: string;
}

export interface LevelLift {
  level: LadderLevel;
  /** the rung below and the rung that makes this level perfect */
  from: Rung;
  to: Rung;
  comparison: ResolutionComparison;
}

export interface LadderResult {
  seeds: number[];
  instances: LadderInstance[];
  /** the lift each level gives over the rung below it (Holm across the three) */
  lifts: LevelLift[];
  /** each oracle rung against the run as it is (Holm across the three) */
  cumulative: ResolutionComparison[];
  /** correlational category → ladder cause → instances, over the instances unresolved as run */
  agreement: Record<string, Partial<Record<LadderCause, number>>>;
}

const rungResolves = (f: RungFrequency) => f.judged > 0 && f.resolved * 2 >= f.judged;

function frequencyOf(runs: readonly LadderRun[], id: string): RungFrequency {
  let resolved = 0;
  let judged = 0;
  for (const run of runs) {
    const category = run.categories.get(id);
    if (category === undefined || NOT_JUDGED.has(category)) continue;
    judged++;
    if (category === 'resolved') resolved++;
  }
  return { resolved, judged, runs: runs.length };
}

/** The cause of one instance from its rungs' frequencies (see the module comment). */
export function attribute(
  frequencies: Record<Rung, RungFrequency>,
  fullOracleCategory?: FailureCategory,
): Pick<LadderInstance, 'cause' | 'decidedAt' | 'onOneSample' | 'detail'> {
  const thin = (f: RungFrequency) => (f.resolved === 1 || f.judged === 1 ? { onOneSample: true as const } : {});
  for (const rung of RUNGS) {
    const f = frequencies[rung];
    if (f.judged === 0) return { cause: 'not-judged', decidedAt: rung, detail: `no run of ${rung} judged it` };
    if (!rungResolves(f)) continue;
    const cause: LadderCause = rung === 'as-run' ? 'resolved' : RUNG_LEVEL[rung];
    return { cause, decidedAt: rung, ...thin(f) };
  }
  const last = frequencies['oracle-line'];
  return {
    cause: 'beyond-localization',
    decidedAt: 'oracle-line',
    ...(last.judged === 1 ? { onOneSample: true as const } : {}),
    ...(fullOracleCategory ? { detail: fullOracleDetail(fullOracleCategory) } : {}),
  };
}

/** What the run with perfect localization at every level ended in, as the part of the pipeline it points at. */
function fullOracleDetail(category: FailureCategory): string {
  if (category === 'empty-patch') return 'repair: no usable edit even at the gold lines';
  if (category === 'evaluation-error') return 'evaluation: the patch did not apply or the harness failed';
  if (category === 'budget-exhausted') return 'a spend cap stopped it';
  return 'repair or selection: the chosen patch at the gold lines does not resolve it';
}

export interface LadderInput {
  runs: readonly LadderRun[];
  /** the instances the ladder ran, each once */
  instances: ReadonlyArray<{ instanceId: string; repo: string }>;
  bootstrap?: BootstrapOptions;
}

export function analyzeLadder(input: LadderInput): LadderResult {
  const byRung = new Map(RUNGS.map((r) => [r, input.runs.filter((run) => run.rung === r).sort((a, b) => a.seed - b.seed)]));
  for (const rung of RUNGS) if (!byRung.get(rung)!.length) throw new Error(`the ladder has no run of ${rung}`);
  const instances = input.instances.map((i): LadderInstance => {
    const frequencies = Object.fromEntries(RUNGS.map((r) => [r, frequencyOf(byRung.get(r)!, i.instanceId)])) as Record<Rung, RungFrequency>;
    const correlational = byRung.get('as-run')![0]!.categories.get(i.instanceId);
    const fullOracle = byRung.get('oracle-line')![0]!.categories.get(i.instanceId);
    return { instanceId: i.instanceId, repo: i.repo, frequencies, ...(correlational ? { correlational } : {}), ...attribute(frequencies, fullOracle) };
  });
  const ids = instances.map((i) => i.instanceId);
  const repoOf = new Map(instances.map((i) => [i.instanceId, i.repo]));
  const resolution = (reference: Rung, alternatives: Rung[]) =>
    compareResolution({
      reference,
      alternatives,
      idsOf: () => ids,
      // work not done counts as unresolved, as compare counts it: the denominator is every instance of the ladder
      solveFrequency: (arm, list) => list.map((id) => frequencyOf(byRung.get(arm as Rung)!, id)).map((f) => f.resolved / f.runs),
      firstRunResolved: (arm, list) => list.map((id) => byRung.get(arm as Rung)![0]!.categories.get(id) === 'resolved'),
      repoOf: (id) => repoOf.get(id) ?? id,
      ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
    });
  const cumulative = resolution('as-run', ['oracle-file', 'oracle-function', 'oracle-line']);
  const lifts = (['oracle-file', 'oracle-function', 'oracle-line'] as const).map((to, i): LevelLift => {
    const from = RUNGS[i]!;
    return { level: RUNG_LEVEL[to], from, to, comparison: resolution(from, [to])[0]! };
  });
  holmAdjust(lifts.map((l) => l.comparison.mcnemar.pValue)).forEach((p, i) => (lifts[i]!.comparison.mcnemar.holmPValue = p));
  return { seeds: [...new Set(input.runs.map((r) => r.seed))].sort((a, b) => a - b), instances, lifts, cumulative, agreement: agreementTable(instances) };
}

/** Correlational category → ladder cause, over the instances the run as it is did not resolve. */
export function agreementTable(instances: readonly LadderInstance[]): LadderResult['agreement'] {
  const table: LadderResult['agreement'] = {};
  for (const i of instances) {
    if (i.cause === 'resolved' || !i.correlational || i.correlational === 'resolved') continue;
    const row = (table[i.correlational] ??= {});
    row[i.cause] = (row[i.cause] ?? 0) + 1;
  }
  // rows in the analysis' category order, whatever order the instances came in
  return Object.fromEntries(FAILURE_CATEGORIES.filter((c) => table[c]).map((c) => [c, table[c]!]));
}

/** How often a correlational level category was caused by that level, e.g. "file" failures caused by files. */
export function agreementRate(table: LadderResult['agreement'], level: LadderLevel): { agree: number; of: number } {
  const row = table[level] ?? {};
  const of = Object.values(row).reduce((a, b) => a + (b ?? 0), 0);
  return { agree: row[level] ?? 0, of };
}
