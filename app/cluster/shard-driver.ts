/**
 * Runs one experiment as shards on a batch scheduler and merges them into one run folder.
 *
 * Layout, for run <id> under the runs folder:
 *   <id>.cluster/config.json            the configuration every task runs (cluster off, run caps split)
 *   <id>.cluster/task.sh                the task script: `locfix run --shard i/n` on the task's node
 *   <id>.cluster/jobs.json              every submission: job id, shards, time
 *   <id>.cluster/logs/shard-i.job-J.log what each task printed
 *   <id>.cluster/shards/<id>.shard-i-of-n/  each shard's own run folder (lock, manifest, artifacts, result.json)
 *   <id>/                               the merged run: artifacts, predictions, analysis and report
 *
 * Each task resumes its shard's run folder, so a task that is requeued, repeated or submitted again does
 * no finished work twice. A task is done when its shard's `result.json` names that task and says the run
 * was not interrupted; a task that leaves the queue without that (a node that died, a time limit, a crash,
 * an OOM kill) is submitted again, up to `maxAttempts` submissions per shard in one invocation. Ctrl-C
 * cancels the submitted jobs; running the same command again resumes, skipping shards already done.
 */
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireRunLock, RUN_LOCK_FILE, RUN_LOCK_HOLDER_FILE } from '../../src/run/run-lock.ts';
import type { ShardRunResult } from '../../src/run/run-result.ts';
import { pathExists, readJsonIfExists, writeJsonAtomic } from '../../src/util/fsx.ts';
import type { ShardResources, ShardScheduler } from './types.ts';

export interface ShardDriverOptions {
  scheduler: ShardScheduler;
  runsDir: string;
  runId: string;
  shards: number;
  resources: ShardResources;
  maxAttempts: number;
  pollMs: number;
  /** the configuration each task runs, as JSON (written to config.json) */
  taskConfig: Record<string, unknown>;
  /** argv that starts locfix on a node: [node, bin/locfix.js] */
  locfixCommand: readonly string[];
  /** the working folder of each task (relative paths in the config resolve against it) */
  cwd: string;
  retryErrors?: RetryErrors;
  /** joins the finished shards into `out` with its analysis and report */
  merge: (out: string, shardDirs: readonly string[]) => Promise<void>;
  log?: (line: string) => void;
  /** resolves when the user asked to stop (Ctrl-C); the driver then cancels its jobs */
  stopSignal?: Promise<void>;
}

export interface ShardDriverResult {
  runDir: string;
  stateDir: string;
  /** shard number → final word */
  shards: Array<{ shard: number; status: 'done' | 'given-up' | 'budget' | 'cancelled'; attempts: number; detail?: string }>;
  jobs: string[];
  merged: boolean;
  interrupted: boolean;
}

/**
 * A shard's run id: named after its run, since run ids label the sandboxes, and a shard's start sweeps those
 * its run id left behind; two cluster runs whose tasks share a node must not sweep each other's.
 */
export const shardRunId = (runId: string, shard: number, of: number): string => `${runId}.shard-${shard}-of-${of}`;
const MARKER = 'cluster.json';

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** The task script: the scheduler's preamble sets $shard and $task; then locfix runs that shard. */
export function taskScript(options: {
  runId: string;
  shards: number;
  preamble: readonly string[];
  locfixCommand: readonly string[];
  cwd: string;
  configFile: string;
  shardsDir: string;
  retryErrors?: RetryErrors;
}): string {
  const argv = [
    ...options.locfixCommand.map(quote),
    'run',
    '--config',
    quote(options.configFile),
    '--shard',
    `"$shard/${options.shards}"`,
    '--run-id',
    `"${options.runId}.shard-$shard-of-${options.shards}"`,
    '--runs-dir',
    quote(options.shardsDir),
    ...(options.retryErrors === 'all' ? ['--retry-errors', 'all'] : options.retryErrors ? ['--retry-errors'] : []),
  ];
  return [
    '#!/usr/bin/env bash',
    `# written by locfix: one shard of run ${options.runId} (${options.shards} shards); the task index is the shard number`,
    ...options.preamble,
    'set -u',
    'export LOCFIX_TASK_ID="$task"',
    `cd ${quote(options.cwd)}`,
    'echo "locfix shard $shard/' + options.shards + ' (task $task) on $(hostname) at $(date -u +%FT%T.%3NZ)"',
    `exec ${argv.join(' ')}`,
    '',
  ].join('\n');
}

