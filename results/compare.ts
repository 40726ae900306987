/**
 * Comparing runs and arms (the statistics of the BLAgent paper's RQ2 and of the explorer study).
 *
 * Input is one `RunOutcome` per run (results/run-analysis.ts). Runs are grouped into **arms**: runs whose
 * recorded configuration differs by seed alone are repeats of one arm; any other difference (another
 * localizer, or the same localizer with other options: an ablation) is another arm, named by its localizer
 * when no other arm has that localizer, else by its first run's id, or as the user names it (`--arm`).
 * Instances are aligned on those every run selected, and every statistic is over all of them (issue 52's one
 * denominator, the headline's): an instance a run did not localize or judge (a server that failed, a recording's
 * gap) counts as a miss and as unresolved until it is rerun, so a broken run cannot erase instances from the other
 * runs' comparison nor shrink its own. Work not done is its own outcome per run, and arms that did not finish the
 * same instances are warned about before any statistic (compare-coverage.ts).
 *
 * Statistics:
 * - resolved counts, union/intersection of resolved sets per localizer and across localizers;
 * - instances fixed only by one localizer, and whether the other localizer had a gold file in its top 3 in
 *   any of its runs (the paper's Table 10);
 * - paired Wilcoxon signed-rank on per-instance solve frequencies (resolved runs / runs) between localizers;
 * - localization metrics per localizer (mean over its runs) with paired percentile bootstrap CIs of the
 *   difference against the reference localizer (the first one named), repository-clustered bootstrap CIs,
 *   and exact McNemar tests on binary metrics (each localizer's first run) with Holm correction across all
 *   binary comparisons.
 */
import { compareResolution, type ResolutionComparison } from './compare-resolution.ts';
import { compareMetrics, type MetricComparison } from './compare-metrics.ts';
import { compareOperational, type OperationalComparison } from './compare-operational.ts';
import { wilcoxonSignedRank, type WilcoxonResult } from './statistics.ts';
import { costWarnings, coverageWarnings, pooledArmWarnings } from './compare-coverage.ts';
import { INSTANCE_METRIC_NAMES, instanceMetrics, type InstanceMetrics } from './instance-metrics.ts';

export interface RunOutcome {
  runId: string;
  localizer: string;
  /** the run's arm key (results/run-folder.ts); runs with equal keys are repeats of one arm */
  armKey?: string;
  /** the settings behind that key, to name what differs when runs of different keys are pooled by --arm */
  armSettings?: Record<string, unknown>;
  /** the arm's name, set by compareRuns */
  arm?: string;
  /** instances with an outcome (evaluated, or stopped for a reason of their own); undefined: all */
  judged?: string[];
  /** instances that reached file localization; undefined: all */
  localized?: string[];
  /** oracle-style localizers that read the answer: reported, but labelled as an upper bound */
  upperBound?: boolean;
  instances: string[];
  repoOf: Record<string, string>;
  goldFiles: Record<string, string[]>;
  /** file ranking handed downstream, per instance (undefined: localization failed) */
  rankings: Record<string, string[] | undefined>;
  /** the localizer's own final file set per instance, when it emits one (the explorer) */
  predicted?: Record<string, string[] | undefined>;
  /** localization cost per instance: agent wall clock, and tokens when usage was recorded */
  operations?: Record<string, { agentSeconds?: number; inputTokens?: number; outputTokens?: number }>;
  resolved: string[];
  emptyPatch: string[];
}

export interface RunSummary {
  runId: string;
  arm: string;
  localizer: string;
  upperBound: boolean;
  /** the resolution denominator: every aligned instance (0 when some run judged none of them: no statistic) */
  judged: number;
  resolved: number;
  /** resolved / every aligned instance (not judged counts as unresolved) */
  resolvedRate: number;
  /** aligned instances this run did not judge (not reached, not evaluated): its own outcome */
  notJudged: number;
  emptyPatches: number;
  /** the localization denominator: every aligned instance */
  localized: number;
  localization: InstanceMetrics;
}

export interface ArmSummary {
  arm: string;
  localizer: string;
  upperBound: boolean;
  runs: string[];
  meanResolved: number;
  /** resolved in at least one run */
  resolvedUnion: string[];
  /** resolved in every run */
  resolvedInAllRuns: string[];
  meanEmptyPatches: number;
  /** mean over its runs of the aligned instances a run did not judge (not reached, not evaluated): its own outcome */
  meanNotJudged: number;
  localization: InstanceMetrics;
}

export interface UniqueFix {
  instanceId: string;
  /** the arm that fixed it (in some run) */
  fixedBy: string;
  other: string;
  /** the other arm had a gold file among its top 3 in at least one run */
  otherHadGoldFileInTop3: boolean;
}

export type { MetricComparison } from './compare-metrics.ts';

