/**
 * Which image an instance runs in, building it when needed — the recipe every sandbox kind shares; a kind
 * supplies only its `ImageEngine` (how an image is looked up, layered and removed).
 *
 * Order of preference:
 *   1. the official SWE-bench instance image, named as the harness names it
 *      (`swebench/sweb.eval.x86_64.<id with "__" → "_1776_">:latest`), when present — or pulled when
 *      `pullOfficialImages` is set and the engine can pull (off by default: a pull talks to a remote registry);
 *   2. an instance layer built locally on an environment image, which is either
 *      (c) the image the user names for the repository/version in the config (`envImages`), or
 *      (b) the environment layer built from the repository's spec (its language folder's specs.json) on the base image.
 *
 * Local layers are made by running the setup commands in a network-less sandbox and keeping its changes, so
 * the same limits and cleanup apply as for any other sandbox. Their names end in hashes of everything that
 * goes into them (parent image identity, repository, commit, commands), so an existing image is reused and a
 * changed input gives a new name.
 *
 * The instance layer holds the repository at its base commit under /testbed as a git checkout made as the
 * harness makes it: the base commit's history and the tags no newer than it, fetched from the local mirror
 * (real commit ids, so the harness' `git checkout <base> -- <files>` and version-from-git tools work).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { officialImageName, type ImageArch, type InstanceSpec } from '../../src/harness/instance-spec.ts';
import type { ResolvedSpec } from '../../src/harness/specs.ts';
import type { CacheLevel, InstanceImage, InstanceImages, Sandbox, SandboxLimits } from '../../src/sandbox/types.ts';
import { harnessCheckout } from './harness-checkout.ts';
import { imageReferenceProblem } from '../../src/util/image-reference.ts';
import { ERROR_KINDS, isDeclaredKind, type ErrorKind } from '../../src/util/error-kinds.ts';
import { KindedError } from '../../src/run/kinded-error.ts';

export const DEFAULT_BASE_IMAGE = 'locfix/base:bookworm';
export const TESTBED = '/testbed';
/** Names of the images locfix builds (what `locfix images` lists and the cache policy may remove). */
export const INSTANCE_IMAGE_PREFIX = 'locfix/sweb.inst.';
export const ENV_IMAGE_PREFIX = 'locfix/sweb.env.';

/** Locates the git directory (bare mirror or .git) of a repository; RepoStore#gitDir fits. */
export interface MirrorLocator {
  gitDir(repo: string): Promise<string>;
}

export interface ImageConfig {
  baseImage?: string;
  /** user-named environment images: key "owner/name@version" (preferred) or "owner/name" */
  envImages?: Record<string, string>;
  /** commands run in /testbed on a user-named environment image instead of the spec's install command */
  instanceSetup?: Record<string, string[]>;
  /** use official SWE-bench images when present (default true) */
  useOfficialImages?: boolean;
  /** try to pull absent official images (default false: a pull reaches a remote registry) */
  pullOfficialImages?: boolean;
  /** the architecture of official images (their names carry it; default x86_64) */
  arch?: ImageArch;
  /**
   * which images locfix built are kept, as the harness' --cache_level: 'instance' keeps all, 'env' (default)
   * removes an instance image once its evaluation is done, 'base' also the environment images it built at the
   * end of the run, 'none' as 'base' (the base image and images locfix did not build are never removed)
   */
  cacheLevel?: CacheLevel;
  /** limit for each setup step while building an image (default 30 min) */
  buildTimeoutMs?: number;
  buildLimits?: Partial<SandboxLimits>;
}

export type ImageLog = (line: string) => void;

/**
 * An image that cannot be had: absent and not buildable here (`image-missing`), a build that failed
 * (`image-build-failed`), or the repository it is built from failing (its git kind). The kind makes the cause: the
 * instance was not reached, whatever its patch.
 */
