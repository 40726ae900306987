/**
 * A cascade run in the analysis and the reports: per tier, how many instances reached it, how many it
 * answered (the last tier asked), what it cost, and how often the answer it gave had a gold file first or
 * among the handed files; plus the instances whose upper tier failed and left the lower answer standing.
 */
import type { FileLocalization } from '../src/artifacts/localization.ts';

export interface CascadeTierSummary {
  name: string;
  localizer: string;
  reached: number;
  answered: number;
  /** of the instances it answered: a gold file first */
  top1: number;
  /** of the instances it answered: a gold file among the first `topFiles` */
  handedCorrect: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  /** the tier failed and the answer below it stood */
  failed: number;
}

export interface CascadeSummary {
  tiers: CascadeTierSummary[];
}

interface CascadeDetails {
  answeredBy: number;
  tiers: Array<{
    tier: number;
    name: string;
    localizer: string;
    status: 'ok' | 'error';
    usage?: { promptTokens: number; completionTokens: number; cost: number; calls: number };
  }>;
}

export function cascadeDetailsOf(files: FileLocalization | undefined): CascadeDetails | undefined {
  const c = (files?.details as { cascade?: CascadeDetails } | undefined)?.cascade;
  return c && Array.isArray(c.tiers) && typeof c.answeredBy === 'number' ? c : undefined;
}

/** Adds one instance's cascade record; `gold` are its gold files. */
export function addToCascadeSummary(summary: CascadeSummary, files: FileLocalization, gold: readonly string[], topFiles: number): string | undefined {
  const details = cascadeDetailsOf(files);
  if (!details) return undefined;
  const ranking = files.files.map((f) => f.path);
  for (const record of details.tiers) {
    let tier = summary.tiers[record.tier];
    if (!tier) {
      tier = {
        name: record.name,
        localizer: record.localizer,
        reached: 0,
        answered: 0,
        top1: 0,
        handedCorrect: 0,
        calls: 0,
        promptTokens: 0,
        completionTokens: 0,
        cost: 0,
        failed: 0,
      };
      summary.tiers[record.tier] = tier;
    }
    tier.reached += 1;
    if (record.status === 'error') tier.failed += 1;
    tier.calls += record.usage?.calls ?? 0;
    tier.promptTokens += record.usage?.promptTokens ?? 0;
    tier.completionTokens += record.usage?.completionTokens ?? 0;
    tier.cost += record.usage?.cost ?? 0;
  }
  const answering = summary.tiers[details.answeredBy]!;
  answering.answered += 1;
  if (ranking[0] !== undefined && gold.includes(ranking[0])) answering.top1 += 1;
  if (ranking.slice(0, topFiles).some((p) => gold.includes(p))) answering.handedCorrect += 1;
  return answering.name;
}

/** The summary as a Markdown table. */
export function formatCascadeSummary(summary: CascadeSummary): string[] {
  const rows = summary.tiers.filter(Boolean);
  return [
    '| tier | localizer | reached | answered | Top-1 of its answers | gold handed on | failed | calls | tokens | cost |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map(
      (t) =>
        `| ${t.name} | ${t.localizer} | ${t.reached} | ${t.answered} | ${t.answered ? (t.top1 / t.answered).toFixed(3) : '–'} | ${t.answered ? (t.handedCorrect / t.answered).toFixed(3) : '–'} | ${t.failed} | ${t.calls} | ${t.promptTokens + t.completionTokens} | ${t.cost.toFixed(4)} |`,
    ),
  ];
}
