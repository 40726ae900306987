/**
 * Reads a finished (or partly finished) `locfix run` directory and turns its artifacts into the analysis
 * inputs: per-instance failure evidence, the RunOutcome used by comparisons, and the RunReport rendered by
 * `locfix report`. Only reads files, so it can be rerun at any time, on any run, without models or Docker.
 */
import { knownGoldFailure } from '../src/harness/known-gold-failures.ts';
import { causeOf } from '../src/run/failure-cause.ts';
import { calibrateAnswers, type LabelledAnswer } from './calibration.ts';
import { addToCascadeSummary, type CascadeSummary } from './cascade-summary.ts';
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RunLayout } from '../src/run/run-layout.ts';
import type { StageArtifact } from '../src/run/stage-runner.ts';
import { PIPELINE_STAGES, STAGE, type StageName } from '../src/run/stage.ts';
import { extractDefinitions } from '../src/parsing/definitions.ts';
import type { RepoSnapshot } from '../src/repo/types.ts';
import { RepoStore } from '../src/repo/store.ts';
import { defaultCacheDir } from '../src/dataset/load.ts';
import { modifiedExistingFiles } from '../src/patch.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../src/util/fsx.ts';
import { INSTANCES_FILE, openRunFolder, type RunFolder } from './run-folder.ts';
import { rankedPathsOf } from '../src/artifacts/localization.ts';
import { analyzeInstance, goldElements, NOT_JUDGED, type InstanceAnalysis, type InstanceEvidence } from './failure-analysis.ts';
import { summarizeFailures } from './failure-summary.ts';
import {
  budgetExhaustedAt,
  emptyReasonOf,
  evaluationCauseOf,
  infraFailureOf,
  loadInstanceArtifacts,
  notEvaluatedReason,
  notReachedReason,
  ok,
} from './instance-artifacts.ts';
export { loadInstanceArtifacts, type InstanceArtifacts } from './instance-artifacts.ts';
import type { RunOutcome } from './compare.ts';
import { INSTANCE_METRIC_NAMES, instanceMetrics, type InstanceMetrics } from './instance-metrics.ts';
import type { HandoffSummary, RunReport, StageCost } from './report.ts';
import { computeRunnerMetrics, runnerRow, type RunnerRow } from './runner-metrics.ts';
import { filesOfPatch, localizationCost, runSpend, spentAtCap } from './run-costs.ts';

export async function writeRunInstances(layout: RunLayout, instances: readonly SweInstance[]): Promise<void> {
  await writeJsonlAtomic(layout.file(INSTANCES_FILE), instances);
}

export interface RunAnalysis {
  runId: string;
  localizer: string;
  upperBound: boolean;
  model?: string;
  instances: InstanceAnalysis[];
  report: RunReport;
  outcome: RunOutcome;
  /** judgements that had to degrade (e.g. base files unreadable) */
  warnings: string[];
}

export interface AnalyzeOptions {
  /** files handed to repair (the run's topFiles) */
  topFiles?: number;
  /** reads base-commit files for gold function names; without it, gold elements are file-level only */
  snapshot?: (instance: SweInstance) => Promise<RepoSnapshot>;
}

/** The analysis of a run folder, given by path or already opened (a caller that opened it need not read it twice). */
export async function analyzeRun(run: string | RunFolder, options: AnalyzeOptions = {}): Promise<RunAnalysis> {
  const folder = typeof run === 'string' ? await openRunFolder(run) : run;
  const manifest = folder.manifest;
  if (options.snapshot || !manifest?.config) return analyzeWith(folder, options);
  // `locfix analyze|compare|report` on a finished run: read the base files from the repositories the run
  // used, so gold functions are judged as they were when the run analysed itself
  const config = manifest.config as { cacheDir?: string; mirrorsDir?: string; mirrors?: Record<string, string> };
  const store = new RepoStore({
    cacheDir: path.resolve(config.cacheDir ?? defaultCacheDir()),
    mirrorsDir: config.mirrorsDir,
    mirrors: config.mirrors,
    allowClone: false,
  });
  try {
    return await analyzeWith(folder, { ...options, snapshot: (i) => store.snapshot(i.repo, i.base_commit) });
  } finally {
    await store.close();
  }
}