export interface Comparison {
  /** instances every run selected */
  alignedInstances: number;
  /** of those, the ones every run localized (the localization statistics are over all aligned instances) */
  localizedInstances: number;
  /** of those, the ones every run judged */
  judgedInstances: number;
  /** the resolution statistics' n: every aligned instance, or 0 when some run judged none (no statistic over nothing) */
  resolutionInstances: number;
  runs: RunSummary[];
  arms: ArmSummary[];
  /** resolved in any run of any arm */
  resolvedUnion: string[];
  /** resolved by every arm (in at least one of its runs) */
  resolvedByAll: string[];
  uniqueFixes: UniqueFix[];
  wilcoxon: Array<{ reference: string; alternative: string; referenceMean: number; alternativeMean: number } & WilcoxonResult>;
  metrics: MetricComparison[];
  /** agent time and tokens, alternative minus reference (first runs), on pairwise-complete instances */
  operational: OperationalComparison[];
  /** resolved rate, alternative minus reference, with paired intervals and McNemar (compare-resolution.ts) */
  resolution: ResolutionComparison[];
  /** what makes a number above mean less than it seems (an --arm that pools different configurations) */
  warnings: string[];
}

export type { OperationalComparison } from './compare-operational.ts';

export interface CompareOptions {
  resamples?: number;
  seed?: number;
  /** arms named by the user: name → run ids; the other runs are grouped by their arm keys */
  arms?: Record<string, string[]>;
  /** how far two runs' shares of work not done may differ before the comparison says so first (default 0.05) */
  notJudgedGap?: number;
}

/** The bootstrap settings the caller set (unset ones keep the defaults). */
function bootstrapOf(options: CompareOptions): { resamples?: number; seed?: number } {
  return { ...(options.resamples !== undefined ? { resamples: options.resamples } : {}), ...(options.seed !== undefined ? { seed: options.seed } : {}) };
}

function meanOf(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
}

function meanMetrics(rows: readonly InstanceMetrics[]): InstanceMetrics {
  return Object.fromEntries(INSTANCE_METRIC_NAMES.map((m) => [m, meanOf(rows.map((r) => r[m]))])) as unknown as InstanceMetrics;
}

function sortedIds(ids: Iterable<string>): string[] {
  return [...ids].sort();
}

/**
 * The arm of each run: the user's names first; then runs with one arm key are one arm (a run without a key, whose
 * folder does not record its whole configuration, is an arm of its own). An arm is named by its localizer when no
 * other arm has that localizer, else by its first run's id.
 */
export function assignArms(outcomes: readonly RunOutcome[], named: Record<string, string[]> = {}): Map<string, string> {
  const armOf = new Map<string, string>();
  for (const [name, runIds] of Object.entries(named)) {
    for (const id of runIds) {
      if (!outcomes.some((o) => o.runId === id)) throw new Error(`--arm ${name}: no run "${id}" among ${outcomes.map((o) => o.runId).join(', ')}`);
      if (armOf.has(id)) throw new Error(`--arm: run "${id}" is named in two arms`);
      armOf.set(id, name);
    }
  }
  const groups = new Map<string, RunOutcome[]>();
  for (const o of outcomes) {
    if (armOf.has(o.runId)) continue;
    const key = o.armKey === undefined ? `run:${o.runId}` : `key:${o.armKey}`;
    groups.set(key, [...(groups.get(key) ?? []), o]);
  }
  const localizerCount = new Map<string, number>();
  for (const runs of groups.values()) localizerCount.set(runs[0].localizer, (localizerCount.get(runs[0].localizer) ?? 0) + 1);
  const taken = new Set(armOf.values());
  for (const runs of groups.values()) {
    const byLocalizer = localizerCount.get(runs[0].localizer) === 1 && !taken.has(runs[0].localizer);
    const name = byLocalizer ? runs[0].localizer : runs[0].runId;
    for (const o of runs) armOf.set(o.runId, name);
  }
  return armOf;
}

/** The instances every one of `runs` selected, in the first run's order. */
function selectedByAll(runs: readonly RunOutcome[]): string[] {
  return runs.slice(1).reduce((ids, r) => ids.filter((id) => r.instances.includes(id)), runs[0]?.instances ?? []);
}

function intersect(ids: readonly string[], lists: ReadonlyArray<readonly string[] | undefined>): string[] {
  const sets = lists.filter((l): l is readonly string[] => l !== undefined).map((l) => new Set(l));
  return ids.filter((id) => sets.every((set) => set.has(id)));
}

/** The runs with their arms, aligned on the instances every run selected; what the comparison's parts share. */
interface Aligned {
  outcomes: ReadonlyArray<RunOutcome & { arm: string }>;
  /** the instances every run selected, in the first run's order */
  common: string[];
  /** the instances whose resolution is compared (common, or none when a run judged nothing) */
  judgedIds: string[];
  armNames: string[];
  runsOf: (arm: string) => Array<RunOutcome & { arm: string }>;
  goldOf: (id: string) => string[];
  repoOf: (id: string) => string;
}

