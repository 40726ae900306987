/**
 * The sandbox kinds the validation and evaluation suites run on: Docker (sandbox/docker/) and bubblewrap
 * (sandbox/bwrap/), each with a runtime, its images and a way to count what a run left. A suite written as
 * `describe.each(await sandboxKinds('…'))` passes on both or fails naming the kind.
 *
 * The bwrap kind's image store lives under the system's temporary folder (LOCFIX_BWRAP_TEST_STORE overrides
 * it) and gets the base image from Docker's once (`docker save`, flattened), under a lock so that test files
 * running at once import it once. With LOCFIX_REQUIRE_BWRAP=1 (CI) a kind that cannot run fails loudly.
 */
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DEFAULT_BASE_IMAGE, type ImageConfig, InstanceImageRecipe, type MirrorLocator } from '../../sandbox/common/image-recipe.ts';
import { ImageProvider } from '../../sandbox/docker/images.ts';
import { DockerRuntime, RUN_LABEL } from '../../sandbox/docker/sandbox.ts';
import { ownersLabel, sandboxIdentity } from '../../sandbox/bwrap/identity.ts';
import { RootfsStore } from '../../sandbox/bwrap/image-store.ts';
import { importArchive } from '../../sandbox/bwrap/import.ts';
import { BwrapImageEngine } from '../../sandbox/bwrap/images.ts';
import { BwrapRuntime } from '../../sandbox/bwrap/runtime.ts';
import type { InstanceImages, Sandbox, SandboxOptions, SandboxRuntime } from '../../src/sandbox/types.ts';
import { withFileLock } from '../../src/util/file-lock.ts';
import { dockerAvailable, ensureDocker } from './docker.ts';

export interface SandboxKind {
  name: 'docker' | 'bwrap';
  runtime: SandboxRuntime & { create(options: SandboxOptions): Promise<Sandbox> };
  images(mirrors: MirrorLocator, config?: ImageConfig): InstanceImages;
  /** sandboxes of the run that are still there */
  leftovers(runId: string): Promise<number>;
  /** what `locfix evaluate` / `locfix run` take to use this kind */
  cliFlags: string[];
}

export function bwrapTestStore(): RootfsStore {
  return new RootfsStore(process.env.LOCFIX_BWRAP_TEST_STORE ?? path.join(os.tmpdir(), 'locfix-bwrap-test-store'));
}

let bwrapReady: Promise<{ ok: boolean; reason?: string }> | undefined;

/** bwrap runs here and the test store holds the base image (imported from Docker's when missing). */
export function bwrapAvailable(): Promise<{ ok: boolean; reason?: string }> {
  bwrapReady ??= (async () => {
    if (!['/usr/bin/bwrap', '/bin/bwrap', '/usr/local/bin/bwrap'].some((p) => existsSync(p)))
      return { ok: false, reason: 'bwrap is not installed (apt-get install bubblewrap)' };
    const store = bwrapTestStore();
    try {
      await withFileLock(
        path.join(os.tmpdir(), 'locfix-bwrap-test-store.lock'),
        async () => {
          await discardOlderStore(store);
          await new BwrapRuntime({ store }).ping();
          if (await store.exists(DEFAULT_BASE_IMAGE)) return;
          const docker = await dockerAvailable();
          if (!docker.ok) throw new Error(`the test store has no ${DEFAULT_BASE_IMAGE} and Docker cannot give it: ${docker.reason}`);
          const archive = (await new DockerRuntime().docker.getImage(DEFAULT_BASE_IMAGE).get()) as unknown as Readable;
          await importArchive(store, archive, DEFAULT_BASE_IMAGE);
        },
        { timeoutMs: 300_000, what: 'the bwrap test store' },
      );
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    }
  })();
  return bwrapReady;
}

/**
 * A test store left by an older locfix (open to others, or its images holding host ids instead of the sandboxes')
 * is removed, so the tests import the base image again instead of failing on a machine that ran them before.
 */
async function discardOlderStore(store: RootfsStore): Promise<void> {
  const described = await store.describe().catch(() => undefined);
  if (!described) return;
  const base = await store.get(DEFAULT_BASE_IMAGE).catch(() => undefined);
  if (described.problem || (base && base.owners !== ownersLabel(sandboxIdentity()))) await fs.rm(store.root, { recursive: true, force: true });
}

/** For `describe.skipIf(!(await ensureBwrap()))`: as ensureDocker, with LOCFIX_REQUIRE_BWRAP. */
export async function ensureBwrap(suite = 'bwrap tests'): Promise<boolean> {
  const status = await bwrapAvailable();
  if (status.ok) return true;
  if (process.env.LOCFIX_REQUIRE_BWRAP === '1') throw new Error(`${suite}: bubblewrap is required (LOCFIX_REQUIRE_BWRAP=1) but not usable: ${status.reason}`);
  console.warn(`[skip] ${suite}: ${status.reason}`);
  return false;
}

export function dockerKind(concurrency = 2): SandboxKind {
  const runtime = new DockerRuntime({ concurrency });
  return {
    name: 'docker',
    runtime,
    images: (mirrors, config) => new ImageProvider(runtime, mirrors, config),
    leftovers: async (runId) => (await runtime.docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } })).length,
    cliFlags: [],
  };
}

export function bwrapKind(concurrency = 2): SandboxKind {
  const runtime = new BwrapRuntime({ store: bwrapTestStore(), concurrency });
  return {
    name: 'bwrap',
    runtime,
    images: (mirrors, config) => new InstanceImageRecipe(new BwrapImageEngine(runtime), mirrors, config),
    leftovers: (runId) => runtime.sandboxesOfRun(runId),
    cliFlags: ['--backend', 'bwrap', '--image-store', runtime.store.root],
  };
}

/** The kinds that can run here (each skipped with its reason, or an error under LOCFIX_REQUIRE_*). */
export async function sandboxKinds(suite: string, concurrency = 2): Promise<SandboxKind[]> {
  const kinds: SandboxKind[] = [];
  if (await ensureDocker(`${suite} (docker)`)) kinds.push(dockerKind(concurrency));
  if (await ensureBwrap(`${suite} (bwrap)`)) kinds.push(bwrapKind(concurrency));
  return kinds;
}
