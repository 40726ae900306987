/**
 * The cascade localizer over stand-in tiers (the end-to-end test in test/e2e/cascade.test.ts runs real ones):
 * which tier answers, the record of every decision and cost, the parts that spare a resume the lower tiers,
 * an upper tier's failure leaving the lower answer standing, a spend cap stopping the instance, and the share
 * rule's run-level pass.
 */
import { localizationCost } from '../../results/run-costs.ts';
import { LlmError } from '../../src/llm/errors.ts';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CascadeLocalizer } from '../../localizer/cascade/index.ts';
import { CascadeOptionsSchema } from '../../localizer/cascade/options.ts';
import { validateLocalizer } from '../../localizer/registry.ts';
import type { FileLocalizer, LocalizerContext } from '../../localizer/types.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { BudgetExhaustedError } from '../../src/llm/spend.ts';
import { FilePartStore } from '../../src/run/part-store.ts';

const instance = (id: string): SweInstance => ({ instance_id: id, repo: 'o/r', base_commit: 'c', problem_statement: 'p', patch: '' }) as SweInstance;

/** A tier that answers from a table and counts its calls. */
function tier(name: string, answers: Record<string, { files: string[]; margin?: number } | Error>, calls = { n: 0 }): FileLocalizer & { calls: { n: number } } {
  return {
    name,
    calls,
    async localize(ctx: LocalizerContext): Promise<FileLocalization> {
      calls.n += 1;
      const a = answers[ctx.instance.instance_id];
      if (!a) throw new Error(`no answer for ${ctx.instance.instance_id}`);
      if (a instanceof Error) throw a;
      return {
        localizer: name,
        files: a.files.map((path, i) => ({ path, score: a.files.length - i })),
        trace: [{ type: 'note', step: 'answer', message: name }],
        usage: { promptTokens: name === 'cheap' ? 0 : 100, completionTokens: name === 'cheap' ? 0 : 10, cost: 0, calls: name === 'cheap' ? 0 : 2 },
        timingsMs: {},
        ...(a.margin !== undefined ? { confidence: { 'top-margin': a.margin } } : {}),
      };
    },
  };
}

function cascade(options: unknown, tiers: FileLocalizer[]): CascadeLocalizer {
  return new CascadeLocalizer(CascadeOptionsSchema.parse(options), async (name) => tiers.find((t) => t.name === name)!);
}

const ctx = (id: string, parts?: FilePartStore): LocalizerContext => ({ instance: instance(id), parts }) as unknown as LocalizerContext;
const below = (threshold: number) => ({ tiers: [{ localizer: 'cheap', escalate: { signal: 'top-margin', below: threshold } }, { localizer: 'llm' }] });

