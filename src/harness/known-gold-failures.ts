/**
 * Instances a dataset's own gold patch does not resolve (known-gold-failures.json, one list per dataset): a method
 * that leaves them unresolved has met the dataset's defect, not its own, and the analysis says so.
 */
import { readFileSync } from 'node:fs';

interface KnownGoldFailures {
  datasets: Record<string, { source: string; instances: Record<string, string> }>;
}

let known: Map<string, { dataset: string; reason: string }> | undefined;

function load(): Map<string, { dataset: string; reason: string }> {
  const data = JSON.parse(readFileSync(new URL('./known-gold-failures.json', import.meta.url), 'utf8')) as KnownGoldFailures;
  const byId = new Map<string, { dataset: string; reason: string }>();
  // instance ids are unique across the SWE-bench datasets, so an id names its dataset's entry
  for (const [dataset, { instances }] of Object.entries(data.datasets)) {
    for (const [id, reason] of Object.entries(instances)) byId.set(id, { dataset, reason });
  }
  return byId;
}

/** The dataset and the reason, when `instanceId`'s gold patch is known not to resolve it. */
export function knownGoldFailure(instanceId: string): { dataset: string; reason: string } | undefined {
  known ??= load();
  return known.get(instanceId);
}
