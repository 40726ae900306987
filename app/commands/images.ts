/**
 * `locfix sweep [--run-id ID]`: the sandbox containers locfix left behind (a process killed with -9).
 * `locfix images [list]` and `locfix images prune [--keep LEVEL] [--filter TEXT] [--dry-run]`: the images
 * locfix built or names (base, environment, instance), and removing them down to a cache level as the
 * harness' --cache_level keeps them. Official swebench/* images and the user's own are never touched.
 */
import type { Command } from 'commander';
import { CACHE_LEVELS, type CacheLevel } from '../../src/sandbox/types.ts';
import { listLocfixImages, pruneLocfixImages, type LocfixImage } from '../../sandbox/docker/image-inventory.ts';
import { DockerRuntime } from '../../sandbox/docker/sandbox.ts';

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

async function list(): Promise<void> {
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
  program
    .command('sweep')
    .description('remove the sandbox containers locfix left running (all of them, or those of one run)')
    .option('--run-id <id>', 'only the containers of this run')
    .action(async (opts: { runId?: string }) => {
      const runtime = new DockerRuntime();
      await runtime.ping();
      const removed = await runtime.sweepContainers(opts.runId);
      console.log(`removed ${removed} container(s)${opts.runId ? ` of run ${opts.runId}` : ''}`);
    });

  const images = program.command('images').description("list or prune locfix's Docker images (base, environment, instance)");
  images.command('list', { isDefault: true }).description('list the images locfix built or names, by tier').action(list);
  images
    .command('prune')
    .description('remove images down to a cache level, as the harness keeps them: instance images go at "env" (the default)')
    .option('--keep <level>', `what stays: ${CACHE_LEVELS.join(' | ')} (env keeps base and environment images, base keeps only base images)`, 'env')
    .option('--filter <text>', 'only images whose name contains this text')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .action(async (opts: { keep: string; filter?: string; dryRun?: boolean }) => {
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