export class ImageBuildError extends KindedError {
  constructor(
    message: string,
    readonly log?: string,
    kind: ErrorKind = ERROR_KINDS.imageBuildFailed,
  ) {
    super(kind, message);
    this.name = 'ImageBuildError';
  }
}

/** A sandbox a layer is built in: a Sandbox that also takes a host folder. */
export interface LayerSandbox extends Sandbox {
  copyDir(hostDir: string, sandboxDir: string): Promise<void>;
}

/** What a sandbox kind does with images; the recipe above is the same for all. */
export interface ImageEngine {
  /** how its error messages name where images come from, e.g. "scripts/setup-docker.sh" */
  readonly baseImageHint: string;
  exists(name: string): Promise<boolean>;
  /** what identifies an image's content (Docker: the image id) */
  identity(name: string): Promise<string>;
  /**
   * Starts a sandbox of `from` with the build limits, lets `work` run the setup in it, then keeps what the
   * sandbox changed as image `image`, carrying `key` (the hash of what it was built from).
   */
  buildLayer(
    from: string,
    image: string,
    key: string,
    limits: Partial<SandboxLimits> | undefined,
    work: (sandbox: LayerSandbox) => Promise<void>,
  ): Promise<void>;
  /** removes an image locfix built; one gone or still in use is left alone */
  remove(name: string): Promise<void>;
  /** tries to fetch an official image from a registry; false when it cannot */
  pull?(name: string, log: ImageLog): Promise<boolean>;
}

export function hashKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16);
}

/**
 * A path component of the reference grammar (src/util/image-reference.ts): lower case, [a-z0-9] runs joined
 * by ".", "_", "__" or hyphens; any other run of separators becomes "_", and none starts or ends it.
 */
export function imageComponent(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '_')
      .replace(/[._-]{2,}/g, (run) => (run === '__' || /^-+$/.test(run) ? run : '_'))
      .replace(/^[._-]+|[._-]+$/g, '') || 'x'
  );
}

const OFFICIAL_PRELUDE = ['source /opt/miniconda3/bin/activate', 'conda activate testbed'];

export class InstanceImageRecipe implements InstanceImages {
  private readonly builtEnvImages = new Set<string>();
  private readonly inflight = new Map<string, Promise<boolean>>();
  protected readonly config: Required<Pick<ImageConfig, 'baseImage' | 'useOfficialImages' | 'pullOfficialImages' | 'buildTimeoutMs'>> & ImageConfig;

  constructor(
    readonly engine: ImageEngine,
    readonly mirrors: MirrorLocator,
    config: ImageConfig = {},
  ) {
    this.config = { baseImage: DEFAULT_BASE_IMAGE, useOfficialImages: true, pullOfficialImages: false, buildTimeoutMs: 30 * 60_000, ...config };
  }

  /**
   * Why no image for `instance` can be had on this engine, without building anything: a configured environment image
   * that is absent, a spec that needs a network to build, or a missing base image; undefined when one can be had
   * (an official image present, or layers that can be built here). The run asks this before any instance.
   */
  async missingImage(instance: InstanceSpec): Promise<string | undefined> {
    const official = this.config.arch === 'x86_64' ? instance.officialImage : officialImageName(instance.instanceId, this.config.arch);
    if (this.config.useOfficialImages && imageReferenceProblem(official) === undefined && (await this.engine.exists(official))) return undefined;
    const { spec } = instance;
    const named = this.config.envImages?.[`${spec.repo}@${spec.version}`] ?? this.config.envImages?.[spec.repo];
    if (named) return (await this.engine.exists(named)) ? undefined : `environment image ${named} does not exist`;
    if (spec.spec.env_from !== 'base')
      return `no image for ${spec.repo}@${spec.version}: no official image and no --env-image, and its spec needs a network to build`;
    return (await this.engine.exists(this.config.baseImage)) ? undefined : `base image ${this.config.baseImage} is missing; ${this.engine.baseImageHint}`;
  }

