/**
 * What `analyzeRun` gathers while it reads a run folder instance by instance: the per-instance analyses, the
 * RunOutcome comparisons use, stage costs, localization metrics, the hand-off and cascade facts, and the
 * warnings of judgements that had to degrade. One instance is read by `readInstance`; `report` turns the
 * tally into the RunReport.
 */
import { readGate, type GateResult } from '../validation/gate.ts';
import { ladderSummary, readLadderCauses, type RunLadderSummary } from './ladder-report.ts';
import { rankedPathsOf } from '../src/artifacts/localization.ts';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { knownGoldFailure } from '../src/harness/known-gold-failures.ts';
import { modifiedExistingFiles } from '../src/patch.ts';
import { extractDefinitions } from '../src/parsing/definitions.ts';
import { causeOf } from '../src/run/failure-cause.ts';
import type { StageArtifact } from '../src/run/stage-runner.ts';
import { PIPELINE_STAGES, STAGE, type StageName } from '../src/run/stage.ts';
import { calibrateAnswers, type LabelledAnswer } from './calibration.ts';
import { addToCascadeSummary, type CascadeSummary } from './cascade-summary.ts';
import type { RunOutcome } from './compare.ts';
import { analyzeInstance, goldElements, NOT_JUDGED, type InstanceAnalysis, type InstanceEvidence } from './failure-analysis.ts';
import { type FailureSummary, summarizeFailures } from './failure-summary.ts';
import {
  budgetExhaustedAt,
  emptyReasonOf,
  evaluationCauseOf,
  infraFailureOf,
  type InstanceArtifacts,
  loadInstanceArtifacts,
  notEvaluatedReason,
  evaluationLeftOut,
  LEFT_OUT,
  notReachedReason,
  ok,
} from './instance-artifacts.ts';
import { INSTANCE_METRIC_NAMES, instanceMetrics, type InstanceMetrics } from './instance-metrics.ts';
import type { HandoffSummary, RunReport, StageCost } from './report.ts';
import { filesOfPatch, localizationCost, runSpend, spentAtCap } from './run-costs.ts';
import type { RunFolder, RunInstance } from './run-folder.ts';
import { computeRunnerMetrics, runnerRow, type RunnerRow } from './runner-metrics.ts';

export interface AnalyzeOptions {
  /** files handed to repair (the run's topFiles) */
  topFiles?: number;
  /** reads base-commit files for gold function names; without it, gold elements are file-level only */
  snapshot?: (instance: SweInstance) => Promise<RepoSnapshot>;
  /** where to read repositories when the folder's own record does not say, or says wrong (analyze --mirrors) */
  mirrorsDir?: string;
}

type Usage = { promptTokens: number; completionTokens: number; cost: number; calls?: number };
type Spent = { cost: number; promptTokens: number; completionTokens: number };

export class RunReading {
  readonly analyses: InstanceAnalysis[] = [];
  readonly outcome: RunOutcome;
  readonly warnings: string[] = [];
  private readonly costs = new Map<string, StageCost>();
  private readonly metricRows: InstanceMetrics[] = [];
  private readonly runnerRows: RunnerRow[] = [];
  private readonly handoff: HandoffSummary;
  private readonly cascade: CascadeSummary = { tiers: [] };
  private readonly labelled: LabelledAnswer[] = [];
  upperBound = false;
  private readonly topFiles: number;

  constructor(
    private readonly folder: RunFolder,
    private readonly options: AnalyzeOptions,
  ) {
    this.topFiles = options.topFiles ?? folder.topFiles;
    const instances = folder.instances;
    this.outcome = {
      runId: folder.layout.id,
      localizer: folder.arm.localizer,
      armKey: folder.arm.key,
      ...(folder.arm.settings ? { armSettings: folder.arm.settings } : {}),
      instances: instances.map((i) => i.id),
      repoOf: Object.fromEntries(instances.map((i) => [i.id, i.repo])),
      goldFiles: Object.fromEntries(instances.map((i) => [i.id, i.row?.patch ? modifiedExistingFiles(i.row.patch) : i.goldFiles])),
      ...{ judged: [], localized: [], rankings: {}, predicted: {}, operations: {}, resolved: [], emptyPatch: [] },
    };
    const recorded = folder.handoff;
    const contract: HandoffSummary['contract'] = recorded === 'hard' || recorded === 'soft' ? recorded : 'top';
    this.handoff = { contract, beyond: 0, goldReachedBeyond: [], goldRankedButNotHanded: [] };
  }

