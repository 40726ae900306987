/**
 * What a localizer may ask of the run beyond its instance, the snapshot and the repository index (every
 * localizer has those). A registry entry declares them; the assembly checks before any instance that the run can
 * supply what is needed and hands a localizer only what it declared, so adding a localizer never adds a member
 * to the context or a branch on its name elsewhere.
 *
 * - `model`: the run's chat model (`ctx.llm`)
 * - `graph`: the commit's code graph alone, without building the index (`ctx.graph()`; LocAgent's tools)
 * - `workspace`: a read-only sandbox holding the snapshot, opened through the execution backend (`ctx.workspace()`)
 * - `parts`: a per-instance store kept across resumes, and `prepareRun` (a cascade's tiers and plan)
 */
import { KindedError } from '../src/run/kinded-error.ts';
import { ERROR_KINDS } from '../src/util/error-kinds.ts';
import type { ContextWith, LocalizerContext } from './types.ts';

export const CAPABILITIES = ['model', 'graph', 'workspace', 'parts'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface LocalizerNeeds {
  /** without these the localizer cannot answer: a run that cannot supply one stops before any instance */
  needs: readonly Capability[];
  /** used when the run has them (a model a localizer can do without) */
  uses: readonly Capability[];
}

/** What the run can supply: true, or what the capability is and how to get it ("a chat model: pass --llm …"). */
export type CapabilitySupply = Partial<Record<Capability, true | string>>;

/** The capabilities needed that the run cannot supply, as one message naming each and its fix (undefined: none). */
export function missingCapabilities(localizer: string, needs: readonly Capability[], supply: CapabilitySupply): string | undefined {
  const missing = needs.flatMap((c) => {
    const can = supply[c];
    return can === true ? [] : [can ?? `the ${c} capability, which this run does not supply`];
  });
  return missing.length ? `the ${localizer} localizer needs ${missing.join('; and ')}` : undefined;
}

/** Whether a localizer declared `capability`, as needed or used. */
export function declares(declared: LocalizerNeeds | undefined, capability: Capability): boolean {
  return !!declared && (declared.needs.includes(capability) || declared.uses.includes(capability));
}

/**
 * The context typed as holding what `needs` names. The stage has checked before any instance that the run supplies
 * each (missingCapabilities); this checks the context once more, in one place, so no localizer re-checks its own.
 */
export function withCapabilities<C extends Capability>(ctx: LocalizerContext, needs: readonly C[]): ContextWith<C> {
  const members: Record<Capability, keyof LocalizerContext> = { model: 'llm', graph: 'graph', workspace: 'workspace', parts: 'parts' };
  const absent = needs.filter((c) => ctx[members[c]] === undefined);
  if (absent.length) throw new KindedError(ERROR_KINDS.configuration, `the localizer needs ${absent.join(', ')}, which this stage did not supply`);
  return ctx as ContextWith<C>;
}
