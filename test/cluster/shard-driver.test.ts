/**
 * The shard driver's decisions against a scripted scheduler (the real one is tested on a Slurm cluster in
 * slurm-run.test.ts): which shards are submitted, when a shard is submitted again and when it is given up,
 * what a run stopped by its spend cap and a controller that does not answer lead to, and what is merged.
 * Also the Slurm command lines and squeue parsing.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runShards, shardRunId, taskScript } from '../../app/cluster/shard-driver.ts';
import type { ShardRunResult } from '../../src/run/run-result.ts';
import { arraySpec, parseSqueue, sbatchArgs, SlurmScheduler } from '../../app/cluster/slurm.ts';
import type { ShardScheduler, ShardSubmission, ShardTaskState } from '../../app/cluster/types.ts';

let dir: string;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

type Outcome = 'done' | 'crash' | 'budget';

/** Each submitted task "runs" at once: it writes its shard's result.json as `outcomes` says for that attempt. */
class ScriptedScheduler implements ShardScheduler {
  readonly name = 'scripted';
  submissions: number[][] = [];
  cancelled: string[] = [];
  pollFailures = 0;
  private next = 100;
  private readonly tries = new Map<number, number>();
  constructor(
    private readonly shardsDir: () => string,
    private readonly n: number,
    private readonly outcomes: Record<number, Outcome[]>,
  ) {}
  async check(): Promise<void> {}
  taskPreamble(): string[] {
    return ['shard="$1"', 'task="local_$1"'];
  }
  async submit(s: ShardSubmission): Promise<string> {
    const jobId = String(this.next++);
    this.submissions.push([...s.shards]);
    for (const shard of s.shards) {
      const attempt = this.tries.get(shard) ?? 0;
      this.tries.set(shard, attempt + 1);
      const outcome = this.outcomes[shard]?.[attempt] ?? 'done';
      if (outcome !== 'crash') await this.finish(jobId, shard, outcome);
    }
    return jobId;
  }
  private async finish(jobId: string, shard: number, outcome: 'done' | 'budget'): Promise<void> {
    const runDir = path.join(this.shardsDir(), shardRunId('r', shard, this.n));
    await mkdir(runDir, { recursive: true });
    const result: ShardRunResult = {
      finishedAt: new Date().toISOString(),
      task: `${jobId}_${shard}`,
      interrupted: outcome === 'budget',
      budgetExhausted: outcome === 'budget',
      failed: 0,
      total: 2,
    };
    await writeFile(path.join(runDir, 'result.json'), JSON.stringify(result));
  }
  /** tasks an earlier driver submitted: still running for this many more polls, then done */
  earlier = new Map<string, { shard: number; polls: number }>();
  async poll(jobId: string, shards: readonly number[]): Promise<ShardTaskState[]> {
    const earlier = this.earlier.get(jobId);
    if (earlier) {
      earlier.polls -= 1;
      if (earlier.polls >= 0) return [{ shard: earlier.shard, state: 'running' }];
      await this.finish(jobId, earlier.shard, 'done');
      this.earlier.delete(jobId);
      return [{ shard: earlier.shard, state: 'gone' }];
    }
    if (this.pollFailures > 0) {
      this.pollFailures -= 1;
      throw new Error('squeue: slurm_load_jobs error: Socket timed out');
    }
    return shards.map((shard) => ({ shard, state: 'gone' }));
  }
  async describeEnded(): Promise<string | undefined> {
    return 'FAILED, exit code 1:0';
  }
  async cancel(jobId: string): Promise<void> {
    this.cancelled.push(jobId);
  }
}

/** Drives a run `r` under `dir` (a fresh folder per test; a test that drives twice resumes its first run). */
async function drive(outcomes: Record<number, Outcome[]>, n = 3, setup?: (s: ScriptedScheduler) => void) {
  const scheduler = new ScriptedScheduler(() => path.join(dir, 'runs', 'r.cluster', 'shards'), n, outcomes);
  setup?.(scheduler);
  const merged: string[][] = [];
  const lines: string[] = [];
  const result = await runShards({
    scheduler,
    runsDir: path.join(dir, 'runs'),
    runId: 'r',
    shards: n,
    resources: { cpusPerTask: 1, memory: '1G', extraArgs: [] },
    maxAttempts: 2,
    pollMs: 5,
    taskConfig: { runId: 'r' },
    locfixCommand: ['node', 'locfix.js'],
    cwd: dir,
    merge: async (_out, shardDirs) => {
      merged.push(shardDirs.map((d) => path.basename(d)));
    },
    log: (line) => lines.push(line),
  });
  return { result, scheduler, merged, lines };
}

