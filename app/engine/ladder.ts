/**
 * `locfix ladder`: one configuration run as it is and with the oracle down to each level (results/ladder.ts),
 * over the same instances, for each seed. The rungs are ordinary runs under `<runs>/<id>/rungs/<rung>-s<seed>/`,
 * sharing the cache directory (indexes, embeddings, model answers: a question one rung already asked is not
 * asked again) and the model or recording; each resumes like any run. The run's spend caps (`budget.runTokens`,
 * `budget.runDollars`) are the whole ladder's: each rung gets what the others left. Once the first as-run run
 * is there, the cost of the rest is estimated from its per-stage spend and said before any oracle rung starts.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import type { RunConfig, OracleLevel } from '../../src/config.ts';
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { readSpendLedger } from '../../src/run/spend-ledger.ts';
import type { ExperimentResult } from '../../src/run/run-result.ts';
import { acquireRunLock } from '../../src/run/run-lock.ts';
import { analyzeLadder, RUNGS, type LadderResult, type LadderRun, type Rung } from '../../results/ladder.ts';
import { writeLadderCauses, writeLadderFiles } from '../../results/ladder-report.ts';
import type { FailureCategory } from '../../results/failure-analysis.ts';
import { writeRunAnalysis } from '../../results/run-analysis.ts';
import { writeReports } from '../../results/report-files.ts';
import { runExperiment } from './experiment.ts';

const ORACLE_OF: Record<Rung, OracleLevel | undefined> = { 'as-run': undefined, 'oracle-file': 'file', 'oracle-function': 'function', 'oracle-line': 'line' };
/** The stages each rung no longer runs with a model: what the estimate takes off the as-run spend. */
const SKIPPED_STAGES: Record<Rung, readonly string[]> = {
  'as-run': [],
  'oracle-file': ['localize-files'],
  'oracle-function': ['localize-files', 'localize-functions'],
  'oracle-line': ['localize-files', 'localize-functions', 'localize-lines'],
};

export interface LadderRungRun {
  rung: Rung;
  seed: number;
  config: RunConfig;
}

export interface LadderOptions {
  /** repeats of every rung, seeds config.seed … config.seed + seeds − 1 */
  seeds: number;
  retryErrors?: RetryErrors;
  log?: (line: string) => void;
}

export interface LadderOutcome {
  dir: string;
  /** the ladder's analysis, when every rung finished */
  result?: LadderResult;
  /** the rung run that stopped the ladder, and how */
  stoppedAt?: { rung: Rung; seed: number; how: string; experiment: ExperimentResult };
  estimate?: SpendEstimate;
  /** rung runs that finished owing work (not reached or not evaluated by a failure): their instances are not judged
   * there, and the ladder's numbers are not final until each is finished (`finish`) */
  unfinished: Array<{ run: string; finish: string }>;
}

export interface SpendEstimate {
  tokens: number;
  dollars: number;
  /** how it was made */
  from: string;
}

/** The runs of a ladder, the first as-run run first (the estimate is made from it), then seed by seed. */
export function ladderRuns(config: RunConfig, seeds: number): LadderRungRun[] {
  if (config.oracleFrom) throw new Error(`ladder: the ladder sets the oracle of each rung itself; leave out --oracle-from (got ${config.oracleFrom})`);
  if (!config.llm)
    throw new Error(
      'ladder: every rung reruns function and line localization and repair with a model: give --llm (a model server, or replay:DIR for recorded answers). Published runs without one have only their per-stage categories (locfix analyze)',
    );
  if (!Number.isInteger(seeds) || seeds < 1) throw new Error(`ladder: --seeds must be a positive integer, got ${seeds}`);
  const runsDir = path.join(path.resolve(config.runsDir, config.runId), 'rungs');
  const out: LadderRungRun[] = [];
  for (let s = 0; s < seeds; s++) {
    const seed = config.seed + s;
    for (const rung of RUNGS) {
      const oracleFrom = ORACLE_OF[rung];
      const rungConfig: RunConfig = { ...structuredClone(config), runsDir, runId: `${rung}-s${seed}`, seed, ...(oracleFrom ? { oracleFrom } : {}) };
      out.push({ rung, seed, config: rungConfig });
    }
  }
  return out;
}

interface StageCostRow {
  stage: string;
  promptTokens: number;
  completionTokens: number;
  cost: number;
}