  /** Reads one instance's artifacts into the tally. */
  async readInstance({ id, row, repo }: RunInstance): Promise<void> {
    const a = await loadInstanceArtifacts(this.folder.layout, id, this.folder.fileStage ?? STAGE.files);
    const gold = this.outcome.goldFiles[id] ?? [];
    const ranking = this.readFileLocalization(id, a, gold);
    const spent = this.addCosts(a);
    const functions = ok(a.functions);
    const selection = ok(a.select);
    const modelPatch = selection?.patch ?? '';
    // the base files judge function level and docstring-aware line level: read them only where either is judged
    // (an imported or localization-only folder has neither; 300 "unreadable" warnings there would say nothing)
    const base = functions || modelPatch.trim() ? await this.baseFiles(id, row) : {};
    const reached = this.readHandoff(id, a, ranking, new Set(gold), modelPatch);
    const evidence = evidenceOf(this.folder, a, { id, repo, row, gold, reached, modelPatch, ...base });
    const analysis = analyzeInstance(evidence);
    analysis.spent = spent;
    if (evidence.goldElements.length) analysis.goldElements = evidence.goldElements;
    const files = ok(a.files);
    const tier = Array.isArray(files?.files) ? addToCascadeSummary(this.cascade, files, gold, this.topFiles) : undefined;
    if (tier) analysis.cascadeTier = tier;
    if (gold.length) this.labelled.push({ confidence: files?.confidence, hit: ranking?.[0] !== undefined && gold.includes(ranking[0]) ? 1 : 0 });
    this.analyses.push(analysis);
    if (!NOT_JUDGED.has(analysis.category)) this.outcome.judged!.push(id);
    if (analysis.category === 'resolved') this.outcome.resolved.push(id);
    if (analysis.category === 'empty-patch') this.outcome.emptyPatch.push(id);
  }

  /** The file stage's ranking, metrics and warnings; returns the ranking. */
  private readFileLocalization(id: string, a: InstanceArtifacts, gold: string[]): string[] | undefined {
    // a file localization stopped by the infrastructure or the configuration did not localize: in no denominator
    if (a.files && (a.files.status === 'ok' || causeOf(a.files.error).class === 'method')) this.outcome.localized!.push(id);
    const files = ok(a.files);
    this.upperBound ||= Boolean(files?.upperBound);
    // the ranking as an older `locfix retrieve` wrote it (`ranking`) reads too, like eval-loc reads it
    const ranking = rankedPathsOf(a.files);
    for (const w of files?.warnings ?? []) this.warnings.push(`${id}: file localization: ${w}`);
    this.outcome.rankings[id] = ranking;
    this.runnerRows.push(runnerRow(id, gold, a.files));
    if (files?.predicted) this.outcome.predicted![id] = files.predicted;
    const operation = localizationCost(a.files);
    if (operation) this.outcome.operations![id] = operation;
    // localization metrics over every selected instance with a gold file, as eval-loc's and the resolved rate's:
    // a failed one, or one never reached, is a miss (issue 52)
    if (this.folder.fileStage && gold.length) this.metricRows.push(instanceMetrics(ranking, gold, this.topFiles, files?.predicted));
    return ranking;
  }

  /** Each stage's cost of this instance added to the stage totals; returns what the instance spent. */
  private addCosts(a: InstanceArtifacts): Spent {
    const spent: Spent = { cost: 0, promptTokens: 0, completionTokens: 0 };
    const add = (stage: string, artifact: StageArtifact<unknown> | undefined, usage?: Usage) => {
      if (!artifact) return;
      const c = this.costs.get(stage) ?? { stage, promptTokens: 0, completionTokens: 0, cost: 0, calls: 0, wallMs: 0 };
      c.wallMs += artifact.durationMs;
      if (usage) {
        spent.cost += usage.cost;
        spent.promptTokens += usage.promptTokens;
        spent.completionTokens += usage.completionTokens;
        c.promptTokens += usage.promptTokens;
        c.completionTokens += usage.completionTokens;
        c.cost += usage.cost;
        c.calls += usage.calls ?? 0;
      }
      this.costs.set(stage, c);
    };
    const repair = ok(a.repair);
    // a stage stopped by its spend cap has no output; its error records what the instance had spent by then
    add(STAGE.files, a.files, ok(a.files)?.usage ?? spentAtCap(a.files));
    add(STAGE.functions, a.functions, ok(a.functions)?.usage ?? spentAtCap(a.functions));
    add(STAGE.lines, a.lines, ok(a.lines)?.usage ?? spentAtCap(a.lines));
    add(STAGE.repair, a.repair, repair ? { ...repair.usage, calls: repair.calls.length } : spentAtCap(a.repair));
    // validation's wall time is Docker time; its few LLM calls (regression-test exclusion) are not itemised
    add(STAGE.validate, a.validate, ok(a.validate)?.usage ?? spentAtCap(a.validate));
    add(STAGE.select, a.select);
    add(STAGE.evaluate, a.evaluate);
    return spent;
  }