describe('shard driver', () => {
  it('submits every shard once, merges them all when each is done, and skips done shards on a resume', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-driver-'));
    const first = await drive({});
    expect(first.scheduler.submissions).toEqual([[1, 2, 3]]);
    expect(first.merged).toEqual([['r.shard-1-of-3', 'r.shard-2-of-3', 'r.shard-3-of-3']]);
    expect(first.result.shards.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect(JSON.parse(await readFile(path.join(dir, 'runs', 'r', 'cluster.json'), 'utf8')).shards).toBe(3);
    const again = await drive({});
    expect(again.scheduler.submissions).toEqual([]);
    expect(again.merged).toHaveLength(1);
  });

  it('a shard that fails is submitted again up to the attempt bound, then given up, and nothing is merged', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-driver-'));
    const { result, scheduler, merged, lines } = await drive({ 2: ['crash', 'done'], 3: ['crash', 'crash'] });
    expect(scheduler.submissions).toEqual([
      [1, 2, 3],
      [2, 3],
    ]);
    expect(result.shards.map((s) => [s.status, s.attempts])).toEqual([
      ['done', 1],
      ['done', 2],
      ['given-up', 2],
    ]);
    expect(result.shards[2].detail).toContain('FAILED, exit code 1:0');
    expect(merged).toEqual([]);
    expect(lines.join('\n')).toMatch(/shard 3 failed 2 time\(s\) .*given up/);
    // a later invocation starts a fresh count for the shard still missing, and then merges
    const later = await drive({});
    expect(later.scheduler.submissions).toEqual([[3]]);
    expect(later.merged).toHaveLength(1);
  });

  it('a shard stopped by its share of the run spend cap is not submitted again; a controller that times out is asked again', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-driver-'));
    const { result, scheduler, lines } = await drive({ 1: ['budget'] }, 2, (s) => {
      s.pollFailures = 2;
    });
    expect(scheduler.submissions).toEqual([[1, 2]]);
    expect(result.shards.map((s) => s.status)).toEqual(['budget', 'done']);
    expect(result.merged).toBe(false);
    expect(lines.filter((l) => l.includes('Socket timed out'))).toHaveLength(2);
  });

  it('a task an earlier driver submitted and that still runs is followed, not submitted a second time', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-driver-'));
    await mkdir(path.join(dir, 'runs', 'r.cluster'), { recursive: true });
    await writeFile(path.join(dir, 'runs', 'r.cluster', 'jobs.json'), JSON.stringify([{ jobId: '7', shards: [1, 2, 3], of: 3, submittedAt: 'then' }]));
    const { result, scheduler, merged, lines } = await drive({}, 3, (s) => s.earlier.set('7', { shard: 2, polls: 2 }));
    expect(scheduler.submissions).toEqual([[1, 3]]);
    expect(lines.join('\n')).toContain('job 7: shard 2 is still running from an earlier invocation; following it');
    expect(result.shards.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect(merged).toHaveLength(1);
  });

  it('refuses to replace a run made in one piece under the same id', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-driver-'));
    await mkdir(path.join(dir, 'runs', 'r'), { recursive: true });
    await writeFile(path.join(dir, 'runs', 'r', 'manifest.json'), '{}');
    await expect(drive({})).rejects.toThrow(/holds a run made in one piece/);
  });

  it('the task script runs locfix on its shard with the scheduler preamble, quoting paths', () => {
    const script = taskScript({
      runId: 'r',
      shards: 4,
      preamble: ['shard="$SLURM_ARRAY_TASK_ID"', 'task=x'],
      locfixCommand: ['/usr/bin/node', "/opt/it's/locfix.js"],
      cwd: '/work dir',
      configFile: '/s/config.json',
      shardsDir: '/s/shards',
      retryErrors: true,
    });
    expect(script).toContain(`exec '/usr/bin/node' '/opt/it'\\''s/locfix.js' run --config '/s/config.json' --shard "$shard/4" --run-id "r.shard-$shard-of-4"`);
    expect(script).toContain("--runs-dir '/s/shards' --retry-errors");
    expect(script).toContain("cd '/work dir'");
    expect(script.indexOf('shard="$SLURM_ARRAY_TASK_ID"')).toBeLessThan(script.indexOf('exec '));
  });
});

describe('slurm commands', () => {
  it('a machine without the Slurm client commands is told so before anything is written', async () => {
    const before = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(new SlurmScheduler().check()).rejects.toThrow(/sinfo not found: run locfix on a node with the Slurm client commands/);
    } finally {
      process.env.PATH = before;
    }
  });

  it('array ranges, sbatch arguments and squeue lines', () => {
    expect(arraySpec([5, 1, 2, 3, 9, 10])).toBe('1-3,5,9-10');
    expect(arraySpec([4], 2)).toBe('4%2');
    const args = sbatchArgs({
      name: 'locfix-r',
      script: '/s/task.sh',
      shards: [1, 2],
      logPattern: '/s/logs/shard-{shard}.job-{job}.log',
      resources: { partition: 'gpu', timeLimit: '01:00:00', cpusPerTask: 4, memory: '8G', maxRunning: 1, extraArgs: ['--qos=short'] },
    });
    expect(args).toEqual([
      '--parsable',
      '--job-name=locfix-r',
      '--array=1-2%1',
      '--output=/s/logs/shard-%a.job-%A.log',
      '--cpus-per-task=4',
      '--mem=8G',
      '--ntasks=1',
      '--partition=gpu',
      '--time=01:00:00',
      '--qos=short',
      '/s/task.sh',
    ]);
    const states = parseSqueue('12', '12_1|RUNNING|None\n12_3|PENDING|Resources\n13_1|RUNNING|None\n12_4|COMPLETED|None\ngarbage\n');
    expect([...states.entries()]).toEqual([
      [1, { state: 'running', detail: 'RUNNING' }],
      [3, { state: 'pending', detail: 'PENDING (Resources)' }],
      [4, { state: 'gone', detail: 'COMPLETED' }],
    ]);
  });
});
