/**
 * The cluster seam: what the shard driver (shard-driver.ts) needs from a batch scheduler to run whole
 * pipeline instances on other machines. A run is split into shards; each shard is one task that runs
 * `locfix run --shard i/n` on its node over a shared run folder. slurm.ts implements this with job arrays;
 * another scheduler (PBS, LSF, Kubernetes jobs) is one more file behind this interface.
 */

export interface ShardResources {
  partition?: string;
  /** wall-clock limit per task in the scheduler's own syntax ("02:00:00") */
  timeLimit?: string;
  cpusPerTask: number;
  /** memory per task, "8G" */
  memory: string;
  /** tasks of one submission running at once */
  maxRunning?: number;
  /** passed to the scheduler's submit command as they are */
  extraArgs: readonly string[];
}

export interface ShardSubmission {
  /** job name shown by the scheduler */
  name: string;
  /** the task script; it reads its shard number from the scheduler's task index */
  script: string;
  /** 1-based shard numbers to run, one task each */
  shards: readonly number[];
  /** where a task's output goes; `{shard}` and `{job}` are filled in */
  logPattern: string;
  resources: ShardResources;
}

/** What the scheduler says of one task. `gone`: no longer known to it (finished, failed, cancelled or purged). */
export type ShardTaskState = { shard: number; state: 'pending' | 'running' | 'gone'; detail?: string };

export interface ShardScheduler {
  readonly name: string;
  /** Throws a clear error when the scheduler's commands are missing or its controller does not answer. */
  check(): Promise<void>;
  /**
   * Shell lines the task script starts with: they set `shard` (the 1-based shard number) and `task` (an id
   * unique to this task of this submission, recorded in the shard's result.json) from the scheduler's variables.
   */
  taskPreamble(): string[];
  /** Submits one task per shard; returns the job id. */
  submit(submission: ShardSubmission): Promise<string>;
  /** The state of each of the job's tasks among `shards`. */
  poll(jobId: string, shards: readonly number[]): Promise<ShardTaskState[]>;
  /** What the scheduler still knows of a task that left the queue (its final state and exit code), if anything. */
  describeEnded(jobId: string, shard: number): Promise<string | undefined>;
  /** Cancels the job's tasks that are still pending or running. */
  cancel(jobId: string): Promise<void>;
}