async function readAnalysis(
  runDir: string,
): Promise<{ instances: Array<{ instanceId: string; repo: string; category: FailureCategory }>; costs?: StageCostRow[] } | undefined> {
  try {
    return JSON.parse(await readFile(path.join(runDir, 'analysis.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** What the ladder's remaining runs would spend, from the first as-run run's per-stage spend. */
export function estimateRest(costs: readonly StageCostRow[], runs: readonly LadderRungRun[]): SpendEstimate {
  let tokens = 0;
  let dollars = 0;
  for (const run of runs) {
    for (const c of costs) {
      if (SKIPPED_STAGES[run.rung].includes(c.stage)) continue;
      tokens += c.promptTokens + c.completionTokens;
      dollars += c.cost;
    }
  }
  return {
    tokens,
    dollars,
    from: `the first as-run run's per-stage usage, times ${runs.length} runs less the stages their oracle replaces; answers the cache already holds cost nothing`,
  };
}

async function spentBy(runDir: string): Promise<{ tokens: number; dollars: number }> {
  const ledger = await readSpendLedger(new RunLayout(runDir)).catch(() => undefined);
  return ledger ? { tokens: ledger.run.promptTokens + ledger.run.completionTokens, dollars: ledger.run.cost } : { tokens: 0, dollars: 0 };
}

const runDirOf = (run: LadderRungRun) => path.resolve(run.config.runsDir, run.config.runId);

/** This rung's share of the ladder's caps: what the other runs have not spent. */
async function capsFor(run: LadderRungRun, all: readonly LadderRungRun[], caps: RunConfig['budget']): Promise<RunConfig['budget'] | 'spent'> {
  if (caps.runTokens === undefined && caps.runDollars === undefined) return caps;
  let tokens = 0;
  let dollars = 0;
  for (const other of all) {
    if (other === run) continue;
    const spent = await spentBy(runDirOf(other));
    tokens += spent.tokens;
    dollars += spent.dollars;
  }
  const leftTokens = caps.runTokens === undefined ? undefined : caps.runTokens - tokens;
  const leftDollars = caps.runDollars === undefined ? undefined : caps.runDollars - dollars;
  if ((leftTokens !== undefined && leftTokens < 1) || (leftDollars !== undefined && leftDollars <= 0)) return 'spent';
  return {
    ...caps,
    ...(leftTokens !== undefined ? { runTokens: Math.floor(leftTokens) } : {}),
    ...(leftDollars !== undefined ? { runDollars: leftDollars } : {}),
  };
}

function describeEstimate(e: SpendEstimate, caps: RunConfig['budget']): string {
  const cap = [caps.runTokens !== undefined ? `${caps.runTokens} tokens` : '', caps.runDollars !== undefined ? `$${caps.runDollars}` : '']
    .filter(Boolean)
    .join(', ');
  return `ladder: the remaining runs are estimated at ${e.tokens} tokens, $${e.dollars.toFixed(4)} (${e.from})${cap ? `; the ladder's cap: ${cap}` : ''}`;
}

function stopped(result: ExperimentResult): string | undefined {
  if (result.budgetExhausted) return 'the spend cap stopped it';
  if (result.diskFull) return 'the disk is full';
  if (result.lockLost) return 'another process took its folder';
  if (result.incomplete) return 'its cluster shards did not all finish';
  if (result.interrupted) return 'it was interrupted';
  return undefined;
}

export async function runLadder(config: RunConfig, options: LadderOptions): Promise<LadderOutcome> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const runs = ladderRuns(config, options.seeds);
  const dir = path.resolve(config.runsDir, config.runId);
  const lock = acquireRunLock(dir);
  try {
    let estimate: SpendEstimate | undefined;
    const unfinished: LadderOutcome['unfinished'] = [];
    for (const [index, run] of runs.entries()) {
      const caps = await capsFor(run, runs, config.budget);
      if (caps === 'spent') {
        log(`ladder: the ladder's spend cap is used up before ${run.config.runId}; rerun with a higher cap to go on`);
        return {
          dir,
          unfinished,
          stoppedAt: {
            rung: run.rung,
            seed: run.seed,
            how: 'the spend cap',
            experiment: { runDir: runDirOf(run), interrupted: true, budgetExhausted: true, failed: 0, total: 0 },
          },
        };
      }
      if (index === 1 && !estimate) {
        const first = await readAnalysis(runDirOf(runs[0]!));
        if (first?.costs) log(describeEstimate((estimate = estimateRest(first.costs, runs.slice(1))), config.budget));
      }
      log(`ladder: ${run.config.runId} (${index + 1} of ${runs.length})`);
      const experiment = await runExperiment({ ...run.config, budget: caps }, { retryErrors: options.retryErrors, log });
      const how = stopped(experiment);
      if (how) return { dir, unfinished, stoppedAt: { rung: run.rung, seed: run.seed, how, experiment }, ...(estimate ? { estimate } : {}) };
      if (experiment.unfinished) unfinished.push({ run: run.config.runId, finish: experiment.unfinished.finish });
    }
    const result = await finishLadder(dir, runs);
    return { dir, result, unfinished, ...(estimate ? { estimate } : {}) };
  } finally {
    lock.release();
  }
}

/** Reads every rung's analysis, writes the ladder's files and the causes beside the first as-run run's analysis. */
export async function finishLadder(dir: string, runs: readonly LadderRungRun[]): Promise<LadderResult> {
  const ladderRuns: LadderRun[] = [];
  let instances: Array<{ instanceId: string; repo: string }> | undefined;
  for (const run of runs) {
    const analysis = await readAnalysis(runDirOf(run));
    if (!analysis) throw new Error(`ladder: ${runDirOf(run)} has no analysis.json; rerun the ladder to finish it`);
    instances ??= analysis.instances.map((i) => ({ instanceId: i.instanceId, repo: i.repo }));
    ladderRuns.push({ rung: run.rung, seed: run.seed, categories: new Map(analysis.instances.map((i) => [i.instanceId, i.category])) });
  }
  const result = analyzeLadder({ runs: ladderRuns, instances: instances ?? [] });
  await writeLadderFiles(dir, result, { runs: runs.map((r) => ({ rung: r.rung, seed: r.seed, run: path.relative(dir, runDirOf(r)) })) });
  // the first as-run run carries the causes, so its analysis, report and browser pages show them
  const asRun = runDirOf(runs[0]!);
  await writeLadderCauses(asRun, dir, result);
  const analysis = await writeRunAnalysis(asRun);
  await writeReports([analysis], path.join(asRun, 'report'));
  return result;
}