describe('cascade localizer', () => {
  it('options: every tier but the last escalates, with exactly one rule', () => {
    expect(CascadeOptionsSchema.safeParse({ tiers: [{ localizer: 'a' }, { localizer: 'b' }] }).success).toBe(false);
    expect(CascadeOptionsSchema.safeParse({ tiers: [{ localizer: 'a', escalate: { signal: 's', below: 1, share: 0.5 } }, { localizer: 'b' }] }).success).toBe(
      false,
    );
    expect(CascadeOptionsSchema.safeParse(below(0.5)).success).toBe(true);
  });

  it('the tiers and their options are checked with the cascade, before any instance runs', async () => {
    const first = { localizer: 'retrieval', escalate: { signal: 'top-margin', below: 0.5 } };
    await expect(validateLocalizer('cascade', { tiers: [first, { localizer: 'nope' }] })).rejects.toThrow(/\(tier 2\): unknown localizer "nope"/);
    await expect(validateLocalizer('cascade', { tiers: [first, { localizer: 'blagent', options: { earFilez: 3 } }] })).rejects.toThrow(
      /blagent: unknown option\(s\) earFilez/,
    );
    const parsed = (await validateLocalizer('cascade', { tiers: [first, { localizer: 'blagent', options: { earFiles: 3 } }] })) as {
      tiers: Array<{ options: Record<string, unknown> }>;
    };
    expect(parsed.tiers[1]!.options.earFiles).toBe(3);
  });

  it('answers from the cheap tier when sure, escalates when not, and records each decision and cost', async () => {
    const cheap = tier('cheap', { sure: { files: ['a.py', 'b.py'], margin: 0.9 }, unsure: { files: ['a.py', 'b.py'], margin: 0.1 } });
    const llm = tier('llm', { unsure: { files: ['c.py'] } });
    const c = cascade(below(0.5), [cheap, llm]);
    const sure = await c.localize(ctx('sure'));
    expect(sure.files.map((f) => f.path)).toEqual(['a.py', 'b.py']);
    expect(sure.usage.calls).toBe(0);
    expect(llm.calls.n).toBe(0);
    const unsure = await c.localize(ctx('unsure'));
    expect(unsure.files.map((f) => f.path)).toEqual(['c.py']);
    expect(unsure.usage).toMatchObject({ promptTokens: 100, completionTokens: 10, calls: 2 });
    const details = unsure.details!.cascade as { answeredBy: number; tiers: Array<{ decision?: { reason: string }; usage?: unknown }> };
    expect(details.answeredBy).toBe(1);
    expect(details.tiers[0]!.decision!.reason).toBe('top-margin 0.1 < 0.5');
    expect(unsure.trace.map((e) => e.step)).toEqual(['cheap/answer', 'cascade', 'llm/answer']);
  });

  it('fuse merges both answers by reciprocal rank', async () => {
    const c = cascade(
      {
        tiers: [
          { localizer: 'cheap', escalate: { signal: 'top-margin', below: 0.5 } },
          { localizer: 'llm', merge: 'fuse' },
        ],
      },
      [tier('cheap', { x: { files: ['a.py', 'b.py'], margin: 0 } }), tier('llm', { x: { files: ['b.py', 'c.py'] } })],
    );
    expect((await c.localize(ctx('x'))).files.map((f) => f.path)).toEqual(['b.py', 'a.py', 'c.py']);
  });

  it('a resume reuses every tier kept as a part; an upper failure leaves the lower answer standing', async () => {
    const parts = new FilePartStore(await mkdtemp(path.join(os.tmpdir(), 'locfix-parts-')));
    const cheap = tier('cheap', { x: { files: ['a.py'], margin: 0 } });
    const failing = tier('llm', { x: new Error('model server down') });
    const first = await cascade(below(0.5), [cheap, failing]).localize(ctx('x', parts));
    expect(first.files.map((f) => f.path)).toEqual(['a.py']);
    expect(first.warnings).toEqual(['tier llm failed (model server down); the answer of cheap stands']);
    // the rerun finds the cheap answer kept and asks only the upper tier again
    const llm = tier('llm', { x: { files: ['c.py'] } });
    const second = await cascade(below(0.5), [cheap, llm]).localize(ctx('x', parts));
    expect(cheap.calls.n).toBe(1);
    expect(second.files.map((f) => f.path)).toEqual(['c.py']);
    expect((second.details!.cascade as { tiers: Array<{ reused?: boolean }> }).tiers.map((t) => t.reused ?? false)).toEqual([true, false]);
    // the reused tier keeps the time it took, so the answer's cost includes it (run-costs.ts)
    const tiers = (second.details!.cascade as { tiers: Array<{ reused?: boolean; elapsedMs?: number }> }).tiers;
    expect(tiers.every((t) => typeof t.elapsedMs === 'number')).toBe(true);
    const artifact = {
      stage: 'localize-files',
      instanceId: 'x',
      status: 'ok' as const,
      startedAt: '',
      finishedAt: '',
      attempt: 1,
      durationMs: 700,
      output: second,
    };
    const withPrePass = { ...artifact, output: { ...second, details: { cascade: { tiers: [{ ...tiers[0], elapsedMs: 2800 }, tiers[1]] } } } };
    expect(localizationCost(withPrePass)?.agentSeconds).toBeCloseTo(3.5);
    expect(localizationCost({ ...artifact, output: { ...second, details: {} } })?.agentSeconds).toBeCloseTo(0.7);
  });

  it('a model server down or a replay miss in the upper tier stops the instance: no fallback counted as the cascade', async () => {
    for (const failure of [new LlmError('connection', 'Connection error.'), new LlmError('replay-miss', 'replay: this request was not recorded')]) {
      const cheap = tier('cheap', { x: { files: ['a.py'], margin: 0 } });
      const down = tier('llm', { x: failure });
      await expect(cascade(below(0.5), [cheap, down]).localize(ctx('x'))).rejects.toBe(failure);
    }
  });

  it('a spend cap in the upper tier stops the instance instead of falling back', async () => {
    const capped = tier('llm', { x: new BudgetExhaustedError('instance', 'x', { tokens: 1 }, { promptTokens: 1, completionTokens: 0, cost: 0, calls: 1 }) });
    await expect(cascade(below(0.5), [tier('cheap', { x: { files: ['a.py'], margin: 0 } }), capped]).localize(ctx('x'))).rejects.toBeInstanceOf(
      BudgetExhaustedError,
    );
  });

  it('share: the run-level pass escalates exactly the least confident share, and localize follows it', async () => {
    const ids = ['i1', 'i2', 'i3', 'i4'];
    const margins = [0.4, 0.1, 0.9, 0.2];
    const cheap = tier('cheap', Object.fromEntries(ids.map((id, i) => [id, { files: [`${id}.py`], margin: margins[i]! }])));
    const llm = tier('llm', Object.fromEntries(ids.map((id) => [id, { files: ['llm.py'] }])));
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-share-'));
    const c = cascade({ tiers: [{ localizer: 'cheap', escalate: { signal: 'top-margin', share: 0.5 } }, { localizer: 'llm' }] }, [cheap, llm]);
    const partsOf = (id: string) => new FilePartStore(path.join(dir, id));
    await expect(c.localize(ctx('i1', partsOf('i1')))).rejects.toThrow(/was not in the run-level pass/);
    const runParts = new FilePartStore(path.join(dir, '_run'));
    await c.prepareRun({
      instances: ids.map(instance),
      context: async (inst) => ctx(inst.instance_id, partsOf(inst.instance_id)),
      within: (_i, work) => work(),
      shouldStop: () => false,
      parts: runParts,
    });
    // four answers: i1's was kept from the refused localize above and reused by the pass
    expect(cheap.calls.n).toBe(4);
    const answered = await Promise.all(ids.map(async (id) => (await c.localize(ctx(id, partsOf(id)))).files[0]!.path));
    expect(answered).toEqual(['i1.py', 'llm.py', 'i3.py', 'llm.py']);
    expect(cheap.calls.n).toBe(4);
    expect(await runParts.read('cascade-plan')).toMatchObject({ tiers: [{ share: 0.5, escalated: ['i2', 'i4'] }] });
    // a resume: the pass reads every kept answer without opening any instance's repository (its context)
    const resumed = cascade({ tiers: [{ localizer: 'cheap', escalate: { signal: 'top-margin', share: 0.5 } }, { localizer: 'llm' }] }, [cheap, llm]);
    let contexts = 0;
    await resumed.prepareRun({
      instances: ids.map(instance),
      context: async (inst) => {
        contexts += 1;
        return ctx(inst.instance_id, partsOf(inst.instance_id));
      },
      partsOf: (inst) => partsOf(inst.instance_id),
      within: (_i, work) => work(),
      shouldStop: () => false,
      parts: runParts,
    });
    expect(contexts).toBe(0);
    expect(cheap.calls.n).toBe(4);
    expect(await runParts.read('cascade-plan')).toMatchObject({ tiers: [{ share: 0.5, escalated: ['i2', 'i4'] }] });
  });
});
