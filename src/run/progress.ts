/**
 * Progress for long runs: one bar per stage on a terminal (cli-progress), plain one-line-per-event output
 * when stdout is not a TTY (CI logs, `| tee`), so logs stay readable and greppable.
 */
import cliProgress from 'cli-progress';
import type { StageEvent } from './stage-runner.ts';

interface StageCounts {
  total: number;
  done: number;
  failed: number;
  skipped: number;
  /** wall time of instances computed in this process, for the ETA */
  computedMs: number;
  computed: number;
}

export interface ProgressReporter {
  /** announce a stage and how many instances it covers */
  begin(stage: string, total: number): void;
  event(event: StageEvent): void;
  end(): void;
  /** current counts, e.g. for a final summary */
  counts(): Record<string, StageCounts>;
}

function eta(c: StageCounts, concurrency: number): string {
  const remaining = c.total - c.done;
  if (remaining <= 0 || c.computed === 0) return '';
  const seconds = Math.round(((c.computedMs / c.computed) * remaining) / Math.max(1, concurrency) / 1000);
  return seconds >= 120 ? `~${Math.round(seconds / 60)}m left` : `~${seconds}s left`;
}

export function createProgress(options: { tty?: boolean; concurrency?: number; write?: (line: string) => void } = {}): ProgressReporter {
  const tty = options.tty ?? Boolean(process.stderr.isTTY);
  const concurrency = options.concurrency ?? 1;
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const stages = new Map<string, StageCounts>();
  const multibar = tty
    ? new cliProgress.MultiBar(
        { format: ' {stage} |{bar}| {value}/{total} failed:{failed} {eta_text}', hideCursor: true, clearOnComplete: false, stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const bars = new Map<string, cliProgress.SingleBar>();

  const update = (stage: string) => {
    const c = stages.get(stage)!;
    bars.get(stage)?.update(c.done, { stage: stage.padEnd(14), failed: c.failed, eta_text: eta(c, concurrency) });
  };

  return {
    begin(stage, total) {
      stages.set(stage, { total, done: 0, failed: 0, skipped: 0, computedMs: 0, computed: 0 });
      if (multibar) bars.set(stage, multibar.create(total, 0, { stage: stage.padEnd(14), failed: 0, eta_text: '' }));
      else write(`[${stage}] ${total} instance(s)`);
    },
    event(e) {
      const c = stages.get(e.stage);
      if (!c) return;
      if (e.type === 'corrupt') {
        // shown even with a progress bar: the user should know a file of theirs was moved
        (multibar ? (line: string) => multibar.log(`${line}\n`) : write)(
          `[${e.stage}] ${e.instanceId}: unreadable artifact (${e.reason}) moved to ${e.movedTo}; recomputing`,
        );
        return;
      }
      if (e.type === 'skipped') {
        c.done++;
        c.skipped++;
        if (e.status === 'error') c.failed++;
      } else if (e.type === 'finished') {
        c.done++;
        c.computed++;
        c.computedMs += e.artifact.durationMs;
        if (e.artifact.status === 'error') c.failed++;
        if (!multibar) {
          const what = e.artifact.status === 'ok' ? 'ok' : `ERROR ${e.artifact.error?.message ?? ''}`;
          write(`[${e.stage}] ${c.done}/${c.total} ${e.instanceId} ${what} (${(e.artifact.durationMs / 1000).toFixed(1)}s) ${eta(c, concurrency)}`.trimEnd());
        }
      }
      update(e.stage);
    },
    end() {
      multibar?.stop();
      if (!multibar) {
        for (const [stage, c] of stages) {
          write(`[${stage}] done: ${c.done - c.failed} ok, ${c.failed} failed, ${c.skipped} reused from earlier runs`);
        }
      }
    },
    counts() {
      return Object.fromEntries(stages);
    },
  };
}