  /** The base commit's gold files and their definitions, or a warning saying why function level is judged at file level. */
  private async baseFiles(id: string, row: RunInstance['row']): Promise<Pick<InstanceFacts, 'definitionsOf' | 'baseSource'>> {
    if (!row?.patch) return {};
    if (!this.options.snapshot) {
      this.warnings.push(`${id}: no repository access; function level judged at file level`);
      return {};
    }
    try {
      const snapshot = await this.options.snapshot(row);
      const sources = await snapshot.readFiles(modifiedExistingFiles(row.patch));
      const defs = new Map([...sources].map(([p, text]) => [p, extractDefinitions(p, text)]));
      return { definitionsOf: (p) => defs.get(p) ?? [], baseSource: (p) => sources.get(p) };
    } catch (err) {
      // without the base files gold elements are module-level, so function level degrades to file level:
      // say so in the analysis instead of silently judging differently
      this.warnings.push(`${id}: base files unreadable (${(err as Error).message.split('\n')[0]}); function level judged at file level`);
      return {};
    }
  }

  /** What the later stages could see: the handed files (by the run's contract) and, soft, those followed beyond. */
  private readHandoff(id: string, a: InstanceArtifacts, ranking: string[] | undefined, gold: Set<string>, modelPatch: string): string[] {
    const functions = ok(a.functions) as { handed?: string[]; beyond?: string[] } | undefined;
    // a folder without file localization (an evaluation of predictions): the patch's own files are its localization
    const handed = functions?.handed ?? (this.folder.fileStage ? (ranking ?? []).slice(0, this.topFiles) : filesOfPatch(modelPatch));
    const beyond = functions?.beyond ?? [];
    const reached = [...new Set([...handed, ...beyond])];
    if (beyond.length) this.handoff.beyond++;
    if (beyond.some((p) => gold.has(p)) && !handed.some((p) => gold.has(p))) this.handoff.goldReachedBeyond.push(id);
    if ((ranking ?? []).some((p) => gold.has(p)) && !reached.some((p) => gold.has(p))) this.handoff.goldRankedButNotHanded.push(id);
    return reached;
  }

  /** The ladder's causes of this run's instances, when a ladder ran it as its as-run rung (results/ladder.ts). */
  private async readLadder(): Promise<RunLadderSummary | undefined> {
    const file = await readLadderCauses(this.folder.dir);
    if (!file) return undefined;
    for (const a of this.analyses) {
      const c = file.causes[a.instanceId];
      if (c)
        a.ladder = {
          cause: c.cause,
          ...(c.decidedAt ? { decidedAt: c.decidedAt } : {}),
          ...(c.onOneSample ? { onOneSample: true } : {}),
          ...(c.detail ? { detail: c.detail } : {}),
        };
    }
    return ladderSummary(
      file,
      this.analyses.map((a) => a.instanceId),
    );
  }

