/** What one invocation of `locfix run` ends with: returned to its caller, and kept as `<run>/result.json`. */

export interface ExperimentResult {
  runDir: string;
  /** Ctrl-C stopped it: instances not finished stay "not done" for a resume; no analysis was written */
  interrupted: boolean;
  /** the run's spend cap stopped it (`interrupted` is true too) */
  budgetExhausted?: boolean;
  /** a full disk stopped it (`interrupted` is true too): free space and rerun to resume */
  diskFull?: boolean;
  /** the run folder's lock was lost while held (another process took it over): it wrote nothing more there */
  lockLost?: boolean;
  /** a cluster run whose shards did not all finish (given up after their attempts): nothing was merged */
  incomplete?: boolean;
  /** instances whose pipeline recorded an error at some stage, of `total` */
  failed: number;
  total: number;
  /** finished, with instances that owe work (not reached or not evaluated by a failure, not by the plan): the
   * run is incomplete, and `finish` says what completes it */
  unfinished?: { instances: number; finish: string };
}

/** `<run>/result.json`, written when an invocation ends; a cluster task is done when it names that task. */
export interface ShardRunResult {
  finishedAt: string;
  /** the scheduler's id of the task that ran it (LOCFIX_TASK_ID), when it ran as one */
  task?: string;
  interrupted: boolean;
  budgetExhausted?: boolean;
  failed: number;
  total: number;
}
