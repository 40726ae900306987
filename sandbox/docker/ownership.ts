/**
 * Who owns a container or volume locfix made: its run (RUN_LABEL) and its process (OWNER_LABEL,
 * "host:pid"). A run's next invocation sweeps what the run left; what a process left that is gone from this
 * host — killed with -9, an engine that vanished and came back, a build whose owner died — is an orphan, and
 * any locfix command that uses the engine sweeps it. A process on another host cannot be checked from here:
 * its containers stay until its own run sweeps them.
 */
import os from 'node:os';
import type Docker from 'dockerode';
import { pidAlive } from '../../src/util/file-lock.ts';

export const SANDBOX_LABEL = 'locfix';
export const RUN_LABEL = 'locfix.run';
export const OWNER_LABEL = 'locfix.owner';

/** This process, as OWNER_LABEL records it. */
export function processOwner(): string {
  return `${os.hostname()}:${process.pid}`;
}

/** The labels of everything locfix makes: locfix's own, its run's (when it has one) and its process's. */
export function ownedLabels(runId?: string): Record<string, string> {
  return { [SANDBOX_LABEL]: '1', [OWNER_LABEL]: processOwner(), ...(runId ? { [RUN_LABEL]: runId } : {}) };
}

/** Made by a locfix process on this host that is gone. */
export function isOrphan(labels: Record<string, string> | undefined | null): boolean {
  const owner = labels?.[OWNER_LABEL];
  const at = owner?.lastIndexOf(':') ?? -1;
  if (!owner || at < 0 || owner.slice(0, at) !== os.hostname()) return false;
  const pid = Number(owner.slice(at + 1));
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid);
}

/** Removes the orphans' containers, then their volumes (a workspace's volume is in use until its container goes). */
export async function sweepOrphans(docker: Docker): Promise<number> {
  const containers = (await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } })).filter((c) => isOrphan(c.Labels));
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
  const { Volumes } = await docker.listVolumes({ filters: { label: [`${SANDBOX_LABEL}=1`] } });
  const volumes = (Volumes ?? []).filter((v) => isOrphan(v.Labels));
  await removeVolumes(docker, volumes);
  return containers.length + volumes.length;
}

/** Removes volumes, each as far as it goes (one in use or gone already is left to the next sweep). */
export async function removeVolumes(docker: Docker, volumes: ReadonlyArray<{ Name: string }>): Promise<void> {
  await Promise.all(
    volumes.map((v) =>
      docker
        .getVolume(v.Name)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}
