/**
 * Per-repository memory release for runs over many instances. A repository's index and parse memo are
 * only worth keeping while instances of it are still to come; once the last one is done they are dead
 * weight (a whole Lite run would otherwise hold every repository it passed). Instances may finish out of
 * order when several are in flight, so this counts what is left per repository instead of watching for a
 * change of repository.
 */
import type { SweInstance } from '../dataset/schema.ts';

/** Instances reordered so that each repository's come together (its index caches are reused), first-seen order kept. */
export function groupByRepo<T extends { repo: string }>(instances: readonly T[]): T[] {
  const groups = new Map<string, T[]>();
  for (const inst of instances) {
    const list = groups.get(inst.repo);
    if (list) list.push(inst);
    else groups.set(inst.repo, [inst]);
  }
  return [...groups.values()].flat();
}

/**
 * Returns `done(instance)`: call it when an instance needs its repository no more; `release(repo)` runs
 * once, right after that repository's last instance is done. Unknown or repeated instances are ignored.
 */
export function releaseAfterLastInstance(
  instances: readonly Pick<SweInstance, 'instance_id' | 'repo'>[],
  release: (repo: string) => void,
): (instance: Pick<SweInstance, 'instance_id' | 'repo'>) => void {
  const pending = new Map<string, Set<string>>();
  for (const inst of instances) {
    const ids = pending.get(inst.repo) ?? new Set<string>();
    ids.add(inst.instance_id);
    pending.set(inst.repo, ids);
  }
  return (inst) => {
    const ids = pending.get(inst.repo);
    if (!ids?.delete(inst.instance_id) || ids.size > 0) return;
    pending.delete(inst.repo);
    release(inst.repo);
  };
}
