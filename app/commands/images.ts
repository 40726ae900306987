/**
 * `locfix sweep [--run-id ID]`: the sandbox containers locfix left behind (a process killed with -9).
 * `locfix images [list]` and `locfix images prune [--keep LEVEL] [--filter TEXT] [--dry-run]`: the images
 * locfix built or names (base, environment, instance), and removing them down to a cache level as the
 * harness' --cache_level keeps them. Official swebench/* images and the user's own are never touched.
 * `locfix images import NAME --archive FILE | --tree DIR | --from-engine IMAGE [--image-store DIR]` and
 * `locfix images list --image-store DIR`: the bwrap backend's image store (sandbox/bwrap/image-store.ts).
 */
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { CACHE_LEVELS, type CacheLevel } from '../../src/sandbox/types.ts';
import { listLocfixImages, pruneLocfixImages, type LocfixImage } from '../../sandbox/docker/image-inventory.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';
import { sandboxIdentity } from '../../sandbox/bwrap/identity.ts';
import { RootfsStore } from '../../sandbox/bwrap/image-store.ts';
import { importArchive, importTree } from '../../sandbox/bwrap/import.ts';
import { BwrapRuntime } from '../../sandbox/bwrap/runtime.ts';
import { useFlags } from './flag-table.ts';
import { defaultImageStore } from '../engine/backends.ts';

function megabytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(0)} MB`;
}

function table(images: readonly LocfixImage[]): string {
  const shown = (i: LocfixImage) => (i.untagged ? `${i.id.slice(7, 19)} (untagged)` : i.name);
  const width = Math.max(5, ...images.map((i) => shown(i).length));
  const rows = images.map(
    (i) => `${i.tier.padEnd(9)} ${shown(i).padEnd(width)} ${megabytes(i.sizeBytes).padStart(8)}  ${i.created.toISOString().slice(0, 16)}`,
  );
  return [`${'tier'.padEnd(9)} ${'image'.padEnd(width)} ${'size'.padStart(8)}  created   (sizes include shared layers)`, ...rows].join('\n');
}

interface StoreFlags {
  imageStore?: string;
  cacheDir?: string;
}

function storeOf(opts: StoreFlags): RootfsStore {
  return new RootfsStore(opts.imageStore ?? defaultImageStore(opts.cacheDir));
}

/** The store's owner and mode, and whose ids its sandboxes run as: what `images list` says first. */
async function describeStore(store: RootfsStore): Promise<string> {
  const described = await store.describe().catch(() => undefined);
  if (!described) return `image store ${store.root}: not made yet`;
  const identity = (() => {
    try {
      const who = sandboxIdentity();
      return who.kind === 'mapped' ? `root's subordinate ids from ${who.uidBase}` : `uid ${who.uid} (root inside)`;
    } catch (err) {
      return `none: ${(err as Error).message}`;
    }
  })();
  const state = described.problem ? `REFUSED: ${described.problem}` : 'private to its owner';
  return `image store ${store.root}: owner uid ${described.uid}, mode ${described.mode} (${state}); sandboxes run as ${identity}`;
}

async function listStore(store: RootfsStore): Promise<void> {
  console.log(await describeStore(store));
  const images = await store.list();
  if (images.length === 0) {
    console.log(`no images in ${store.root} (locfix images import)`);
    return;
  }
  const width = Math.max(5, ...images.map((i) => i.name.length));
  console.log(`${'image'.padEnd(width)}  ${'on'.padEnd(width)}  created`);
  for (const i of images) console.log(`${i.name.padEnd(width)}  ${(i.parent ?? '-').padEnd(width)}  ${i.created.slice(0, 16)}`);
  console.log(`\n${images.length} images in ${store.root}`);
}