function align(input: readonly RunOutcome[], options: CompareOptions): Aligned {
  const armOf = assignArms(input, options.arms);
  const outcomes = input.map((o) => ({ ...o, arm: armOf.get(o.runId)! }));
  // the tables align on the instances every run selected, in the first run's order (the statistics, per pair)
  const common = selectedByAll(outcomes);
  // one denominator: every aligned instance, work not done a miss and unresolved; a run that judged nothing (its
  // evaluation left out) has no resolution to compare, and nothing is tested over nothing
  const judgedIds = outcomes.every((o) => !o.judged || common.some((id) => o.judged!.includes(id))) ? common : [];
  return {
    outcomes,
    common,
    judgedIds,
    armNames: [...new Set(outcomes.map((o) => o.arm))],
    runsOf: (name) => outcomes.filter((o) => o.arm === name),
    goldOf: (id) => outcomes.find((o) => o.goldFiles[id]?.length)?.goldFiles[id] ?? [],
    repoOf: (id) => outcomes.find((o) => o.repoOf[id])?.repoOf[id] ?? 'unknown',
  };
}

/** Each run's counts and mean localization over the aligned instances, and its per-instance metrics. */
function runSummaries(a: Aligned): { runs: RunSummary[]; perRunMetrics: Map<string, InstanceMetrics[]> } {
  const perRunMetrics = new Map<string, InstanceMetrics[]>();
  const judged = new Set(a.judgedIds);
  const runs = a.outcomes.map((o): RunSummary => {
    const rows = a.common.map((id) => instanceMetrics(o.rankings[id], a.goldOf(id), 3, o.predicted?.[id]));
    perRunMetrics.set(o.runId, rows);
    const resolved = o.resolved.filter((id) => judged.has(id)).length;
    const ownJudged = new Set(o.judged ?? a.common);
    return {
      runId: o.runId,
      arm: o.arm,
      localizer: o.localizer,
      upperBound: Boolean(o.upperBound),
      judged: a.judgedIds.length,
      resolved,
      resolvedRate: a.judgedIds.length ? resolved / a.judgedIds.length : Number.NaN,
      notJudged: a.common.filter((id) => !ownJudged.has(id)).length,
      emptyPatches: o.emptyPatch.filter((id) => judged.has(id)).length,
      localized: a.common.length,
      localization: meanMetrics(rows),
    };
  });
  return { runs, perRunMetrics };
}

/** Each arm over its runs: mean counts, the instances any or every run resolved, per-instance means of the metrics. */
function armSummaries(a: Aligned, runs: readonly RunSummary[], perRunMetrics: ReadonlyMap<string, InstanceMetrics[]>): ArmSummary[] {
  const { judgedIds } = a;
  return a.armNames.map((name) => {
    const rs = a.runsOf(name);
    const sets = rs.map((o) => new Set(o.resolved));
    // per localized instance, the arm's metric averaged over its runs
    const rows = a.common.map((_, i) => meanMetrics(rs.map((o) => perRunMetrics.get(o.runId)![i])));
    return {
      arm: name,
      localizer: [...new Set(rs.map((r) => r.localizer))].join(', '),
      upperBound: rs.some((r) => r.upperBound),
      runs: rs.map((r) => r.runId),
      meanResolved: meanOf(rs.map((r) => r.resolved.filter((id) => judgedIds.includes(id)).length)),
      resolvedUnion: sortedIds(judgedIds.filter((id) => sets.some((s) => s.has(id)))),
      resolvedInAllRuns: sortedIds(judgedIds.filter((id) => sets.every((s) => s.has(id)))),
      meanEmptyPatches: meanOf(rs.map((r) => r.emptyPatch.filter((id) => judgedIds.includes(id)).length)),
      meanNotJudged: meanOf(rs.map((r) => runs.find((x) => x.runId === r.runId)!.notJudged)),
      localization: meanMetrics(rows),
    };
  });
}

/** Instances one arm resolved in some run and another in none, with whether the other had a gold file in its top 3. */
function uniqueFixesOf(a: Aligned, unionOf: ReadonlyMap<string, Set<string>>): UniqueFix[] {
  const fixes: UniqueFix[] = [];
  const names = a.armNames;
  for (let i = 0; i < names.length; i++)
    for (let j = i + 1; j < names.length; j++)
      for (const [fixedBy, other] of [
        [names[i]!, names[j]!],
        [names[j]!, names[i]!],
      ] as const) {
        for (const id of unionOf.get(fixedBy)!) {
          if (unionOf.get(other)!.has(id)) continue;
          const gold = new Set(a.goldOf(id));
          const otherHadGoldFileInTop3 = a.runsOf(other).some((o) => (o.rankings[id] ?? []).slice(0, 3).some((p) => gold.has(p)));
          fixes.push({ instanceId: id, fixedBy, other, otherHadGoldFileInTop3 });
        }
      }
  return fixes;
}

