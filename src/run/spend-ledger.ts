/**
 * The spend of a run, per instance and in total, kept in `<run>/spend.json` so caps hold across resumes: a
 * run stopped by its cap and resumed with the same cap stops at once, and an instance that spent its cap
 * spends nothing more. The file is rewritten (atomically, coalesced) after every settled model call, so a
 * `kill -9` loses at most the calls in flight — and those answers are in the response cache anyway.
 *
 * Only what the server generated counts; cached answers are free. Caps are not part of the run's settings
 * fingerprint: raising one on a resume changes how far a run may go, not what its artifacts hold.
 */
import { readJsonIfExists, writeJsonAtomic } from '../util/fsx.ts';
import { addSpent, describeSpend, hasLimits, noSpend, SpendBudget, type Spent, type SpendLimits } from '../llm/spend.ts';
import type { RunLayout } from './run-layout.ts';

export const SPEND_FILE = 'spend.json';

export interface SpendCaps {
  instance: SpendLimits;
  run: SpendLimits;
}

export interface SpendLedgerFile {
  version: 1;
  /** the caps of the latest invocation */
  caps: SpendCaps;
  run: Spent;
  instances: Record<string, Spent>;
  updatedAt: string;
}

function isSpent(value: unknown): value is Spent {
  const v = value as Partial<Spent> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    [v.promptTokens, v.completionTokens, v.cost, v.calls].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)
  );
}

export async function readSpendLedger(layout: RunLayout): Promise<SpendLedgerFile | undefined> {
  const file = layout.file(SPEND_FILE);
  let value: unknown;
  try {
    value = await readJsonIfExists<unknown>(file);
  } catch (err) {
    // money is at stake: a ledger that cannot be read is not silently restarted from zero
    throw new Error(`${file} cannot be read (${(err as Error).message}); it holds what this run has spent. Fix or delete it to count from zero`);
  }
  if (value === undefined) return undefined;
  const v = value as Partial<SpendLedgerFile>;
  if (!isSpent(v.run) || typeof v.instances !== 'object' || v.instances === null || !Object.values(v.instances).every(isSpent)) {
    throw new Error(`${file} is not a locfix spend ledger; it holds what this run has spent. Fix or delete it to count from zero`);
  }
  return v as SpendLedgerFile;
}

export class SpendLedger {
  readonly run: SpendBudget;
  private readonly instances: Record<string, Spent>;
  private writing?: Promise<void>;
  private dirty = false;
  private writeError?: unknown;

  private constructor(
    private readonly layout: RunLayout,
    readonly caps: SpendCaps,
    recorded: SpendLedgerFile | undefined,
  ) {
    this.instances = { ...(recorded?.instances ?? {}) };
    this.run = new SpendBudget('run', layout.id, caps.run, recorded?.run ?? noSpend(), () => this.changed());
  }

  static async open(layout: RunLayout, caps: SpendCaps): Promise<SpendLedger> {
    return new SpendLedger(layout, caps, await readSpendLedger(layout));
  }

  get capped(): boolean {
    return hasLimits(this.caps.instance) || hasLimits(this.caps.run);
  }

  /** A budget for one instance, starting from what it spent in earlier invocations. */
  instance(instanceId: string): SpendBudget {
    return new SpendBudget('instance', instanceId, this.caps.instance, this.instances[instanceId] ?? noSpend(), (_, delta) => {
      this.instances[instanceId] = addSpent(this.instances[instanceId] ?? noSpend(), delta);
      // the run budget's own settle schedules the write
    });
  }

  spentBy(instanceId: string): Spent {
    return { ...(this.instances[instanceId] ?? noSpend()) };
  }

  describeRun(): string {
    return describeSpend(this.run.spent, this.caps.run);
  }

  private changed(): void {
    this.dirty = true;
    this.writing ??= this.drain();
  }

  private async drain(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const file: SpendLedgerFile = {
          version: 1,
          caps: this.caps,
          run: this.run.spent,
          instances: this.instances,
          updatedAt: new Date().toISOString(),
        };
        await writeJsonAtomic(this.layout.file(SPEND_FILE), file);
      }
    } catch (err) {
      this.writeError = err;
    } finally {
      this.writing = undefined;
    }
  }

  /** Waits for the last write; a write that failed is reported here rather than lost. */
  async flush(): Promise<void> {
    this.changed();
    await this.writing;
    if (this.writeError) throw new Error(`could not record this run's spend in ${this.layout.file(SPEND_FILE)}: ${String(this.writeError)}`);
  }
}