async function readResult(runDir: string): Promise<ShardRunResult | undefined> {
  return readJsonIfExists<ShardRunResult>(path.join(runDir, 'result.json')).catch(() => undefined);
}

async function logTail(file: string, lines = 5): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.trimEnd().split('\n').slice(-lines).join(' | ');
  } catch {
    return '';
  }
}

/** Empties a merged folder this driver made before (everything in it is derived from the shards). */
async function clearMerged(dir: string): Promise<void> {
  for (const name of await readdir(dir))
    if (name !== RUN_LOCK_FILE && name !== RUN_LOCK_HOLDER_FILE) await rm(path.join(dir, name), { recursive: true, force: true });
}

export async function runShards(options: ShardDriverOptions): Promise<ShardDriverResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const { scheduler, shards: n } = options;
  const runDir = path.resolve(options.runsDir, options.runId);
  const stateDir = path.resolve(options.runsDir, `${options.runId}.cluster`);
  const shardsDir = path.join(stateDir, 'shards');
  if ((await pathExists(path.join(runDir, 'manifest.json'))) && !(await pathExists(path.join(runDir, MARKER)))) {
    throw new Error(`${runDir} holds a run made in one piece: a cluster run of the same id would replace it; use another --run-id`);
  }
  await scheduler.check();
  // one driver per run: the state folder and the merged folder are locked for the whole invocation
  const locks = [acquireRunLock(stateDir), acquireRunLock(runDir)];
  try {
    await mkdir(path.join(stateDir, 'logs'), { recursive: true });
    await mkdir(shardsDir, { recursive: true });
    const configFile = path.join(stateDir, 'config.json');
    await writeJsonAtomic(configFile, options.taskConfig);
    const script = path.join(stateDir, 'task.sh');
    await writeFile(
      script,
      taskScript({ ...options, shards: n, preamble: scheduler.taskPreamble(), configFile, shardsDir, cwd: options.cwd, runId: options.runId }),
      { mode: 0o755 },
    );
    return await drive(options, { log, runDir, stateDir, shardsDir, script });
  } finally {
    for (const lock of locks.reverse()) lock.release();
  }
}

interface Active {
  jobId: string;
  shard: number;
  state: 'pending' | 'running';
}

async function drive(options: ShardDriverOptions, where: DriveWhere): Promise<ShardDriverResult> {
  const run = new ShardRun(options, where);
  await run.loadJobs();
  await run.takeFinished();
  let stopped = false;
  void options.stopSignal?.then(() => {
    stopped = true;
  });
  const followed = await run.followEarlierJobs();
  await run.submit(run.shardNumbers().filter((s) => !run.outcome.has(s) && !followed.has(s)));
  while (run.active.length > 0 && !stopped) {
    await Promise.race([new Promise((r) => setTimeout(r, options.pollMs)), options.stopSignal].filter(Boolean));
    if (stopped) break;
    const again = await run.pollRound();
    if (!stopped) await run.submit(again);
  }
  if (stopped) await run.cancelActive();
  return run.finish(stopped);
}

type DriveWhere = { log: (line: string) => void; runDir: string; stateDir: string; shardsDir: string; script: string };
type ShardOutcome = ShardDriverResult['shards'][number];
type JobRecord = { jobId: string; shards: number[]; of?: number; submittedAt: string };

/** One invocation's hold on a sharded run: which shards are done, which tasks it follows, what it submitted. */
class ShardRun {
  readonly outcome = new Map<number, ShardOutcome>();
  active: Active[] = [];
  private readonly attempts = new Map<number, number>();
  private jobs: JobRecord[] = [];
  private readonly jobsThisTime: string[] = [];
  private readonly jobsFile: string;
  private readonly n: number;
  private readonly tag: string;