/** The first arm against each other one: the signed-rank test, resolution, localization metrics and operations. */
function pairStatistics(a: Aligned, options: CompareOptions): Pick<Comparison, 'wilcoxon' | 'resolution' | 'metrics' | 'operational'> {
  const { outcomes, runsOf, goldOf, repoOf } = a;
  const solveFrequency = (name: string, ids: readonly string[]) => ids.map((id) => meanOf(runsOf(name).map((o) => (o.resolved.includes(id) ? 1 : 0))));
  const reference = a.armNames[0]!;
  const alternatives = a.armNames.slice(1);
  // each pair over the instances its own runs selected: a third run that selected fewer erases nothing here
  const pairIds = (alt: string) => selectedByAll(outcomes.filter((o) => o.arm === reference || o.arm === alt));
  // resolution needs every run of the pair to have judged something (a run whose evaluation was left out has none)
  const pairResolutionIds = (alt: string) => {
    const ids = pairIds(alt);
    return outcomes.filter((o) => o.arm === reference || o.arm === alt).every((o) => !o.judged || ids.some((id) => o.judged!.includes(id))) ? ids : [];
  };
  // no statistic over nothing (a p of 1 over nothing would read as "no difference")
  const wilcoxon = alternatives.flatMap((alt) => {
    const ids = pairResolutionIds(alt);
    if (ids.length === 0) return [];
    const [ref, other] = [solveFrequency(reference, ids), solveFrequency(alt, ids)];
    return [{ reference, alternative: alt, referenceMean: meanOf(ref), alternativeMean: meanOf(other), ...wilcoxonSignedRank(other, ref) }];
  });
  const resolution = compareResolution({
    reference,
    alternatives,
    idsOf: pairResolutionIds,
    solveFrequency,
    firstRunResolved: (name, ids) => {
      const first = new Set(runsOf(name)[0]!.resolved);
      return ids.map((id) => first.has(id));
    },
    repoOf,
    bootstrap: bootstrapOf(options),
  });
  const metricsOf = (o: RunOutcome, id: string) => instanceMetrics(o.rankings[id], goldOf(id), 3, o.predicted?.[id]);
  const metrics = compareMetrics({
    reference,
    alternatives,
    idsOf: pairIds,
    armRows: (name, ids) => ids.map((id) => meanMetrics(runsOf(name).map((o) => metricsOf(o, id)))),
    firstRunRows: (name, ids) => ids.map((id) => metricsOf(runsOf(name)[0]!, id)),
    repoOf,
    bootstrap: bootstrapOf(options),
  });
  const operational = compareOperational(reference, alternatives, (name) => runsOf(name)[0], a.common, bootstrapOf(options));
  return { wilcoxon, resolution, metrics, operational };
}

export function compareRuns(input: readonly RunOutcome[], options: CompareOptions = {}): Comparison {
  if (input.length === 0) throw new Error('compare: no runs given');
  const aligned = align(input, options);
  const { outcomes, common, judgedIds, armNames } = aligned;
  const { runs, perRunMetrics } = runSummaries(aligned);
  const arms = armSummaries(aligned, runs, perRunMetrics);
  const unionOf = new Map(arms.map((l) => [l.arm, new Set(l.resolvedUnion)]));
  const resolvedUnion = sortedIds(new Set(arms.flatMap((l) => l.resolvedUnion)));
  const pairs = pairStatistics(aligned, options);
  return {
    alignedInstances: common.length,
    localizedInstances: intersect(
      common,
      outcomes.map((o) => o.localized),
    ).length,
    judgedInstances: intersect(
      common,
      outcomes.map((o) => o.judged),
    ).length,
    resolutionInstances: judgedIds.length,
    runs,
    arms,
    resolvedUnion,
    resolvedByAll: resolvedUnion.filter((id) => arms.every((l) => unionOf.get(l.arm)!.has(id))),
    uniqueFixes: uniqueFixesOf(aligned, unionOf),
    // in this order: the JSON report keeps its field order
    wilcoxon: pairs.wilcoxon,
    metrics: pairs.metrics,
    operational: pairs.operational,
    resolution: pairs.resolution,
    // unequal work not done first: it changes what every statistic below means
    warnings: [
      ...coverageWarnings(outcomes, common, options.notJudgedGap),
      ...pooledArmWarnings(input, options.arms ?? {}),
      ...costWarnings(outcomes, common, armNames),
    ],
  };
}