  /** The image to evaluate an instance in (building the local layers when they are missing). */
  async instanceImage(instance: InstanceSpec, log: ImageLog = () => undefined): Promise<InstanceImage> {
    const { spec } = instance;
    // a 5.0 row names its image; the arm64 name is the harness' convention
    const official = this.config.arch === 'x86_64' ? instance.officialImage : officialImageName(instance.instanceId, this.config.arch);
    // an id that makes no image name (a character outside the grammar) has no official image: nothing is asked
    if (this.config.useOfficialImages && imageReferenceProblem(official) === undefined) {
      if (await this.engine.exists(official)) {
        log(`using official image ${official}`);
        return { image: official, source: 'official', prelude: OFFICIAL_PRELUDE, spec, built: false };
      }
      if (this.config.pullOfficialImages && this.engine.pull && (await this.engine.pull(official, log))) {
        return { image: official, source: 'official', prelude: OFFICIAL_PRELUDE, spec, built: false };
      }
    }
    const env = await this.envImage(spec, log, official);
    const setup = this.instanceSetupCommands(spec, env.userNamed);
    const envId = await this.engine.identity(env.image);
    // `checkout` names how /testbed is made: images of an earlier recipe (depth 1, no tags) are not reused
    const key = hashKey({ layer: 'instance', from: envId, repo: instance.repo, commit: instance.baseCommit, setup, checkout: 'history+tags' });
    const image = `${INSTANCE_IMAGE_PREFIX}${imageComponent(instance.instanceId)}:${key}`;
    const built = await this.once(image, async () => {
      log(`building instance image ${image} on ${env.image}`);
      const checkout = await fs.mkdtemp(path.join(os.tmpdir(), 'locfix-testbed-'));
      try {
        const gitDir = await this.mirrors.gitDir(instance.repo);
        await harnessCheckout(gitDir, instance.repo, instance.baseCommit, checkout).catch((err: Error) => {
          const kind: unknown = (err as Partial<KindedError>).kind;
          throw new ImageBuildError(err.message, undefined, isDeclaredKind(kind) ? kind : ERROR_KINDS.gitFailed);
        });
        await this.buildLayer(env.image, image, key, log, async (sandbox) => {
          await sandbox.copyDir(checkout, TESTBED);
          return [
            `cd ${TESTBED}`,
            ...setup,
            // As the harness does: whatever setup changed is committed, so `git diff` shows only later edits.
            'git -c user.email=setup@locfix -c user.name=locfix commit --allow-empty -qam locfix-setup',
          ];
        });
      } finally {
        await fs.rm(checkout, { recursive: true, force: true });
      }
    });
    return { image, source: 'local', prelude: [], spec, built };
  }

  /** Done with an instance's image: removed unless the cache level keeps instance images; only images locfix built. */
  async release(image: InstanceImage): Promise<void> {
    if (image.source !== 'local' || (this.config.cacheLevel ?? 'env') === 'instance' || !image.image.startsWith(INSTANCE_IMAGE_PREFIX)) return;
    await this.engine.remove(image.image);
  }

  /** End of a run: at cache levels 'base' and 'none' the environment images this provider built go too. */
  async releaseAll(): Promise<void> {
    const level = this.config.cacheLevel ?? 'env';
    if (level !== 'base' && level !== 'none') return;
    for (const image of this.builtEnvImages) await this.engine.remove(image);
    this.builtEnvImages.clear();
  }

