/**
 * The ladder's files and tables: `ladder.json` and `ladder.md` in the ladder's folder, and `ladder-causes.json`
 * in its as-run run, where `analyze`, the report and the run browser read each instance's cause beside its
 * correlational category (run-reading.ts).
 */
import path from 'node:path';
import { readJsonIfExists, writeJsonAtomic, writeFileAtomic } from '../src/util/fsx.ts';
import { agreementRate, LADDER_CAUSES, RUNGS, type LadderCause, type LadderInstance, type LadderResult, type Rung } from './ladder.ts';
import type { ConfidenceInterval } from './statistics.ts';

export const LADDER_FILE = 'ladder.json';
/** beside a run's analysis: the ladder's verdict on each of its instances */
export const LADDER_CAUSES_FILE = 'ladder-causes.json';

/** What a run folder keeps of the ladder it was the as-run rung of. */
export interface LadderCausesFile {
  version: 1;
  /** the ladder's folder, relative to the run folder */
  ladder: string;
  seeds: number[];
  causes: Record<string, Pick<LadderInstance, 'cause' | 'decidedAt' | 'onOneSample' | 'detail' | 'frequencies'>>;
  agreement: LadderResult['agreement'];
}

export const CAUSE_LABEL: Record<LadderCause, string> = {
  resolved: 'resolved as run',
  file: 'file localization',
  function: 'function localization',
  line: 'line localization',
  'beyond-localization': 'beyond localization',
  'not-judged': 'not judged',
};

export async function writeLadderCauses(runDir: string, ladderDir: string, result: LadderResult): Promise<void> {
  const file: LadderCausesFile = {
    version: 1,
    ladder: path.relative(runDir, ladderDir) || '.',
    seeds: result.seeds,
    causes: Object.fromEntries(
      result.instances.map((i) => [
        i.instanceId,
        {
          cause: i.cause,
          frequencies: i.frequencies,
          ...(i.decidedAt ? { decidedAt: i.decidedAt } : {}),
          ...(i.onOneSample ? { onOneSample: i.onOneSample } : {}),
          ...(i.detail ? { detail: i.detail } : {}),
        },
      ]),
    ),
    agreement: result.agreement,
  };
  await writeJsonAtomic(path.join(runDir, LADDER_CAUSES_FILE), file);
}

/** A run's ladder causes, or undefined when no ladder ran it (or the file is not one). */
export async function readLadderCauses(runDir: string): Promise<LadderCausesFile | undefined> {
  const file = await readJsonIfExists<LadderCausesFile>(path.join(runDir, LADDER_CAUSES_FILE)).catch(() => undefined);
  return file?.version === 1 && typeof file.causes === 'object' && file.causes !== null ? file : undefined;
}

/** What a run's report says of the ladder it was the as-run rung of. */
export interface RunLadderSummary {
  ladder: string;
  seeds: number[];
  causes: Partial<Record<LadderCause, number>>;
  /** attributions whose deciding rung had one resolving or judged run */
  onOneSample: number;
  agreement: LadderResult['agreement'];
}

export function ladderSummary(file: LadderCausesFile, instanceIds: readonly string[]): RunLadderSummary {
  const causes: RunLadderSummary['causes'] = {};
  let onOneSample = 0;
  for (const id of instanceIds) {
    const c = file.causes[id];
    if (!c) continue;
    causes[c.cause] = (causes[c.cause] ?? 0) + 1;
    if (c.onOneSample) onOneSample++;
  }
  return { ladder: file.ladder, seeds: file.seeds, causes, onOneSample, agreement: file.agreement };
}