  constructor(
    private readonly options: ShardDriverOptions,
    private readonly where: DriveWhere,
  ) {
    this.jobsFile = path.join(where.stateDir, 'jobs.json');
    this.n = options.shards;
    this.tag = `[${options.scheduler.name}]`;
  }

  shardNumbers(): number[] {
    return Array.from({ length: this.n }, (_, i) => i + 1);
  }

  private shardDir(shard: number): string {
    return path.join(this.where.shardsDir, shardRunId(this.options.runId, shard, this.n));
  }

  private log(line: string): void {
    this.where.log(`${this.tag} ${line}`);
  }

  async loadJobs(): Promise<void> {
    this.jobs = (await readJsonIfExists<JobRecord[]>(this.jobsFile).catch(() => undefined)) ?? [];
  }

  /** Shards an earlier invocation finished (all of them again under --retry-errors). */
  async takeFinished(): Promise<void> {
    for (const shard of this.shardNumbers()) {
      const result = await readResult(this.shardDir(shard));
      if (!this.options.retryErrors && result && !result.interrupted)
        this.outcome.set(shard, { shard, status: 'done', attempts: 0, detail: 'finished earlier' });
    }
    const already = this.outcome.size;
    if (already === this.n) this.log(`all ${this.n} shards finished earlier; merging them again`);
    else if (already) this.log(`${already} of ${this.n} shards finished earlier; submitting the others`);
  }

  /**
   * Tasks an earlier driver of this run submitted may still be queued or running (the driver's terminal closed,
   * the login node rebooted): follow them instead of submitting their shards a second time.
   */
  async followEarlierJobs(): Promise<Set<number>> {
    const followed = new Set<number>();
    for (const job of this.jobs) {
      if (job.of !== this.n) continue; // submitted when the run was split another way: its shard numbers mean other parts
      const open = job.shards.filter((s) => !this.outcome.has(s) && !followed.has(s));
      if (!open.length) continue;
      const states = await this.options.scheduler.poll(job.jobId, open).catch(() => []);
      for (const s of states) {
        if (s.state === 'gone') continue;
        followed.add(s.shard);
        this.attempts.set(s.shard, 1);
        this.active.push({ jobId: job.jobId, shard: s.shard, state: s.state });
        this.log(`job ${job.jobId}: shard ${s.shard} is still ${s.state} from an earlier invocation; following it`);
      }
    }
    return followed;
  }

  async submit(shards: number[]): Promise<void> {
    if (!shards.length) return;
    const { stateDir, script } = this.where;
    const jobId = await this.options.scheduler.submit({
      name: `locfix-${this.options.runId}`,
      script,
      shards,
      logPattern: path.join(stateDir, 'logs', 'shard-{shard}.job-{job}.log'),
      resources: this.options.resources,
    });
    for (const shard of shards) this.attempts.set(shard, (this.attempts.get(shard) ?? 0) + 1);
    this.jobs.push({ jobId, shards, of: this.n, submittedAt: new Date().toISOString() });
    this.jobsThisTime.push(jobId);
    await writeJsonAtomic(this.jobsFile, this.jobs);
    this.active.push(...shards.map((shard) => ({ jobId, shard, state: 'pending' as const })));
    this.log(`job ${jobId}: shard(s) ${shards.join(', ')} of ${this.n} submitted`);
  }

  /** One poll of every followed task; returns the shards to submit again. */
  async pollRound(): Promise<number[]> {
    const again: number[] = [];
    const still: Active[] = [];
    for (const jobId of new Set(this.active.map((a) => a.jobId))) {
      const mine = this.active.filter((a) => a.jobId === jobId);
      let states: Awaited<ReturnType<ShardScheduler['poll']>>;
      try {
        states = await this.options.scheduler.poll(
          jobId,
          mine.map((a) => a.shard),
        );
      } catch (err) {
        // a controller that is restarting or busy: keep the tasks as they were and ask again next round
        this.log(`job ${jobId}: ${(err as Error).message}; asking again in ${Math.round(this.options.pollMs / 1000)} s`);
        still.push(...mine);
        continue;
      }
      for (const s of states) {
        const entry = mine.find((a) => a.shard === s.shard)!;
        if (s.state !== 'gone') {
          if (s.state !== entry.state) this.log(`job ${jobId}: shard ${s.shard} ${s.state}${s.detail ? ` (${s.detail})` : ''}`);
          still.push({ ...entry, state: s.state });
        } else if (await this.settleEnded(jobId, s.shard)) again.push(s.shard);
      }
    }
    this.active = still;
    return again;
  }

