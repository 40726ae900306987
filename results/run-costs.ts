/**
 * What a run cost, as the analysis reports it: per stage from the artifacts, per instance for the comparisons,
 * and the spend ledger's caps and totals.
 */
import type { FileLocalization } from '../src/artifacts/localization.ts';
import { modifiedExistingFiles } from '../src/patch.ts';
import type { RunLayout } from '../src/run/run-layout.ts';
import { STAGE_ERROR_KIND, type StageArtifact } from '../src/run/stage-runner.ts';
import { readSpendLedger } from '../src/run/spend-ledger.ts';
import type { RunOutcome } from './compare.ts';
import type { RunSpend } from './report.ts';

/** What a stage that met its spend cap spent itself: recorded with its budget-exhausted error. */
export function spentAtCap(
  artifact: StageArtifact<unknown> | undefined,
): { promptTokens: number; completionTokens: number; cost: number; calls: number } | undefined {
  if (artifact?.status !== 'error' || artifact.error?.kind !== STAGE_ERROR_KIND.budgetExhausted) return undefined;
  const spent = artifact.error.details?.stageSpent as { promptTokens?: unknown; completionTokens?: unknown; cost?: unknown; calls?: unknown } | undefined;
  if (typeof spent?.promptTokens !== 'number' || typeof spent.completionTokens !== 'number' || typeof spent.cost !== 'number') return undefined;
  return {
    promptTokens: spent.promptTokens,
    completionTokens: spent.completionTokens,
    cost: spent.cost,
    calls: typeof spent.calls === 'number' ? spent.calls : 0,
  };
}

/** The report's spend section from the run's ledger; nothing when there is none (or it cannot be read: warned). */
export async function runSpend(layout: RunLayout, budgetExhausted: number, warnings: string[]): Promise<{ spend?: RunSpend }> {
  try {
    const ledger = await readSpendLedger(layout);
    if (!ledger) return {};
    let maxInstance: RunSpend['maxInstance'];
    for (const [instanceId, s] of Object.entries(ledger.instances)) {
      const tokens = s.promptTokens + s.completionTokens;
      if (!maxInstance || tokens > maxInstance.tokens) maxInstance = { instanceId, tokens, cost: s.cost };
    }
    return { spend: { caps: ledger.caps, run: ledger.run, budgetExhausted, maxInstance } };
  } catch (err) {
    warnings.push((err as Error).message);
    return {};
  }
}

/** The files a patch edits (none for an unreadable patch). */
export function filesOfPatch(patch: string): string[] {
  try {
    return patch.trim() ? modifiedExistingFiles(patch) : [];
  } catch {
    return [];
  }
}

/** The time of the cascade tiers an answer reused (run before this artifact's own attempt); 0 for others. */
function cascadePrePassMs(details: unknown): number {
  const tiers = (details as { cascade?: { tiers?: Array<{ reused?: boolean; elapsedMs?: number }> } } | undefined)?.cascade?.tiers;
  return (tiers ?? []).filter((t) => t.reused).reduce((sum, t) => sum + (t.elapsedMs ?? 0), 0);
}

/** What localizing one instance cost (agent wall clock; tokens when the localizer recorded usage), error rows included. */
export function localizationCost(artifact: StageArtifact<FileLocalization> | undefined): NonNullable<RunOutcome['operations']>[string] | undefined {
  if (!artifact) return undefined;
  const details = (artifact.error?.details ?? {}) as { agent?: { elapsedMs?: number }; usage?: FileLocalization['usage'] };
  const agent = artifact.output?.agent ?? details.agent;
  const usage = artifact.output?.usage ?? details.usage;
  // an imported answer's artifact took the import's time, not the published agent's: unknown unless recorded
  const imported = (artifact.output?.details as { imported?: { tokensRecorded?: boolean } } | undefined)?.imported;
  // a cascade's lower tiers may have run in the run-level pre-pass: their time is not in the artifact's own
  const prePassMs = cascadePrePassMs(artifact.output?.details);
  const elapsedMs = agent?.elapsedMs !== undefined && prePassMs === 0 ? agent.elapsedMs : imported ? undefined : artifact.durationMs + prePassMs;
  const recorded = usage && (usage.calls > 0 || usage.promptTokens > 0) && (!imported || imported.tokensRecorded);
  if (elapsedMs === undefined && !recorded) return undefined;
  return {
    ...(elapsedMs !== undefined ? { agentSeconds: elapsedMs / 1000 } : {}),
    ...(recorded ? { inputTokens: usage.promptTokens, outputTokens: usage.completionTokens } : {}),
  };
}
