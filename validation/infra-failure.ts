/**
 * Infrastructure failures in an evaluation log, as SWE-bench harness 5.0 labels them (infra_failure.py, #586):
 * signatures of "the environment broke" in a log that could not be graded, in two tiers. `environment` cannot
 * plausibly come from a patch (a browser that will not launch, no display, out of memory, the Docker daemon, DNS);
 * `ambiguous` can come from either (a missing module, no tests collected, a timeout). The label is advisory: it
 * never changes a verdict or a denominator, and the first matching signature wins.
 */

export const INFRA_TIERS = ['environment', 'ambiguous'] as const;
export type InfraTier = (typeof INFRA_TIERS)[number];

export interface InfraFailure {
  reason: string;
  tier: InfraTier;
}

/**
 * The harness' signatures, in its order. Its `^Killed$` (re.M) is written with look-arounds for \n alone: in a
 * JavaScript multiline pattern \r and U+2028 would end lines too.
 */
export const INFRA_FAILURE_SIGNATURES: ReadonlyArray<readonly [string, InfraTier, RegExp]> = [
  ['browser_launch_failed', 'environment', /Failed to launch|Failed to connect to the bus/m],
  ['display_unavailable', 'environment', /cannot open display|Missing X server|unable to open X display/m],
  ['out_of_memory', 'environment', /Cannot allocate memory|OutOfMemoryError|(?<![^\n])Killed(?![^\n])/],
  ['container_unavailable', 'environment', /Error response from daemon|Cannot connect to the Docker daemon/m],
  ['network_unreachable', 'environment', /Could not resolve host|Temporary failure in name resolution/m],
  ['missing_module', 'ambiguous', /Cannot find module|MODULE_NOT_FOUND|ModuleNotFoundError/m],
  ['no_tests_collected', 'ambiguous', /no tests ran|collected 0 items/m],
  ['tests_timed_out', 'ambiguous', /Timeout error: \d+ seconds exceeded/m],
];

/** The first signature the text shows, or undefined (also for an empty text). */
export function classifyInfraFailure(text: string): InfraFailure | undefined {
  if (!text) return undefined;
  for (const [reason, tier, pattern] of INFRA_FAILURE_SIGNATURES) if (pattern.test(text)) return { reason, tier };
  return undefined;
}
