/**
 * Cascade policies replayed on recorded runs (no model is called):
 *
 *   npm run bench:cascade -- --cheap RUN --upper NAME=RUN [--upper NAME=RUN …] [--signal S …]
 *                            [--price NAME=IN,OUT] [--tolerance 0.01] [--seed S] [--out FILE]
 *
 * `--cheap` is the model-free tier (a `locfix localize --localizer retrieval` run); each `--upper` is an LLM
 * tier's run of the same instances (a locfix run, or a published run brought in with `locfix import-run`).
 * For every upper tier and cheap-tier signal, the instances are split in two by a seeded hash; the escalation
 * threshold is chosen on one half (the smallest share of escalations whose Top-1 is within `--tolerance` of
 * always escalating) and applied unchanged to the other, both ways round. Costs: LLM localizer runs (instances
 * sent to an LLM tier), the tokens the answers recorded, and dollars from the spend caps' price table
 * (`--price NAME=IN,OUT`, USD per 1M tokens). The curve (Top-1 and cost against the share escalated) is
 * printed for the best signal on all instances.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { calibrateRun } from '../results/calibration.ts';
import { choosePolicy, escalationCurve, replayCascade, splitIds, type PolicyChoice, type ReplaySummary } from '../results/cascade-replay.ts';
import { loadTierRun, type TierRun } from '../results/tier-run.ts';
import { formatCurve } from '../results/cascade-replay.ts';
import type { TokenPrice } from '../src/llm/usage.ts';
import { writeJsonAtomic } from '../src/util/fsx.ts';

const { values } = parseArgs({
  options: {
    cheap: { type: 'string' },
    upper: { type: 'string', multiple: true, default: [] },
    signal: { type: 'string', multiple: true, default: [] },
    price: { type: 'string', multiple: true, default: [] },
    tolerance: { type: 'string', default: '0.01' },
    seed: { type: 'string', default: 'locfix-cascade' },
    repeats: { type: 'string', default: '10' },
    verbose: { type: 'boolean', default: false },
    out: { type: 'string' },
  },
});

function namedPairs(list: readonly string[], flag: string): Array<[string, string]> {
  return list.map((item) => {
    const at = item.indexOf('=');
    if (at <= 0) throw new Error(`${flag} expects NAME=VALUE, got "${item}"`);
    return [item.slice(0, at), item.slice(at + 1)];
  });
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : 0;
};
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
const f3 = (x: number): string => x.toFixed(3);

function line(label: string, s: ReplaySummary, always: ReplaySummary): string {
  const saved = always.llmRuns ? 1 - s.llmRuns / always.llmRuns : 0;
  const tokens = always.tokens && always.tokensComplete ? ` tokens −${pct(1 - s.tokens / always.tokens)}` : '';
  const dollars = always.dollars ? ` $${s.dollars.toFixed(2)}` : '';
  return `    ${label.padEnd(7)} n ${s.n}  Top-1 ${f3(s.top1)}  MRR ${f3(s.mrr)}  LLM runs ${String(s.llmRuns).padStart(4)} (−${pct(saved)})${tokens}${dollars}`;
}

function report(upper: string, choice: PolicyChoice, fold: string): string {
  const t = choice.test;
  const gap = t.always.top1 - t.policy.top1;
  return [
    `  ${upper} · ${choice.signal} · ${fold}: threshold ${Number.isFinite(choice.threshold) ? choice.threshold.toFixed(4) : choice.threshold} (escalates ${pct(choice.devShare)} of the choosing half)`,
    line('policy', t.policy, t.always),
    line('always', t.always, t.always),
    line('never', t.never, t.always),
    `    Top-1 gap to always escalating ${gap >= 0 ? '' : '+'}${f3(Math.abs(gap))}${gap <= Number(values.tolerance) + 1e-9 ? ' (within tolerance)' : ' (OUTSIDE tolerance)'}; escalated ${pct(t.policy.reached[1] ?? 0)} of the reporting half`,
  ].join('\n');
}

async function main(): Promise<void> {
  if (!values.cheap || !values.upper.length) throw new Error('usage: --cheap RUN --upper NAME=RUN [--upper …]');
  const tolerance = Number(values.tolerance);
  const prices = new Map<string, TokenPrice>(
    namedPairs(values.price, '--price').map(([name, v]) => {
      const [input, output] = v.split(',').map(Number);
      if (!(input! >= 0 && output! >= 0)) throw new Error(`--price ${name}: expects IN,OUT in USD per 1M tokens`);
      return [name, { input: input!, output: output! }];
    }),
  );
  const cheap = await loadTierRun(path.resolve(values.cheap), 'cheap');
  const uppers: TierRun[] = [];
  for (const [name, dir] of namedPairs(values.upper, '--upper')) uppers.push(await loadTierRun(path.resolve(dir), name));

  const calibration = calibrateRun(cheap);
  const signals = values.signal.length ? values.signal : calibration.map((c) => c.signal);
  const gold = cheap.gold;
  const ids = cheap.instances.filter((id) => gold[id]?.length);
  process.stdout.write(
    `cheap tier ${values.cheap} (${cheap.localizer}): ${cheap.answers.size} answers of ${cheap.instances.length}; ${values.repeats} seeded half splits (${values.seed}-1 …), each chosen on one half and reported on the other\n`,
  );
  for (const c of calibration) process.stdout.write(`  ${c.signal}: AUROC ${c.auroc?.toFixed(3) ?? '–'} (Top-1 ${f3(c.top1)}, n ${c.n})\n`);

  const repeats = Number(values.repeats);
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats expects a positive integer, got "${values.repeats}"`);
  const results: unknown[] = [];
  for (const upperRun of uppers) {
    const upper = { run: upperRun, merge: 'replace' as const, ...(prices.has(upperRun.name) ? { price: prices.get(upperRun.name)! } : {}) };
    const covered = ids.filter((id) => upperRun.answers.has(id)).length;
    const all = replayCascade(ids, gold, [{ run: cheap, rule: { signal: 'none', below: Infinity } }, upper]).summary;
    process.stdout.write(
      `\nupper tier ${upperRun.name} (${upperRun.localizer}): answers for ${covered} of ${ids.length}; always escalating: Top-1 ${f3(all.top1)}\n`,
    );
    process.stdout.write('  signal             rule        folds within 0.01   median gap   median LLM runs saved   median escalated\n');
    for (const signal of signals) {
      const folds: Array<{ seed: string; fold: string; choice: PolicyChoice }> = [];
      for (let r = 1; r <= repeats; r++) {
        const seed = `${values.seed}-${r}`;
        const { a, b } = splitIds(ids, seed);
        for (const [fold, dev, test] of [
          ['A→B', a, b],
          ['B→A', b, a],
        ] as const) {
          const choice = choosePolicy(dev, test, gold, { run: cheap }, upper, signal, tolerance);
          folds.push({ seed, fold, choice });
          if (values.verbose) process.stdout.write(`${report(upperRun.name, choice, `${seed} ${fold}`)}\n`);
        }
      }
      for (const rule of ['policy', 'byShare'] as const) {
        const gaps = folds.map((f) => f.choice.test.always.top1 - f.choice.test[rule].top1);
        const saved = folds.map((f) => 1 - f.choice.test[rule].llmRuns / Math.max(1, f.choice.test.always.llmRuns));
        const escalatedShare = folds.map((f) => f.choice.test[rule].reached[1] ?? 0);
        const within = gaps.filter((g) => g <= tolerance + 1e-9).length;
        process.stdout.write(
          `  ${signal.padEnd(18)} ${(rule === 'policy' ? 'threshold' : 'share').padEnd(11)} ${`${within}/${folds.length}`.padStart(17)}   ${f3(median(gaps)).padStart(10)}   ${pct(median(saved)).padStart(21)}   ${pct(median(escalatedShare)).padStart(16)}\n`,
        );
      }
      results.push({ upper: upperRun.name, signal, folds });
    }
    const best = [...calibration].filter((c) => signals.includes(c.signal)).sort((x, y) => (y.auroc ?? 0) - (x.auroc ?? 0))[0];
    if (best) {
      const curve = escalationCurve(ids, gold, { run: cheap }, upper, best.signal, 10);
      process.stdout.write(`\n${formatCurve(best.signal, curve)}\n`);
      results.push({ upper: upperRun.name, curve: { signal: best.signal, points: curve } });
    }
  }
  if (values.out) await writeJsonAtomic(path.resolve(values.out), { cheap: values.cheap, seed: values.seed, tolerance, calibration, results });
}

main().catch((err) => {
  process.stderr.write(`bench:cascade: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
