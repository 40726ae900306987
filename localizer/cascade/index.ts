/**
 * The cascade localizer: cheap tiers first, an expensive one only when the cheaper answer is unsure (the
 * recommendation both seed studies end on). Each tier is any registered localizer; each tier's answer is
 * kept as a part of the instance (runs/<id>/localize-files.parts/<instance>/tier-<i>.json), so a resume after
 * a crash or a spend cap in an upper tier does not pay for the lower ones again.
 *
 * The artifact records per instance which tier answered, why each tier escalated or not, and what each tier
 * cost (`details.cascade`); its files are the merged ranking and its confidence is the last tier's. A failure
 * of an upper tier leaves the lower answer standing with a warning that says so; a spend cap or an abort is
 * not a failure of the tier and stops the instance, as it would any localizer.
 */
import { causeOf } from '../../src/run/failure-cause.ts';
import { STAGE_ERROR_KIND, StageNotRecorded, toStageError } from '../../src/run/stage-runner.ts';
import { KindedError } from '../../src/run/kinded-error.ts';
import PQueue from 'p-queue';
import type { FileLocalization, TraceEvent } from '../../src/artifacts/localization.ts';
import type { ConfidenceSignals } from '../../src/artifacts/confidence.ts';
import { BudgetExhaustedError } from '../../src/llm/spend.ts';
import type { PartStore } from '../../src/run/part-store.ts';
import type { FileLocalizer, LocalizerContext, LocalizerRun } from '../types.ts';
import type { CascadeOptions } from './options.ts';
import { decideBelow, decideShare, leastConfident, mergeRankings, type EscalationDecision } from './policy.ts';

export type CreateTier = (localizer: string, options: Record<string, unknown>) => Promise<FileLocalizer>;

/** The run-level pass of the share rule: per tier, the instances that reached it and those it escalated. */
export interface CascadePlan {
  instances: string[];
  tiers: Array<{ tier: number; signal: string; share?: number; below?: number; reached: string[]; escalated: string[] } | undefined>;
}

export interface CascadeTierRecord {
  tier: number;
  name: string;
  localizer: string;
  status: 'ok' | 'error';
  /** answered from the kept part (an earlier attempt of this instance paid for it) */
  reused?: boolean;
  files?: string[];
  confidence?: ConfidenceSignals;
  usage?: FileLocalization['usage'];
  timingsMs?: Record<string, number>;
  /** how long the tier took when it ran (for a reused tier, in the run-level pre-pass or an earlier attempt) */
  elapsedMs?: number;
  decision?: EscalationDecision;
  error?: string;
}

interface TierPart {
  tier: number;
  localizer: string;
  output: FileLocalization;
  /** wall clock of the tier's run (absent in parts written before it was recorded) */
  elapsedMs?: number;
}

/** Files of each tier shown in the record (the answer itself is in the part). */
const RECORD_FILES = 10;

/**
 * An upper tier's failure that stops the instance instead of leaving the lower answer standing: a spend cap, a
 * stop, and any failure outside the method (a model server down, a replay miss: failure-cause.ts), since an
 * answer that fell back for the infrastructure's sake would be counted as the cascade's own.
 */
function stopsTheInstance(err: unknown): boolean {
  if (err instanceof BudgetExhaustedError || err instanceof StageNotRecorded || (err as Error)?.name === 'AbortError') return true;
  return causeOf(toStageError(err)).class !== 'method';
}

export class CascadeLocalizer implements FileLocalizer {
  readonly name = 'cascade';
  private readonly tiers: Promise<FileLocalizer[]>;
  private plan?: CascadePlan;

  constructor(
    private readonly options: CascadeOptions,
    create: CreateTier,
  ) {
    this.tiers = Promise.all(options.tiers.map((t) => create(t.localizer, t.options)));
    this.tiers.catch(() => undefined); // reported by the first localize that awaits it
  }

  tierName(i: number): string {
    const t = this.options.tiers[i]!;
    if (t.name) return t.name;
    const same = this.options.tiers.filter((x) => x.localizer === t.localizer).length;
    return same > 1 ? `${t.localizer}#${i}` : t.localizer;
  }

  /** Tier `i`'s kept part for an instance, if one holds an answer. */
  private async kept(i: number, parts: PartStore | undefined): Promise<TierPart | undefined> {
    const kept = await parts?.read<TierPart>(`tier-${i}`);
    return kept?.output && Array.isArray(kept.output.files) ? kept : undefined;
  }

  /** Tier `i`'s answer: the kept part, or the tier run now and kept; with the time the tier took either way. */
  private async answer(i: number, ctx: LocalizerContext): Promise<{ output: FileLocalization; reused: boolean; elapsedMs?: number }> {
    const key = `tier-${i}`;
    const kept = await this.kept(i, ctx.parts);
    if (kept) return { output: kept.output, reused: true, ...(kept.elapsedMs !== undefined ? { elapsedMs: kept.elapsedMs } : {}) };
    const tier = (await this.tiers)[i]!;
    const { parts: _own, ...tierContext } = ctx;
    const started = performance.now();
    const output = await tier.localize(tierContext);
    const elapsedMs = Math.round(performance.now() - started);
    await ctx.parts?.write(key, { tier: i, localizer: tier.name, output, elapsedMs } satisfies TierPart);
    return { output, reused: false, elapsedMs };
  }