  /** A task that left the queue: done, stopped at its spend cap, or failed; true when it is to be submitted again. */
  private async settleEnded(jobId: string, shard: number): Promise<boolean> {
    const result = await readResult(this.shardDir(shard));
    const tries = this.attempts.get(shard) ?? 1;
    const mine = result?.task === `${jobId}_${shard}`;
    if (result && mine && !result.interrupted) {
      this.outcome.set(shard, {
        shard,
        status: 'done',
        attempts: tries,
        detail: `${result.total - result.failed} of ${result.total} instances without errors`,
      });
      this.log(`job ${jobId}: shard ${shard} done: ${result.total} instances, ${result.failed} with errors`);
      return false;
    }
    if (result && mine && result.budgetExhausted) {
      this.outcome.set(shard, { shard, status: 'budget', attempts: tries, detail: 'its share of the run spend cap is used up' });
      this.log(`job ${jobId}: shard ${shard} stopped at its share of the run spend cap`);
      return false;
    }
    const logFile = path.join(this.where.stateDir, 'logs', `shard-${shard}.job-${jobId}.log`);
    const why = [(await this.options.scheduler.describeEnded(jobId, shard)) ?? 'ended without a result', await logTail(logFile, 3)].filter(Boolean).join('; ');
    if (tries < this.options.maxAttempts) {
      this.log(`job ${jobId}: shard ${shard} failed (${why}); submitting it again (attempt ${tries + 1} of ${this.options.maxAttempts})`);
      return true;
    }
    this.outcome.set(shard, { shard, status: 'given-up', attempts: tries, detail: why });
    this.log(`job ${jobId}: shard ${shard} failed ${tries} time(s) (${why}); given up`);
    return false;
  }

  async cancelActive(): Promise<void> {
    for (const jobId of new Set(this.active.map((a) => a.jobId))) {
      try {
        await this.options.scheduler.cancel(jobId);
        this.log(`cancelled job ${jobId}`);
      } catch (err) {
        this.log(`could not cancel job ${jobId}: ${(err as Error).message}`);
      }
    }
    for (const a of this.active) this.outcome.set(a.shard, { shard: a.shard, status: 'cancelled', attempts: this.attempts.get(a.shard) ?? 0 });
  }

  /** The result, merging the shards into the run folder when every one is done. */
  async finish(stopped: boolean): Promise<ShardDriverResult> {
    const { runDir, stateDir } = this.where;
    const { scheduler } = this.options;
    const shards = this.shardNumbers().map((i) => this.outcome.get(i) ?? { shard: i, status: 'cancelled' as const, attempts: this.attempts.get(i) ?? 0 });
    const result: ShardDriverResult = { runDir, stateDir, shards, jobs: this.jobsThisTime, merged: false, interrupted: stopped };
    if (!shards.every((s) => s.status === 'done')) return result;
    await mkdir(runDir, { recursive: true });
    await clearMerged(runDir);
    // the marker first: a merge that fails half-way leaves a folder the next invocation may clear again
    const marker = { scheduler: scheduler.name, shards: this.n, stateDir, jobs: this.jobs };
    await writeJsonAtomic(path.join(runDir, MARKER), marker);
    await this.options.merge(
      runDir,
      shards.map((s) => this.shardDir(s.shard)),
    );
    await writeJsonAtomic(path.join(runDir, MARKER), { ...marker, mergedAt: new Date().toISOString() });
    result.merged = true;
    return result;
  }
}