/** The report's section on a run's ladder causes (Markdown lines). */
export function ladderSection(runLabel: string, s: RunLadderSummary): string[] {
  const counts = LADDER_CAUSES.filter((c) => s.causes[c]).map((c) => `${CAUSE_LABEL[c]} ${s.causes[c]}`);
  return [
    `## Counterfactual ladder of ${runLabel}`,
    '',
    `Each instance rerun with perfect localization from the gold patch down to each level (seeds ${s.seeds.join(', ')}; the ladder: ${s.ladder}). Causes: ${counts.join(', ')}${s.onOneSample ? `; ${s.onOneSample} rest on one sample` : ''}.`,
    '',
    ...renderAgreement(s.agreement),
    '',
  ];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}`;

function interval(ci: ConfidenceInterval): string {
  if (Number.isNaN(ci.low)) return `${signed(ci.estimate)} pp (${ci.noInterval ?? 'no interval'})`;
  return `${signed(ci.estimate)} pp [${signed(ci.low)}, ${signed(ci.high)}]`;
}

function frequencyCell(i: LadderInstance, rung: Rung): string {
  const f = i.frequencies[rung];
  return f.judged < f.runs ? `${f.resolved}/${f.judged} (${f.runs - f.judged} not judged)` : `${f.resolved}/${f.runs}`;
}

/** The ladder as Markdown: rates per rung, the lift of each level, each instance's cause, the agreement table. */
export function renderLadder(result: LadderResult, title = 'Counterfactual ladder'): string {
  const n = result.instances.length;
  const lines = [`# ${title}`, '', `${n} instances, seeds ${result.seeds.join(', ')}; a rung resolves an instance when half or more of its runs did.`, ''];
  lines.push('| rung | resolved (mean over seeds) |', '|---|---|');
  const rate = (rung: Rung) => (n ? result.instances.reduce((a, i) => a + i.frequencies[rung].resolved / i.frequencies[rung].runs, 0) / n : 0);
  for (const rung of RUNGS) lines.push(`| ${rung} | ${pct(rate(rung))} |`);
  lines.push('', '| level made perfect | lift over the rung below, 95% CI | McNemar p (Holm) | repo-clustered CI |', '|---|---|---|---|');
  for (const l of result.lifts) {
    const c = l.comparison;
    lines.push(
      `| ${l.level} (${l.from} → ${l.to}) | ${interval(c.bootstrap)} | ${c.mcnemar.pValue.toPrecision(3)} (${c.mcnemar.holmPValue.toPrecision(3)}) | ${interval(c.clusteredBootstrap)} |`,
    );
  }
  lines.push('', '| instance | as-run | oracle-file | oracle-function | oracle-line | correlational | ladder cause |', '|---|---|---|---|---|---|---|');
  for (const i of result.instances) {
    const cause = `${CAUSE_LABEL[i.cause]}${i.onOneSample ? ' (one sample)' : ''}${i.detail ? ` — ${i.detail}` : ''}`;
    lines.push(`| ${i.instanceId} | ${RUNGS.map((r) => frequencyCell(i, r)).join(' | ')} | ${i.correlational ?? '—'} | ${cause} |`);
  }
  lines.push('', ...renderAgreement(result.agreement));
  return lines.join('\n') + '\n';
}

/** Correlational category (rows) against the ladder's cause (columns), over the instances unresolved as run. */
export function renderAgreement(agreement: LadderResult['agreement']): string[] {
  const rows = Object.keys(agreement);
  if (!rows.length) return ['No instance unresolved as run: no agreement table.'];
  const causes = LADDER_CAUSES.filter((c) => c !== 'resolved' && rows.some((r) => agreement[r]![c]));
  const out = [
    'Agreement of the per-stage category (correlational) with the ladder (causal), instances unresolved as run:',
    '',
    `| category \\ cause | ${causes.map((c) => CAUSE_LABEL[c]).join(' | ')} |`,
    `|---|${causes.map(() => '---').join('|')}|`,
  ];
  for (const r of rows) out.push(`| ${r} | ${causes.map((c) => agreement[r]![c] ?? 0).join(' | ')} |`);
  const levels = (['file', 'function', 'line'] as const).map((level) => ({ level, ...agreementRate(agreement, level) })).filter((x) => x.of > 0);
  if (levels.length) out.push('', levels.map((x) => `"${x.level}" failures caused by ${x.level} localization: ${x.agree} of ${x.of}`).join('; ') + '.');
  return out;
}

export async function writeLadderFiles(ladderDir: string, result: LadderResult, extra: Record<string, unknown>): Promise<void> {
  await writeJsonAtomic(path.join(ladderDir, LADDER_FILE), { version: 1, ...extra, ...result });
  await writeFileAtomic(path.join(ladderDir, 'ladder.md'), renderLadder(result));
}
