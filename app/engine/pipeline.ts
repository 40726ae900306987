/**
 * Runs a list of stages over many instances. Each instance moves through the stages on its own (so LLM
 * calls of one instance overlap the Docker runs of another), with `concurrency` instances in flight; each
 * stage's result is persisted before the next starts. Resuming after any interruption, `kill -9` included,
 * repeats at most the stage that was in flight for each instance.
 *
 * An instance whose stage records an error stops there: later stages have no input to work on, and the
 * analysis reads the recorded error as the reason.
 */
import type { RetryErrors } from '../../src/run/stage-runner.ts';
import PQueue from 'p-queue';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { RunLayout } from '../../src/run/run-layout.ts';
import { memoryInput, type PipelineStage } from '../../src/run/stage.ts';
import { runInstanceStage, StageNotRecorded, type StageArtifact, type StageEvent } from '../../src/run/stage-runner.ts';
import type { SpendLedger } from '../../src/run/spend-ledger.ts';
import { BudgetExhaustedError, SpendScope, subtractSpent, type SpendBudget } from '../../src/llm/spend.ts';
import { diskFullMessage, isDiskFull } from '../../src/util/disk-full.ts';

export interface PipelineOptions {
  layout: RunLayout;
  instances: readonly SweInstance[];
  stages: readonly PipelineStage[];
  concurrency?: number;
  retryErrors?: RetryErrors;
  onEvent?: (event: StageEvent) => void;
  /** called once per instance after its last stage (or the one that failed) */
  onInstanceDone?: (instance: SweInstance) => void;
  /** asked before each instance stage: true stops there (Ctrl-C). Stages in flight finish and are kept;
   * what has not started writes nothing, so it stays "not done" and a resume picks it up. */
  shouldStop?: () => boolean;
  /** spend caps: every model call of an instance stage draws from the instance's budget and the run's */
  spend?: SpendLedger;
}

export interface InstancePipelineResult {
  instanceId: string;
  /** the last stage reached and its artifact */
  artifacts: Record<string, StageArtifact<unknown>>;
  /** the stage that recorded an error, when one did */
  failedStage?: string;
  /** stopped by `shouldStop` or the run's spend cap before its last stage: not done, nothing recorded for the rest */
  interrupted?: boolean;
  /** why it stopped when the reason was outside the instance and the run (a full disk) */
  stoppedBy?: StageNotRecorded;
}

/**
 * Runs one instance stage under the instance's and the run's budgets. A stage that met the instance cap is
 * recorded as a `budget-exhausted` error with what the instance spent (even when the stage swallowed the
 * refused call and went on: its output lacks what the refused calls would have added); one that met the
 * run cap is not recorded at all, so a resume with a higher cap redoes it.
 */
async function underBudget<T>(ledger: SpendLedger, budget: SpendBudget, work: () => Promise<T>): Promise<T> {
  const scope = new SpendScope([budget, ledger.run]);
  const before = budget.spent;
  const refused = (): Error | undefined => {
    const refusal = scope.refusal;
    if (!refusal) return undefined;
    if (refusal.scope === 'run') return new StageNotRecorded(refusal.message, 'run-budget');
    return new BudgetExhaustedError('instance', budget.label, budget.limits, budget.spent, subtractSpent(budget.spent, before));
  };
  let value: T;
  try {
    value = await scope.run(work);
  } catch (err) {
    throw refused() ?? err;
  }
  const refusal = refused();
  if (refusal) throw refusal;
  return value;
}

export async function runPipeline(options: PipelineOptions): Promise<InstancePipelineResult[]> {
  const queue = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 1) });
  const spend = options.spend;
  let runCapHit = false;
  // a full disk stops the whole run: every further write would fail the same way; so does a lost run lock, after
  // which another process may own the folder
  let diskFull: StageNotRecorded | undefined;
  const stop = () => runCapHit || diskFull !== undefined || (options.shouldStop?.() ?? false);
  for (const stage of options.stages) {
    if (!stage.prepare || diskFull) continue;
    await stage
      .prepare(options.instances, {
        layout: options.layout,
        within: async (instance, work) => {
          if (!spend) return work();
          try {
            return await underBudget(spend, spend.instance(instance.instance_id), work);
          } catch (err) {
            if (err instanceof StageNotRecorded) runCapHit = true;
            throw err;
          }
        },
        shouldStop: stop,
      })
      .catch((err: unknown) => {
        if (!isDiskFull(err)) throw err;
        diskFull = new StageNotRecorded(diskFullMessage(err), 'disk-full');
      });
  }
  const results = new Array<InstancePipelineResult>(options.instances.length);
  await Promise.all(
    options.instances.map((instance, index) =>
      queue.add(async () => {
        const outputs = new Map<string, unknown>();
        const result: InstancePipelineResult = { instanceId: instance.instance_id, artifacts: {} };
        const budget = spend?.instance(instance.instance_id);
        try {
          for (const stage of options.stages) {
            if (stop()) {
              result.interrupted = true;
              if (diskFull) result.stoppedBy = diskFull;
              break;
            }
            const work = (inst: SweInstance) => stage.run(memoryInput(inst, outputs));
            let artifact: StageArtifact<unknown>;
            try {
              ({ artifact } = await runInstanceStage(
                options.layout,
                stage.name,
                instance,
                spend && budget ? (inst) => underBudget(spend, budget, () => work(inst)) : work,
                {
                  retryErrors: options.retryErrors,
                  onEvent: options.onEvent,
                },
              ));
            } catch (err) {
              if (!(err instanceof StageNotRecorded)) throw err;
              const stopsRun = err.reason === 'disk-full' || err.reason === 'lock-lost';
              if (stopsRun) diskFull ??= err;
              result.interrupted = true;
              if (stopsRun) result.stoppedBy = err;
              break;
            }
            result.artifacts[stage.name] = artifact;
            if (artifact.status !== 'ok') {
              result.failedStage = stage.name;
              break;
            }
            outputs.set(stage.name, artifact.output);
          }
        } finally {
          options.onInstanceDone?.(instance);
        }
        results[index] = result;
      }),
    ),
  );
  return results;
}