async function importImage(name: string, opts: StoreFlags & { archive?: string; tree?: string; fromEngine?: string }): Promise<void> {
  const sources = [opts.archive, opts.tree, opts.fromEngine].filter((s) => s !== undefined);
  if (sources.length !== 1) throw new Error('images import: give exactly one of --archive FILE, --tree DIR, --from-engine IMAGE');
  const store = storeOf(opts);
  const started = Date.now();
  if (opts.tree) await importTree(store, opts.tree, name);
  else if (opts.archive) await importArchive(store, opts.archive, name);
  else {
    const runtime = new DockerRuntime();
    await runtime.ping();
    await importArchive(store, (await runtime.docker.getImage(opts.fromEngine!).get()) as unknown as Readable, name);
  }
  console.log(`imported ${name} into ${store.root} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function list(opts: StoreFlags = {}): Promise<void> {
  if (opts.imageStore) return listStore(storeOf(opts));
  const runtime = new DockerRuntime();
  await runtime.ping();
  const images = await listLocfixImages(runtime);
  if (images.length === 0) {
    console.log('no locfix images (base: scripts/setup-docker.sh; environments: scripts/build-env-image.sh)');
    return;
  }
  console.log(table(images));
  const byTier = (tier: string) => images.filter((i) => i.tier === tier).length;
  console.log(`\n${images.length} images: ${byTier('base')} base, ${byTier('env')} environment, ${byTier('instance')} instance`);
}

export function register(program: Command): void {
  const sweep = program.command('sweep').description('remove the sandboxes locfix left behind (all of them, or those of one run)');
  // `--backend` is the run's flag, parsed by its table: a word that names no backend is refused, not swept as Docker
  useFlags(sweep, ['runId', 'backend', 'imageStore', 'cacheDir'], {
    runId: { description: 'only the sandboxes of this run' },
    backend: { description: 'local (default; Docker) | bwrap: whose sandboxes' },
  }).action(async (opts: StoreFlags & { runId?: string; backend?: string }) => {
    const removed = opts.backend === 'bwrap' ? await new BwrapRuntime({ store: storeOf(opts) }).sweepContainers(opts.runId) : await dockerSweep(opts.runId);
    console.log(`removed ${removed} sandbox(es)${opts.runId ? ` of run ${opts.runId}` : ''}`);
  });

  const images = program.command('images').description("list, prune or import locfix's images (Docker's, or the bwrap backend's store)");
  const listCommand = images
    .command('list', { isDefault: true })
    .description("list the images locfix built or names, by tier (with --image-store: the bwrap backend's images)");
  useFlags(listCommand, ['imageStore']).action(list);
  const importCommand = images
    .command('import <name>')
    .description("put an image into the bwrap backend's image store, from a `docker save`/`podman save` archive, a root filesystem tree, or a Docker engine");
  useFlags(importCommand, ['archive', 'tree', 'fromEngine', 'imageStore', 'cacheDir']).action(importImage);
  const prune = images
    .command('prune')
    .description('remove images down to a cache level, as the harness keeps them: instance images go at "env" (the default)');
  useFlags(prune, ['keep', 'filter', 'dryRun'], {
    keep: { description: `what stays: ${CACHE_LEVELS.join(' | ')} (env keeps base and environment images, base keeps only base images)`, default: 'env' },
  }).action(async (opts: { keep: string; filter?: string; dryRun?: boolean }) => {
    if (!(CACHE_LEVELS as readonly string[]).includes(opts.keep))
      throw new Error(`--keep must be one of ${CACHE_LEVELS.join(', ')}, got ${JSON.stringify(opts.keep)}`);
    const runtime = new DockerRuntime();
    await runtime.ping();
    const result = await pruneLocfixImages(runtime, { keep: opts.keep as CacheLevel, filter: opts.filter, dryRun: opts.dryRun });
    const verb = opts.dryRun ? 'would remove' : 'removed';
    for (const image of result.removed) console.log(`${verb} ${image.name}`);
    for (const image of result.inUse) console.log(`kept ${image.name}: a container still uses it`);
    console.log(`${verb} ${result.removed.length} image tag(s)${result.inUse.length ? `; ${result.inUse.length} in use, kept` : ''}`);
  });
}

async function dockerSweep(runId: string | undefined): Promise<number> {
  const runtime = new DockerRuntime();
  await runtime.ping();
  return runtime.sweepContainers(runId);
}
