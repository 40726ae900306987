/**
 * Function-level localization metrics (BLAgent §3.7): the same Top-k / MRR as at file level, over ranked
 * code elements ("path::Class.method") against the elements the gold patch edits. A predicted class covers
 * the methods nested in it. Gold edits outside any function ("<module>") are not function-level targets:
 * an instance whose gold patch only edits module-level code is left out and reported.
 */
import { MODULE_LEVEL, type CodeElement } from '../src/artifacts/localization.ts';
import type { InstanceLocOutcome } from './loc-metrics.ts';

export const elementKey = (e: CodeElement): string => `${e.path}::${e.name}`;

/** Ranked predictions → keys, where a prediction covering a gold element becomes that element's key. */
export function functionOutcome(
  instanceId: string,
  predicted: readonly CodeElement[] | undefined,
  gold: readonly CodeElement[],
): InstanceLocOutcome | undefined {
  const targets = gold.filter((g) => g.name !== MODULE_LEVEL);
  if (targets.length === 0) return undefined;
  const ranking = predicted?.map((p) => {
    const covered = targets.find((g) => g.path === p.path && (g.name === p.name || g.name.startsWith(p.name + '.')));
    return elementKey(covered ?? p);
  });
  return { instanceId, gold: targets.map(elementKey), ranking };
}

/** Code elements of a stage artifact's output: BLAgent's `functions`, or the function stage's `codeElements`. */
export function predictedElementsOf(output: unknown): CodeElement[] | undefined {
  if (!output || typeof output !== 'object') return undefined;
  const o = output as { functions?: Array<{ path: string; name: string }>; codeElements?: CodeElement[] };
  const list = o.functions ?? o.codeElements;
  return Array.isArray(list) ? list.map((e) => ({ path: e.path, name: e.name })) : undefined;
}
