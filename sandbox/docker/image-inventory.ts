/**
 * locfix's images on one engine, by tier, and pruning them down to a cache level (`locfix images`).
 *
 * The tiers follow the harness' `--cache_level` (none < base < env < instance): pruning to a level keeps
 * the tiers at or below it and removes the tiers above. Only images locfix names are touched — the base
 * image (`locfix/base:*`), environment images (`locfix/sweb.env.*` built from specs, `locfix/env.*` built
 * offline by scripts/build-env-image.sh) and instance images (`locfix/sweb.inst.*`). Official
 * `swebench/*` images and the user's own are never removed.
 *
 * A layer locfix built (it carries IMAGE_KEY_LABEL) can lose its name: a second build of the same image
 * moves the tag, and the first stays behind untagged, hundreds of MB that no name would ever show. Those
 * are listed too, by id, in the instance tier (the lowest that can hold them).
 */
import type { CacheLevel } from '../../src/sandbox/types.ts';
import { ENV_IMAGE_PREFIX, IMAGE_KEY_LABEL, INSTANCE_IMAGE_PREFIX } from './images.ts';
import type { DockerRuntime } from './sandbox.ts';

export type ImageTier = 'base' | 'env' | 'instance';

export interface LocfixImage {
  /** repository:tag */
  name: string;
  tier: ImageTier;
  id: string;
  /** the image's size with the layers it shares with others (what `docker images` shows) */
  sizeBytes: number;
  created: Date;
  /** a layer locfix built that no tag names any more; `name` is its id */
  untagged?: boolean;
}

/** The images of each tier that a cache level removes (the harness' semantics, in prune form). */
const REMOVED_AT: Record<CacheLevel, readonly ImageTier[]> = {
  instance: [],
  env: ['instance'],
  base: ['instance', 'env'],
  none: ['instance', 'env', 'base'],
};

export const OFFLINE_ENV_IMAGE_PREFIX = 'locfix/env.';
export const BASE_IMAGE_PREFIX = 'locfix/base:';

export function imageTier(name: string): ImageTier | undefined {
  if (name.startsWith(INSTANCE_IMAGE_PREFIX)) return 'instance';
  if (name.startsWith(ENV_IMAGE_PREFIX) || name.startsWith(OFFLINE_ENV_IMAGE_PREFIX)) return 'env';
  if (name.startsWith(BASE_IMAGE_PREFIX)) return 'base';
  return undefined;
}

/** Every image tag locfix names, newest first. */
export async function listLocfixImages(runtime: DockerRuntime): Promise<LocfixImage[]> {
  const summaries = await runtime.docker.listImages();
  const images: LocfixImage[] = [];
  for (const summary of summaries) {
    const created = new Date(summary.Created * 1000);
    const tags = (summary.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
    for (const name of tags) {
      const tier = imageTier(name);
      if (tier) images.push({ name, tier, id: summary.Id, sizeBytes: summary.Size, created });
    }
    if (tags.length === 0 && summary.Labels?.[IMAGE_KEY_LABEL]) {
      images.push({ name: summary.Id, tier: 'instance', id: summary.Id, sizeBytes: summary.Size, created, untagged: true });
    }
  }
  return images.sort((a, b) => b.created.getTime() - a.created.getTime() || a.name.localeCompare(b.name));
}

export interface PruneOptions {
  /** the cache level to prune down to: tiers above it go (default 'env': instance images go) */
  keep?: CacheLevel;
  /** only names containing this text */
  filter?: string;
  /** say what would go without removing anything */
  dryRun?: boolean;
}

export interface PruneResult {
  removed: LocfixImage[];
  /** images still used by a container, left in place */
  inUse: LocfixImage[];
}

/**
 * Removes the images above the cache level. A tag whose image other tags share is untagged (the image
 * stays for them); an image a container still uses is left and reported, never forced away from it.
 */
export async function pruneLocfixImages(runtime: DockerRuntime, options: PruneOptions = {}): Promise<PruneResult> {
  const removedTiers = REMOVED_AT[options.keep ?? 'env'];
  const candidates = (await listLocfixImages(runtime)).filter(
    (image) => removedTiers.includes(image.tier) && (!options.filter || image.name.includes(options.filter)),
  );
  const result: PruneResult = { removed: [], inUse: [] };
  for (const image of candidates) {
    if (options.dryRun) {
      result.removed.push(image);
      continue;
    }
    try {
      await runtime.docker.getImage(image.name).remove();
      result.removed.push(image);
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) continue;
      if (status === 409) result.inUse.push(image);
      else throw err;
    }
  }
  return result;
}
