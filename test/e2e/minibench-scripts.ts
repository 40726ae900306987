/**
 * Five mini-benchmark instances and what the scripted pipeline policy (pipeline-policy.ts) needs to know of
 * each: its gold file and function, a function that is not the fix, and three plausible wrong files.
 */
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import type { InstanceScript, PlannedCategory } from './pipeline-policy.ts';
import type { Weakness } from './ladder-policy.ts';

const A = 'minibench__qty-7';
const B = 'minibench__urlkit-14';
const C = 'minibench__confetti-5';
const D = 'minibench__qty-12';
const E = 'minibench__confetti-9';
export const MINIBENCH_IDS = { A, B, C, D, E } as const;

/** The demo's plan (scripts/record-demo.ts, scripts/bench-causes.ts): one instance in each category the analysis tells apart. */
export const DEMO_PLAN: Record<string, PlannedCategory> = { [A]: 'resolved', [B]: 'file', [C]: 'function', [D]: 'patch-generation', [E]: 'resolved' };

/** The ladder demo's plan (test/e2e/ladder-policy.ts): one instance per cause the ladder tells apart. */
export const LADDER_PLAN: Record<string, Weakness> = { [A]: 'none', [B]: 'file', [C]: 'function', [D]: 'repair', [E]: 'line' };

export const SCRIPT_INFO: Record<string, Omit<InstanceScript, 'instance'>> = {
  [A]: {
    goldFile: 'src/qty/conversion.py',
    goldFunction: 'from_base',
    otherFunction: 'to_base',
    wrongFiles: ['src/qty/units.py', 'src/qty/registry.py', 'src/qty/quantity.py'],
  },
  [B]: {
    goldFile: 'urlkit/hosts.py',
    goldFunction: 'split_host_port',
    otherFunction: 'normalize_host',
    wrongFiles: ['urlkit/url.py', 'urlkit/normalize.py', 'urlkit/paths.py'],
  },
  [C]: {
    goldFile: 'confetti/types.py',
    goldFunction: 'to_bool',
    otherFunction: 'to_int',
    wrongFiles: ['confetti/env.py', 'confetti/config.py', 'confetti/loader.py'],
  },
  [D]: {
    goldFile: 'src/qty/parser.py',
    goldFunction: '_Parser.product',
    otherFunction: 'tokenize',
    wrongFiles: ['src/qty/units.py', 'src/qty/registry.py', 'src/qty/formatting.py'],
  },
  [E]: {
    goldFile: 'confetti/merge.py',
    goldFunction: 'deep_merge',
    otherFunction: 'merge_all',
    wrongFiles: ['confetti/config.py', 'confetti/env.py', 'confetti/loader.py'],
  },
};

/** The policy's scripts of `ids`, from a built mini benchmark. */
export function instanceScripts(bench: MiniBenchBuild, ids: readonly string[]): InstanceScript[] {
  return ids.map((id) => ({ instance: bench.instances.find((i) => i.instance_id === id)!, ...SCRIPT_INFO[id]! }));
}
