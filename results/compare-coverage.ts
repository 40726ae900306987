/**
 * What a comparison must say before its statistics: runs that did not finish the same instances (work not done
 * counts as unresolved and as a miss, so their rates differ by what the infrastructure did as much as by method),
 * arms that pool different configurations, and arms whose cost cannot be compared. Said, never refused.
 */
import { settingsChanges } from '../src/util/settings-diff.ts';

/** What these warnings read of a run (compare.ts' RunOutcome has it all). */
interface RunOutcome {
  runId: string;
  localizer: string;
  arm?: string;
  armKey?: string;
  armSettings?: Record<string, unknown>;
  judged?: string[];
  operations?: Record<string, { agentSeconds?: number; inputTokens?: number; outputTokens?: number }>;
}

/** Default: two runs whose shares of work not done differ by more than 5 points are told apart first. */
export const NOT_JUDGED_GAP = 0.05;

/** The aligned instances a run did not judge (not reached, not evaluated). */
function notJudgedOf(o: RunOutcome, common: readonly string[]): string[] {
  if (!o.judged) return [];
  const judged = new Set(o.judged);
  return common.filter((id) => !judged.has(id));
}

const share = (n: number, of: number) => `${n} of ${of} (${((100 * n) / of).toFixed(1)} %)`;

/**
 * Per pair of runs whose work not done differs: a warning naming both sets' sizes; a gap in share over `gap` is
 * said first and louder, since every rate and test below carries it.
 */
export function coverageWarnings(outcomes: readonly RunOutcome[], common: readonly string[], gap = NOT_JUDGED_GAP): string[] {
  if (common.length === 0) return ['the runs share no selected instance: nothing is compared'];
  const gaps: string[] = [];
  const differs: string[] = [];
  for (let i = 0; i < outcomes.length; i++) {
    for (let j = i + 1; j < outcomes.length; j++) {
      const [a, b] = [outcomes[i]!, outcomes[j]!];
      const [na, nb] = [notJudgedOf(a, common), notJudgedOf(b, common)];
      const inB = new Set(nb);
      if (na.length === nb.length && na.every((id) => inB.has(id))) continue;
      const what = `${a.runId} did not judge ${share(na.length, common.length)}, ${b.runId} ${share(nb.length, common.length)}`;
      if (Math.abs(na.length - nb.length) / common.length > gap)
        gaps.push(
          `before any statistic: ${what} — work not done counts as unresolved and as a miss here, so the difference is partly not the methods' (a server, a recording, the machine); rerun with --retry-errors and compare again`,
        );
      else differs.push(`the runs did not finish the same instances (${what}); work not done counts as unresolved and as a miss`);
    }
  }
  return [...gaps, ...differs];
}

/**
 * An arm named with --arm is counted as repeats of one method. When its runs are of different configurations (a
 * cascade and a plain retrieval), its rates mix methods: said, naming what differs, never refused (a user may mean it).
 */
export function pooledArmWarnings(outcomes: readonly RunOutcome[], named: Record<string, string[]>): string[] {
  const warnings: string[] = [];
  for (const [name, runIds] of Object.entries(named)) {
    const runs = runIds.map((id) => outcomes.find((o) => o.runId === id)!);
    const [first, ...rest] = runs;
    const other = rest.find((o) => o.armKey === undefined || o.armKey !== first!.armKey);
    if (!first || !other) continue;
    const changes = first.armSettings && other.armSettings ? settingsChanges(first.armSettings, other.armSettings) : [];
    const what = changes.length
      ? changes.slice(0, 3).join('; ') + (changes.length > 3 ? `; and ${changes.length - 3} more` : '')
      : `localizer ${first.localizer} → ${other.localizer}`;
    warnings.push(`--arm ${name} pools runs of different configurations (${first.runId} → ${other.runId}: ${what}): its rates mix methods`);
  }
  return warnings;
}

/** Whether an instance's localization recorded any cost (agent time or tokens). */
function hasCost(op: { agentSeconds?: number; inputTokens?: number; outputTokens?: number } | undefined): boolean {
  return op?.agentSeconds !== undefined || op?.inputTokens !== undefined || op?.outputTokens !== undefined;
}

/** Arms whose first run recorded no cost on the compared instances; none when there is nothing to compare. */
export function costWarnings(outcomes: readonly RunOutcome[], common: readonly string[], armNames: readonly string[]): string[] {
  if (armNames.length < 2 || common.length === 0) return [];
  return armNames
    .filter((arm) => !common.some((id) => hasCost(outcomes.find((o) => o.arm === arm)?.operations?.[id])))
    .map(
      (arm) =>
        `arm ${arm} recorded no agent time or tokens on the instances compared (an imported run has what its source published): its cost is not compared`,
    );
}