  /** The environment image: user-named, or built from the spec (on the base image). */
  async envImage(spec: ResolvedSpec, log: ImageLog = () => undefined, official?: string): Promise<{ image: string; userNamed: boolean }> {
    const named = this.config.envImages?.[`${spec.repo}@${spec.version}`] ?? this.config.envImages?.[spec.repo];
    if (named) {
      if (!(await this.engine.exists(named))) {
        throw new ImageBuildError(
          `environment image ${named} configured for ${spec.repo}@${spec.version} does not exist locally: build it ` +
            '(scripts/build-env-image.sh, docs/offline-env-images.md) or name another with --env-image',
          undefined,
          ERROR_KINDS.imageMissing,
        );
      }
      return { image: named, userNamed: true };
    }
    if (spec.spec.env_from !== 'base') {
      const registry = official ? `with a registry, docker pull ${official} (or pass --pull)` : '--pull for the official image';
      throw new ImageBuildError(
        `no image for ${spec.repo}@${spec.version}: the official image${official ? ` ${official}` : ''} is absent, the config names no ` +
          `environment image (envImages["${spec.repo}@${spec.version}"]), and the harness spec installs packages from the network, ` +
          `which a network-less build cannot do. Fix it ${registry}, or with --env-image ${spec.repo}@${spec.version}=IMAGE (an image ` +
          'built offline: scripts/build-env-image.sh; docs/offline-env-images.md lists the repositories each recipe serves)',
        undefined,
        ERROR_KINDS.imageMissing,
      );
    }
    const base = this.config.baseImage;
    if (!(await this.engine.exists(base))) {
      throw new ImageBuildError(
        `base image ${base} is missing; ${this.engine.baseImageHint}, or name one with --base-image`,
        undefined,
        ERROR_KINDS.imageMissing,
      );
    }
    const setup = spec.spec.env_setup ?? [];
    if (setup.length === 0) return { image: base, userNamed: false };
    const key = hashKey({ layer: 'env', from: await this.engine.identity(base), setup });
    const image = `${ENV_IMAGE_PREFIX}${imageComponent(spec.pattern.replace('/*', ''))}.${imageComponent(spec.version || 'any')}:${key}`;
    const builtNow = await this.once(image, () => {
      log(`building environment image ${image} on ${base}`);
      return this.buildLayer(base, image, key, log, async () => setup);
    });
    if (builtNow) this.builtEnvImages.add(image);
    return { image, userNamed: false };
  }

  private instanceSetupCommands(spec: ResolvedSpec, userNamedEnv: boolean): string[] {
    const configured = this.config.instanceSetup?.[`${spec.repo}@${spec.version}`] ?? this.config.instanceSetup?.[spec.repo];
    if (configured) return configured;
    if (spec.spec.instance_setup) return spec.spec.instance_setup;
    // On a user-named environment image the harness' own install step applies (e.g. `pip install -e .`).
    return userNamedEnv && spec.spec.install ? [...(spec.spec.pre_install ?? []), ...spec.spec.install] : [];
  }

  /** Runs `build` once per image name (also across concurrent callers); resolves true when it built. */
  private async once(image: string, build: () => Promise<void>): Promise<boolean> {
    if (await this.engine.exists(image)) return false;
    let pending = this.inflight.get(image);
    if (!pending) {
      pending = build().then(() => true);
      this.inflight.set(image, pending);
      pending.finally(() => this.inflight.delete(image)).catch(() => undefined);
      return pending;
    }
    await pending;
    return false;
  }

  /** Starts `from`, runs the commands `prepare` returns as one bash script, keeps the result as `image`. */
  private buildLayer(from: string, image: string, key: string, log: ImageLog, prepare: (sandbox: LayerSandbox) => Promise<string[]>): Promise<void> {
    return this.engine.buildLayer(from, image, key, this.config.buildLimits, async (sandbox) => {
      const commands = await prepare(sandbox);
      const script = ['set -euxo pipefail', ...commands].join('\n') + '\n';
      await sandbox.copyFiles([{ path: '/root/locfix-setup.sh', content: script, mode: 0o755 }]);
      const result = await sandbox.exec('/bin/bash /root/locfix-setup.sh && rm -f /root/locfix-setup.sh', { timeoutMs: this.config.buildTimeoutMs });
      log(result.output);
      if (result.timedOut || result.exitCode !== 0) {
        throw new ImageBuildError(`building ${image} failed: ${result.timedOut ? 'timed out' : `setup exited with ${result.exitCode}`}`, result.output);
      }
      log(`built ${image}`);
    });
  }
}