async function analyzeWith(folder: RunFolder, options: AnalyzeOptions): Promise<RunAnalysis> {
  const { layout, manifest } = folder;
  const instances = folder.instances;
  const topFiles = options.topFiles ?? folder.topFiles;
  const analyses: InstanceAnalysis[] = [];
  const outcome: RunOutcome = {
    runId: layout.id,
    localizer: folder.arm.localizer,
    armKey: folder.arm.key,
    ...(folder.arm.settings ? { armSettings: folder.arm.settings } : {}),
    instances: instances.map((i) => i.id),
    repoOf: Object.fromEntries(instances.map((i) => [i.id, i.repo])),
    goldFiles: Object.fromEntries(instances.map((i) => [i.id, i.row?.patch ? modifiedExistingFiles(i.row.patch) : i.goldFiles])),
    judged: [],
    localized: [],
    rankings: {},
    predicted: {},
    operations: {},
    resolved: [],
    emptyPatch: [],
  };
  const costs = new Map<string, StageCost>();
  const addCost = (
    stage: string,
    artifact: StageArtifact<unknown> | undefined,
    usage?: { promptTokens: number; completionTokens: number; cost: number; calls?: number },
  ) => {
    if (!artifact) return;
    const c = costs.get(stage) ?? { stage, promptTokens: 0, completionTokens: 0, cost: 0, calls: 0, wallMs: 0 };
    c.wallMs += artifact.durationMs;
    if (usage) {
      spentHere.cost += usage.cost;
      spentHere.promptTokens += usage.promptTokens;
      spentHere.completionTokens += usage.completionTokens;
      c.promptTokens += usage.promptTokens;
      c.completionTokens += usage.completionTokens;
      c.cost += usage.cost;
      c.calls += usage.calls ?? 0;
    }
    costs.set(stage, c);
  };
  const metricRows: InstanceMetrics[] = [];
  const runnerRows: RunnerRow[] = [];
  const recorded = folder.handoff;
  const contract: HandoffSummary['contract'] = recorded === 'hard' || recorded === 'soft' ? recorded : 'top';
  const handoffFacts: HandoffSummary = { contract, beyond: 0, goldReachedBeyond: [], goldRankedButNotHanded: [] };
  const warnings: string[] = [];
  const cascade: CascadeSummary = { tiers: [] };
  const labelled: LabelledAnswer[] = [];
  let upperBound = false;

  // what the instance being read spent (addCost adds to it as it adds to the stage totals)
  let spentHere = { cost: 0, promptTokens: 0, completionTokens: 0 };
  for (const { id, row, repo } of instances) {
    spentHere = { cost: 0, promptTokens: 0, completionTokens: 0 };
    const a = await loadInstanceArtifacts(layout, id, folder.fileStage ?? STAGE.files);
    // a file localization stopped by the infrastructure or the configuration did not localize: in no denominator
    if (a.files && (a.files.status === 'ok' || causeOf(a.files.error).class === 'method')) outcome.localized!.push(id);
    const files = ok(a.files);
    upperBound ||= Boolean(files?.upperBound);
    // the ranking as an older `locfix retrieve` wrote it (`ranking`) reads too, like eval-loc reads it
    const ranking = rankedPathsOf(a.files);
    for (const w of files?.warnings ?? []) warnings.push(`${id}: file localization: ${w}`);
    outcome.rankings[id] = ranking;
    runnerRows.push(runnerRow(id, outcome.goldFiles[id] ?? [], a.files));
    if (files?.predicted) outcome.predicted![id] = files.predicted;
    const operation = localizationCost(a.files);
    if (operation) outcome.operations![id] = operation;
    // localization metrics over the instances that reached file localization (a failed one is a miss)
    if (a.files) metricRows.push(instanceMetrics(ranking, outcome.goldFiles[id], topFiles, files?.predicted));
    const functions = ok(a.functions);
    const repair = ok(a.repair);
    const selection = ok(a.select);
    const evaluation = ok(a.evaluate);
    // a stage stopped by its spend cap has no output; its error records what the instance had spent by then
    addCost(STAGE.files, a.files, files?.usage ?? spentAtCap(a.files));
    addCost(STAGE.functions, a.functions, functions?.usage ?? spentAtCap(a.functions));
    addCost(STAGE.lines, a.lines, ok(a.lines)?.usage ?? spentAtCap(a.lines));
    addCost(STAGE.repair, a.repair, repair ? { ...repair.usage, calls: repair.calls.length } : spentAtCap(a.repair));
    // validation's wall time is Docker time; its few LLM calls (regression-test exclusion) are not itemised
    addCost(STAGE.validate, a.validate, ok(a.validate)?.usage ?? spentAtCap(a.validate));
    addCost(STAGE.select, a.select);
    addCost(STAGE.evaluate, a.evaluate);

    let definitionsOf: (p: string) => ReturnType<typeof extractDefinitions> = () => [];
    let baseSource: InstanceEvidence['baseSource'];
    // the base files judge function level and docstring-aware line level: read them only where either is judged
    // (an imported or localization-only folder has neither; 300 "unreadable" warnings there would say nothing)
    const judgedBelowFiles = Boolean(functions) || Boolean(selection?.patch.trim());
    if (judgedBelowFiles && options.snapshot && row?.patch) {
      try {
        const snapshot = await options.snapshot(row);
        const sources = await snapshot.readFiles(modifiedExistingFiles(row.patch));
        const defs = new Map([...sources].map(([p, text]) => [p, extractDefinitions(p, text)]));
        definitionsOf = (p) => defs.get(p) ?? [];
        baseSource = (p) => sources.get(p);
      } catch (err) {
        // without the base files gold elements are module-level, so function level degrades to file level:
        // say so in the analysis instead of silently judging differently
        warnings.push(`${id}: base files unreadable (${(err as Error).message.split('\n')[0]}); function level judged at file level`);
      }
    } else if (judgedBelowFiles && row?.patch) {
      warnings.push(`${id}: no repository access; function level judged at file level`);
    }
    // what the later stages could see: the handed files (by the run's contract) and, soft, those followed beyond
    const modelPatch = selection?.patch ?? '';
    // a folder without file localization (an evaluation of predictions): the patch's own files are its localization
    const handed =
      (functions as { handed?: string[] } | undefined)?.handed ?? (folder.fileStage ? (ranking ?? []).slice(0, topFiles) : filesOfPatch(modelPatch));
    const beyond = (functions as { beyond?: string[] } | undefined)?.beyond ?? [];
    const reached = [...new Set([...handed, ...beyond])];
    const gold = new Set(outcome.goldFiles[id]);
    if (beyond.length) handoffFacts.beyond++;
    if (beyond.some((p) => gold.has(p)) && !handed.some((p) => gold.has(p))) handoffFacts.goldReachedBeyond.push(id);
    if ((ranking ?? []).some((p) => gold.has(p)) && !reached.some((p) => gold.has(p))) handoffFacts.goldRankedButNotHanded.push(id);
    const evaluationError =
      a.evaluate?.status === 'error'
        ? a.evaluate.error?.message.split('\n')[0]
        : evaluation && !evaluation.patchEmpty && !evaluation.completed
          ? (evaluation.error ?? 'evaluation did not complete')
          : undefined;
    const hasPatch = modelPatch.trim().length > 0;
    const notReached = hasPatch ? undefined : notReachedReason(folder, a);
    const evidence: InstanceEvidence = {
      instanceId: id,
      repo,
      goldPatch: row?.patch ?? '',
      goldFiles: outcome.goldFiles[id],
      handedFiles: reached,
      selectedElements: functions?.codeElements,
      functionLevelRecorded: folder.stages.includes(STAGE.functions),
      goldElements: row?.patch ? goldElements(row.patch, definitionsOf) : [],
      modelPatch,
      emptyReason: hasPatch ? undefined : emptyReasonOf(a),
      resolved: Boolean(evaluation?.resolved),
      evaluationError: hasPatch ? evaluationError : undefined,
      evaluationCause: hasPatch ? evaluationCauseOf(a) : undefined,
      infraFailure: hasPatch ? infraFailureOf(a.evaluate) : undefined,
      knownGoldFailure: knownGoldFailure(id) ? `${knownGoldFailure(id)!.dataset}: ${knownGoldFailure(id)!.reason}` : undefined,
      budgetExhausted: budgetExhaustedAt(a),
      notEvaluated: hasPatch ? notEvaluatedReason(folder, a) : undefined,
      notReached: hasPatch ? undefined : notReached?.reason,
      notReachedCause: hasPatch ? undefined : notReached?.cause,
      baseSource,
    };
    const analysis = analyzeInstance(evidence);
    analysis.spent = spentHere;
    if (evidence.goldElements.length) analysis.goldElements = evidence.goldElements;
    const tier = Array.isArray(files?.files) ? addToCascadeSummary(cascade, files, outcome.goldFiles[id] ?? [], topFiles) : undefined;
    if (tier) analysis.cascadeTier = tier;
    if (gold.size) labelled.push({ confidence: files?.confidence, hit: ranking?.[0] !== undefined && gold.has(ranking[0]) ? 1 : 0 });
    analyses.push(analysis);
    if (!NOT_JUDGED.has(analysis.category)) outcome.judged!.push(id);
    if (analysis.category === 'resolved') outcome.resolved.push(id);
    if (analysis.category === 'empty-patch') outcome.emptyPatch.push(id);
  }

  const failures = summarizeFailures(analyses);
  const localization = Object.fromEntries(
    INSTANCE_METRIC_NAMES.map((m) => [m, metricRows.length ? metricRows.reduce((s, r) => s + r[m], 0) / metricRows.length : 0]),
  ) as unknown as InstanceMetrics;
  outcome.upperBound = upperBound;
  const report: RunReport = {
    runId: layout.id,
    localizer: outcome.localizer,
    upperBound,
    // the arm's label: a replayed run says it is a replay of the recorded model
    model: folder.arm.model ?? manifest?.models.llm,
    instances: instances.length,
    resolved: outcome.resolved.length,
    failures,
    localization,
    localized: metricRows.length,
    costs: [...costs.values()].sort((x, y) => PIPELINE_STAGES.indexOf(x.stage as StageName) - PIPELINE_STAGES.indexOf(y.stage as StageName)),
    ...(await runSpend(layout, failures.categories['budget-exhausted'].count, warnings)),
    handoff: handoffFacts,
    ...(cascade.tiers.length ? { cascade } : {}),
    ...(labelled.some((l) => l.confidence && Object.keys(l.confidence).length) ? { calibration: calibrateAnswers(labelled) } : {}),
    runner: computeRunnerMetrics(runnerRows, topFiles),
    startedAt: manifest?.createdAt,
    finishedAt: manifest?.invocations.at(-1)?.finishedAt,
  };
  return {
    runId: layout.id,
    localizer: outcome.localizer,
    upperBound,
    model: folder.arm.model ?? manifest?.models.llm,
    instances: analyses,
    report,
    outcome,
    warnings,
  };
}

/** Writes runs/<id>/analysis.json (per-instance categories + summary) and returns the analysis. */
export async function writeRunAnalysis(runDir: string, options: AnalyzeOptions = {}): Promise<RunAnalysis> {
  const analysis = await analyzeRun(runDir, options);
  await writeJsonAtomic(path.join(runDir, 'analysis.json'), {
    runId: analysis.runId,
    localizer: analysis.localizer,
    upperBound: analysis.upperBound,
    summary: analysis.report.failures,
    localization: analysis.report.localization,
    costs: analysis.report.costs,
    ...(analysis.report.cascade ? { cascade: analysis.report.cascade } : {}),
    ...(analysis.report.calibration ? { calibration: analysis.report.calibration } : {}),
    warnings: analysis.warnings,
    instances: analysis.instances,
  });
  return analysis;
}
