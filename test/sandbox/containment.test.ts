/**
 * The containment battery (test/support/containment-battery.ts) on every sandbox kind, as root: Docker is the
 * reference and bubblewrap must refuse every case it refuses. Before issue 50, bwrap as root let a sandbox write
 * kernel.core_pattern (the host escape), add a key to host root's keyring, make user namespaces, and read the host's
 * environment and store paths in /proc/1; each of those cases failed here. The unprivileged run is
 * containment-rootless.test.ts.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import type { BwrapRuntime, BwrapSandbox } from '../../sandbox/bwrap/runtime.ts';
import { DEFAULT_BASE_IMAGE } from '../../sandbox/common/image-recipe.ts';
import type { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { type BatteryContext, batteryToken, CONTAINMENT_CASES } from '../support/containment-battery.ts';
import { sandboxKinds, type SandboxKind } from '../support/sandbox-kinds.ts';

const kinds = await sandboxKinds('containment battery');

function batteryContext(kind: SandboxKind): BatteryContext {
  const base = { image: DEFAULT_BASE_IMAGE, runId: `battery-${kind.name}-${process.pid}`, token: batteryToken() };
  if (kind.name === 'bwrap') {
    const runtime = kind.runtime as unknown as BwrapRuntime;
    return {
      ...base,
      hostPaths: [process.cwd(), runtime.store.root, os.homedir()].filter((p) => p.length > 4),
      runtime: {
        create: (options) => runtime.create(options),
        memoryLimit: async () => (await runtime.limitsInEffect()).memory,
        hostPathOf: async (sandbox, inside) => `${(sandbox as BwrapSandbox).upperDir}${inside}`,
      },
    };
  }
  const runtime = kind.runtime as unknown as DockerRuntime;
  return {
    ...base,
    hostPaths: [process.cwd(), '/var/lib/docker'],
    runtime: {
      create: (options) => runtime.create(options),
      hostPathOf: async (sandbox, inside) => {
        const info = await runtime.docker.getContainer(sandbox.id).inspect();
        return `${(info.GraphDriver.Data as Record<string, string>).UpperDir}${inside}`;
      },
    },
  };
}

describe.each(kinds)('containment battery on $name, as root', (kind) => {
  const ctx = batteryContext(kind);
  it.each(CONTAINMENT_CASES.map((c) => [c.name, c] as const))('%s: refused', { timeout: 120_000 }, async (_name, battery) => {
    const outcome = await battery.run(ctx);
    if (outcome.verdict === 'limitation') expect.soft(outcome.why, 'a limitation is said, not hidden').toMatch(/\w/);
    expect(outcome, JSON.stringify(outcome)).toEqual(outcome.verdict === 'limitation' && process.getuid?.() !== 0 ? outcome : { verdict: 'refused' });
  });
});