  /** The RunReport of what was read. */
  async report(): Promise<RunReport> {
    const { folder, metricRows } = this;
    const failures = summarizeFailures(this.analyses);
    const gate = await readGate(folder.dir);
    if (gate) failures.gate = gateOfRun(gate, this.analyses);
    const ladder = await this.readLadder();
    const localization = Object.fromEntries(
      // over nothing a metric is not a number (the report prints "–"), never 0
      INSTANCE_METRIC_NAMES.map((m) => [m, metricRows.length ? metricRows.reduce((s, r) => s + r[m], 0) / metricRows.length : Number.NaN]),
    ) as unknown as InstanceMetrics;
    this.outcome.upperBound = this.upperBound;
    const order = (stage: string) => PIPELINE_STAGES.indexOf(stage as StageName);
    return {
      runId: folder.layout.id,
      localizer: this.outcome.localizer,
      upperBound: this.upperBound,
      // the arm's label: a replayed run says it is a replay of the recorded model
      model: folder.arm.model ?? folder.manifest?.models.llm,
      instances: folder.instances.length,
      resolved: this.outcome.resolved.length,
      failures,
      localization,
      localized: metricRows.length,
      costs: [...this.costs.values()].sort((x, y) => order(x.stage) - order(y.stage)),
      ...(await runSpend(folder.layout, failures.categories['budget-exhausted'].count, this.warnings)),
      handoff: this.handoff,
      ...(this.cascade.tiers.length ? { cascade: this.cascade } : {}),
      ...(this.labelled.some((l) => l.confidence && Object.keys(l.confidence).length) ? { calibration: calibrateAnswers(this.labelled) } : {}),
      runner: computeRunnerMetrics(this.runnerRows, this.topFiles),
      ...(ladder ? { ladder } : {}),
      startedAt: folder.manifest?.createdAt,
      finishedAt: folder.manifest?.invocations.at(-1)?.finishedAt,
    };
  }
}

/** One instance as its analysis needs it, beside its artifacts. */
interface InstanceFacts {
  id: string;
  repo: string;
  row: RunInstance['row'];
  gold: string[];
  reached: string[];
  modelPatch: string;
  definitionsOf?: (path: string) => ReturnType<typeof extractDefinitions>;
  baseSource?: InstanceEvidence['baseSource'];
}

function evidenceOf(folder: RunFolder, a: InstanceArtifacts, facts: InstanceFacts): InstanceEvidence {
  const { id, row, modelPatch } = facts;
  const evaluation = ok(a.evaluate);
  const evaluationError =
    a.evaluate?.status === 'error'
      ? a.evaluate.error?.message.split('\n')[0]
      : evaluation && !evaluation.patchEmpty && !evaluation.completed
        ? (evaluation.error ?? 'evaluation did not complete')
        : undefined;
  const hasPatch = modelPatch.trim().length > 0;
  const notReached = hasPatch ? undefined : notReachedReason(folder, a);
  const known = knownGoldFailure(id);
  return {
    instanceId: id,
    repo: facts.repo,
    goldPatch: row?.patch ?? '',
    goldFiles: facts.gold,
    handedFiles: facts.reached,
    selectedElements: ok(a.functions)?.codeElements,
    functionLevelRecorded: folder.stages.includes(STAGE.functions),
    goldElements: row?.patch ? goldElements(row.patch, facts.definitionsOf ?? (() => [])) : [],
    modelPatch,
    emptyReason: hasPatch ? undefined : emptyReasonOf(a),
    resolved: Boolean(evaluation?.resolved),
    ...(evaluation?.flagged ? { flagged: true } : {}),
    evaluationError: hasPatch ? evaluationError : undefined,
    evaluationCause: hasPatch ? evaluationCauseOf(a) : undefined,
    infraFailure: hasPatch ? infraFailureOf(a.evaluate) : undefined,
    knownGoldFailure: known ? `${known.dataset}: ${known.reason}` : undefined,
    budgetExhausted: budgetExhaustedAt(a),
    notEvaluated: hasPatch ? notEvaluatedReason(folder, a) : undefined,
    notReached: hasPatch ? undefined : notReached?.reason,
    notReachedCause: hasPatch ? undefined : notReached?.cause,
    ...((hasPatch ? evaluationLeftOut(folder, a) : notReached?.cause === LEFT_OUT) ? { leftOut: true } : {}),
    baseSource: facts.baseSource,
  };
}

/** The gate's verdicts on this run's instances: those that pass, how many of them were resolved, why the others fail. */
function gateOfRun(gate: GateResult, analyses: readonly InstanceAnalysis[]): NonNullable<FailureSummary['gate']> {
  const inRun = new Map(analyses.map((a) => [a.instanceId, a]));
  const rows = gate.rows.filter((r) => inRun.has(r.instanceId));
  const passing = rows.filter((r) => r.passes).map((r) => r.instanceId);
  return {
    passing,
    resolved: passing.filter((id) => inRun.get(id)!.category === 'resolved').length,
    failing: Object.fromEntries(rows.filter((r) => !r.passes).map((r) => [r.instanceId, r.reasons.join(', ')])),
  };
}
