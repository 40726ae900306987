/**
 * Runs a list of stages over many instances. Each instance moves through the stages on its own (so LLM
 * calls of one instance overlap the Docker runs of another), with `concurrency` instances in flight; each
 * stage's result is persisted before the next starts. Resuming after any interruption, `kill -9` included,
 * repeats at most the stage that was in flight for each instance.
 *
 * An instance whose stage records an error stops there: later stages have no input to work on, and the
 * analysis reads the recorded error as the reason.
 */
import PQueue from 'p-queue';
import type { SweInstance } from '../dataset/schema.ts';
import type { RunLayout } from '../run/run-layout.ts';
import { memoryInput, type PipelineStage } from '../run/stage.ts';
import { runInstanceStage, type StageArtifact, type StageEvent } from '../run/stage-runner.ts';

export interface PipelineOptions {
  layout: RunLayout;
  instances: readonly SweInstance[];
  stages: readonly PipelineStage[];
  concurrency?: number;
  retryErrors?: boolean;
  onEvent?: (event: StageEvent) => void;
  /** called once per instance after its last stage (or the one that failed) */
  onInstanceDone?: (instance: SweInstance) => void;
  /** asked before each instance stage: true stops there (Ctrl-C). Stages in flight finish and are kept;
   * what has not started writes nothing, so it stays "not done" and a resume picks it up. */
  shouldStop?: () => boolean;
}

export interface InstancePipelineResult {
  instanceId: string;
  /** the last stage reached and its artifact */
  artifacts: Record<string, StageArtifact<unknown>>;
  /** the stage that recorded an error, when one did */
  failedStage?: string;
  /** stopped by `shouldStop` before its last stage: not done, nothing recorded for the rest */
  interrupted?: boolean;
}

export async function runPipeline(options: PipelineOptions): Promise<InstancePipelineResult[]> {
  const queue = new PQueue({ concurrency: Math.max(1, options.concurrency ?? 1) });
  const results = new Array<InstancePipelineResult>(options.instances.length);
  await Promise.all(
    options.instances.map((instance, index) =>
      queue.add(async () => {
        const outputs = new Map<string, unknown>();
        const result: InstancePipelineResult = { instanceId: instance.instance_id, artifacts: {} };
        try {
          for (const stage of options.stages) {
            if (options.shouldStop?.()) {
              result.interrupted = true;
              break;
            }
            const { artifact } = await runInstanceStage(options.layout, stage.name, instance, (inst) => stage.run(memoryInput(inst, outputs)), {
              retryErrors: options.retryErrors,
              onEvent: options.onEvent,
            });
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