  async prepareRun(run: LocalizerRun): Promise<void> {
    const tiers = this.options.tiers;
    const lastShare = tiers.reduce((last, t, i) => (t.escalate?.share !== undefined ? i : last), -1);
    if (lastShare < 0) return;
    let reach = [...run.instances];
    const plan: CascadePlan = { instances: reach.map((i) => i.instance_id), tiers: [] };
    for (let i = 0; i <= lastShare; i++) {
      const rule = tiers[i]!.escalate!;
      const values = new Map<string, number | undefined>();
      const queue = new PQueue({ concurrency: this.options.prepareConcurrency });
      await Promise.all(
        reach.map((instance) =>
          queue.add(async () => {
            if (run.shouldStop()) return;
            try {
              // a resume finds most answers kept: read them without opening the instance's repository
              const kept = (await this.kept(i, run.partsOf?.(instance)))?.output;
              const output = kept ?? (await run.within(instance, async () => this.answer(i, await run.context(instance)))).output;
              values.set(instance.instance_id, output.confidence?.[rule.signal]);
            } catch {
              // the instance's own stage meets the same failure and records it
            }
          }),
        ),
      );
      // a plan over part of the run would rank the wrong population; the rerun completes it
      if (run.shouldStop()) return;
      const scored = reach.map((inst) => ({ id: inst.instance_id, value: values.get(inst.instance_id) }));
      const below = (s: { value: number | undefined }) =>
        decideBelow(s.value === undefined ? {} : { [rule.signal]: s.value }, rule.signal, rule.below!).escalate;
      const escalated = rule.share !== undefined ? leastConfident(scored, rule.share) : new Set(scored.filter(below).map((s) => s.id));
      plan.tiers[i] = {
        tier: i,
        signal: rule.signal,
        ...(rule.share !== undefined ? { share: rule.share } : { below: rule.below! }),
        reached: scored.map((s) => s.id),
        escalated: [...escalated],
      };
      reach = reach.filter((inst) => escalated.has(inst.instance_id));
    }
    this.plan = plan;
    await run.parts?.write('cascade-plan', plan);
  }

  private decide(i: number, instanceId: string, confidence: ConfidenceSignals | undefined): EscalationDecision {
    const rule = this.options.tiers[i]!.escalate!;
    if (rule.below !== undefined) return decideBelow(confidence, rule.signal, rule.below);
    const step = this.plan?.tiers[i];
    if (!step?.reached.includes(instanceId))
      throw new KindedError(
        STAGE_ERROR_KIND.badConfig,
        `cascade: tier ${this.tierName(i)} escalates a share of the run, and ${instanceId} was not in the run-level pass that ranks it`,
      );
    return decideShare(new Set(step.escalated), instanceId, confidence?.[rule.signal], rule.signal, rule.share!);
  }

  async localize(ctx: LocalizerContext): Promise<FileLocalization> {
    const started = performance.now();
    const records: CascadeTierRecord[] = [];
    const trace: TraceEvent[] = [];
    const warnings: string[] = [];
    const usage = { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 };
    let files: string[] = [];
    let last: FileLocalization | undefined;
    let functions: FileLocalization['functions'];
    for (const [i, tier] of this.options.tiers.entries()) {
      const name = this.tierName(i);
      let answered: { output: FileLocalization; reused: boolean; elapsedMs?: number };
      try {
        answered = await this.answer(i, ctx);
      } catch (err) {
        if (i === 0 || stopsTheInstance(err)) throw err;
        const message = err instanceof Error ? err.message : String(err);
        records.push({ tier: i, name, localizer: tier.localizer, status: 'error', error: message });
        warnings.push(`tier ${name} failed (${message}); the answer of ${this.tierName(i - 1)} stands`);
        break;
      }
      const { output, reused } = answered;
      last = output;
      for (const key of ['promptTokens', 'completionTokens', 'cost', 'calls'] as const) usage[key] += output.usage?.[key] ?? 0;
      trace.push(...output.trace.map((e) => ({ ...e, step: `${name}/${e.step}` })));
      const paths = output.files.map((f) => f.path);
      files = i === 0 ? paths : mergeRankings(files, paths, tier.merge);
      if (output.functions?.length) functions = output.functions;
      for (const w of output.warnings ?? []) warnings.push(`${name}: ${w}`);
      const record: CascadeTierRecord = {
        tier: i,
        name,
        localizer: tier.localizer,
        status: 'ok',
        ...(reused ? { reused } : {}),
        files: paths.slice(0, RECORD_FILES),
        confidence: output.confidence ?? {},
        usage: output.usage,
        timingsMs: output.timingsMs,
        ...(answered.elapsedMs !== undefined ? { elapsedMs: answered.elapsedMs } : {}),
      };
      records.push(record);
      if (i === this.options.tiers.length - 1) break;
      record.decision = this.decide(i, ctx.instance.instance_id, output.confidence);
      trace.push({ type: 'note', step: 'cascade', message: `${name}: ${record.decision.escalate ? 'escalate' : 'answer'} (${record.decision.reason})` });
      if (!record.decision.escalate) break;
    }
    const answeredBy = records.filter((r) => r.status === 'ok').length - 1;
    return {
      localizer: this.name,
      files: files.map((path, r) => ({ path, score: files.length - r, evidence: { tier: this.tierName(answeredBy) } })),
      trace,
      usage,
      timingsMs: { total: Math.round(performance.now() - started) },
      ...(functions ? { functions } : {}),
      // the answering tier's own set stands for the answer unless fusion mixed the lower ranking in
      ...(last?.predicted && (answeredBy === 0 || this.options.tiers[answeredBy]!.merge === 'replace') ? { predicted: last.predicted } : {}),
      ...(last?.agent ? { agent: last.agent } : {}),
      ...(last?.confidence ? { confidence: last.confidence } : {}),
      // an answer that read the gold patch (the oracle as a tier) is an upper bound, whatever asked for it
      ...(last?.upperBound ? { upperBound: true } : {}),
      details: { cascade: { answeredBy, answeredByName: this.tierName(answeredBy), tiers: records } },
      ...(warnings.length ? { warnings } : {}),
    };
  }
}
