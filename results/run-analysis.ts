/**
 * Reads a finished (or partly finished) `locfix run` directory and turns its artifacts into the analysis
 * inputs: per-instance failure evidence, the RunOutcome used by comparisons, and the RunReport rendered by
 * `locfix report`. Only reads files, so it can be rerun at any time, on any run, without models or Docker.
 */
import path from 'node:path';
import type { SweInstance } from '../src/dataset/schema.ts';
import type { RunLayout } from '../src/run/run-layout.ts';
import { RepoStore } from '../src/repo/store.ts';
import { defaultCacheDir } from '../src/dataset/load.ts';
import { writeJsonAtomic, writeJsonlAtomic } from '../src/util/fsx.ts';
import { INSTANCES_FILE, openRunFolder, type RunFolder } from './run-folder.ts';
import type { InstanceAnalysis } from './failure-analysis.ts';
export { loadInstanceArtifacts, type InstanceArtifacts } from './instance-artifacts.ts';
import type { RunOutcome } from './compare.ts';
import type { RunReport } from './report.ts';
import { type AnalyzeOptions, RunReading } from './run-reading.ts';

export type { AnalyzeOptions } from './run-reading.ts';

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

/** The analysis of a run folder, given by path or already opened (a caller that opened it need not read it twice). */
export async function analyzeRun(run: string | RunFolder, options: AnalyzeOptions = {}): Promise<RunAnalysis> {
  const folder = typeof run === 'string' ? await openRunFolder(run) : run;
  const manifest = folder.manifest;
  if (options.snapshot || (!manifest?.config && !options.mirrorsDir)) return analyzeWith(folder, options);
  // `locfix analyze|compare|report` on a finished run: read the base files from the repositories the run
  // used (or those --mirrors names), so gold functions are judged as they were when the run analysed itself
  const config = (manifest?.config ?? {}) as { cacheDir?: string; mirrorsDir?: string; mirrors?: Record<string, string> };
  const store = new RepoStore({
    cacheDir: path.resolve(config.cacheDir ?? defaultCacheDir()),
    mirrorsDir: options.mirrorsDir ?? config.mirrorsDir,
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
  const reading = new RunReading(folder, options);
  for (const instance of folder.instances) await reading.readInstance(instance);
  const report = await reading.report();
  return {
    runId: folder.layout.id,
    localizer: reading.outcome.localizer,
    upperBound: reading.upperBound,
    model: folder.arm.model ?? folder.manifest?.models.llm,
    instances: reading.analyses,
    report,
    outcome: reading.outcome,
    warnings: reading.warnings,
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
