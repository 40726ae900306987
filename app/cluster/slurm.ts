/**
 * Slurm behind the ShardScheduler seam: one `sbatch` job array per submission (the array index is the shard
 * number), `squeue` for the state of its tasks, `scontrol` for what a finished task left, `scancel` to stop.
 * Nothing assumes accounting storage (`sacct`): many clusters, and the single-node test cluster, run without
 * it. Every command has a timeout, so a controller that stops answering is an error, not a hang.
 */
import { execFile } from 'node:child_process';
import type { ShardScheduler, ShardSubmission, ShardTaskState } from './types.ts';

const COMMAND_TIMEOUT_MS = 60_000;

interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCommand(command: string, args: readonly string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const e = err as (NodeJS.ErrnoException & { code?: number | string; killed?: boolean }) | null;
      if (e && typeof e.code === 'string') {
        resolve({ code: 127, stdout: '', stderr: e.code === 'ENOENT' ? `${command}: command not found` : `${command}: ${e.message}` });
        return;
      }
      if (e?.killed) {
        resolve({ code: 124, stdout, stderr: `${command} did not answer within ${COMMAND_TIMEOUT_MS / 1000} s` });
        return;
      }
      resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `--array` of shard numbers: "1-3,7" with an optional "%N" throttle. */
export function arraySpec(shards: readonly number[], maxRunning?: number): string {
  const sorted = [...new Set(shards)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j += 1;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',') + (maxRunning ? `%${maxRunning}` : '');
}

/** The sbatch arguments of a submission (the script's own #SBATCH lines are not used, so this is the whole request). */
export function sbatchArgs(submission: ShardSubmission): string[] {
  const r = submission.resources;
  const log = submission.logPattern.replaceAll('{shard}', '%a').replaceAll('{job}', '%A');
  return [
    '--parsable',
    `--job-name=${submission.name}`,
    `--array=${arraySpec(submission.shards, r.maxRunning)}`,
    `--output=${log}`,
    `--cpus-per-task=${r.cpusPerTask}`,
    `--mem=${r.memory}`,
    '--ntasks=1',
    ...(r.partition ? [`--partition=${r.partition}`] : []),
    ...(r.timeLimit ? [`--time=${r.timeLimit}`] : []),
    ...r.extraArgs,
    submission.script,
  ];
}

const PENDING_STATES = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD', 'SUSPENDED', 'STAGE_OUT']);
const RUNNING_STATES = new Set(['RUNNING', 'COMPLETING', 'SIGNALING', 'RESIZING']);

/** Parses `squeue -h -r -o '%i|%T|%r'` lines ("12_3|RUNNING|None") into shard → state for job `jobId`. */
export function parseSqueue(jobId: string, text: string): Map<number, { state: 'pending' | 'running' | 'gone'; detail: string }> {
  const states = new Map<number, { state: 'pending' | 'running' | 'gone'; detail: string }>();
  for (const line of text.split('\n')) {
    const [id, slurmState, reason] = line.trim().split('|');
    const match = /^(\d+)_(\d+)$/.exec(id ?? '');
    if (!match || match[1] !== jobId || !slurmState) continue;
    const state = PENDING_STATES.has(slurmState) ? 'pending' : RUNNING_STATES.has(slurmState) ? 'running' : 'gone';
    states.set(Number(match[2]), { state, detail: reason && reason !== 'None' ? `${slurmState} (${reason})` : slurmState });
  }
  return states;
}

export class SlurmScheduler implements ShardScheduler {
  readonly name = 'slurm';

  async check(): Promise<void> {
    const result = await runCommand('sinfo', ['-h', '-o', '%P %a %D %t']);
    if (result.code === 127) throw new Error('slurm: sinfo not found: run locfix on a node with the Slurm client commands (sbatch, squeue, scontrol, scancel)');
    if (result.code !== 0) throw new Error(`slurm: the controller does not answer (sinfo: ${result.stderr.trim() || `exit ${result.code}`})`);
  }

  taskPreamble(): string[] {
    return [
      'if [ -z "$SLURM_ARRAY_TASK_ID" ]; then echo "this script runs as a task of a Slurm job array" >&2; exit 2; fi',
      'shard="$SLURM_ARRAY_TASK_ID"',
      'task="$SLURM_ARRAY_JOB_ID"_"$SLURM_ARRAY_TASK_ID"',
    ];
  }

  async submit(submission: ShardSubmission): Promise<string> {
    if (submission.shards.length === 0) throw new Error('slurm: nothing to submit');
    const result = await runCommand('sbatch', sbatchArgs(submission));
    const jobId = result.stdout.trim().split(';')[0];
    if (result.code !== 0 || !/^\d+$/.test(jobId))
      throw new Error(`slurm: sbatch refused the job array: ${result.stderr.trim() || result.stdout.trim() || `exit ${result.code}`}`);
    return jobId;
  }

  async poll(jobId: string, shards: readonly number[]): Promise<ShardTaskState[]> {
    const result = await runCommand('squeue', ['-h', '-r', '-j', jobId, '-o', '%i|%T|%r']);
    // a job whose every task ended and was purged is "Invalid job id" to squeue
    if (result.code !== 0 && !/invalid job id/i.test(result.stderr)) throw new Error(`slurm: squeue failed: ${result.stderr.trim() || `exit ${result.code}`}`);
    const states = result.code === 0 ? parseSqueue(jobId, result.stdout) : new Map();
    return shards.map((shard) => ({ shard, state: 'gone' as const, ...states.get(shard) }));
  }

  async describeEnded(jobId: string, shard: number): Promise<string | undefined> {
    const result = await runCommand('scontrol', ['show', 'job', '-o', `${jobId}_${shard}`]);
    if (result.code !== 0) return undefined;
    const field = (name: string) => new RegExp(`\\b${name}=(\\S+)`).exec(result.stdout)?.[1];
    const state = field('JobState');
    if (!state) return undefined;
    const reason = field('Reason');
    return `${state}, exit code ${field('ExitCode') ?? '?'}${reason && reason !== 'None' ? `, ${reason}` : ''}${field('NodeList') ? ` on ${field('NodeList')}` : ''}`;
  }

  async cancel(jobId: string): Promise<void> {
    const result = await runCommand('scancel', [jobId]);
    if (result.code !== 0 && !/invalid job id/i.test(result.stderr))
      throw new Error(`slurm: scancel ${jobId} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
  }
}
