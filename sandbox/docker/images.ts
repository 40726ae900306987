/**
 * Images on a Docker-API engine: the shared recipe (sandbox/common/image-recipe.ts) over Docker's images.
 * A layer is built by running the setup in a network-less container and committing it; its label
 * IMAGE_KEY_LABEL carries the key of what it was built from (image-inventory.ts finds untagged ones by it).
 */
import type { SandboxLimits } from '../../src/sandbox/types.ts';
import {
  type ImageConfig,
  type ImageEngine,
  type ImageLog,
  InstanceImageRecipe,
  type LayerSandbox,
  type MirrorLocator,
  TESTBED,
} from '../common/image-recipe.ts';
import type { DockerRuntime } from './sandbox.ts';

export {
  DEFAULT_BASE_IMAGE,
  ENV_IMAGE_PREFIX,
  INSTANCE_IMAGE_PREFIX,
  ImageBuildError,
  TESTBED,
  type ImageConfig,
  type ImageLog,
  type MirrorLocator,
} from '../common/image-recipe.ts';

/** The label every layer locfix commits carries: the key of what it was built from. */
export const IMAGE_KEY_LABEL = 'locfix.image.key';

export function splitImageName(image: string): [string, string] {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, 'latest'];
}

/** Docker's side of the recipe: images by name, layers by commit. */
export class DockerImageEngine implements ImageEngine {
  readonly baseImageHint = 'build it with scripts/setup-docker.sh';

  constructor(readonly runtime: DockerRuntime) {}

  exists(name: string): Promise<boolean> {
    return this.runtime.imageExists(name);
  }

  async identity(name: string): Promise<string> {
    return (await this.runtime.docker.getImage(name).inspect()).Id;
  }

  async buildLayer(
    from: string,
    image: string,
    key: string,
    limits: Partial<SandboxLimits> | undefined,
    work: (sandbox: LayerSandbox) => Promise<void>,
  ): Promise<void> {
    const sandbox = await this.runtime.create({ image: from, runId: 'image-build', namePrefix: 'locfix-build', limits });
    try {
      await work(sandbox);
      const [repo, tag] = splitImageName(image);
      await sandbox.container.commit({
        repo,
        tag,
        changes: [`WORKDIR ${image.includes('sweb.inst.') ? TESTBED : '/'}`, 'CMD ["/bin/bash"]', `LABEL ${IMAGE_KEY_LABEL}=${key}`],
      });
    } finally {
      await sandbox.dispose();
    }
  }

  async remove(name: string): Promise<void> {
    await this.runtime.docker
      .getImage(name)
      .remove({ force: true })
      .catch((err: { statusCode?: number }) => {
        // 404: already gone; 409: in use by a container that still runs (it goes with the container)
        if (err?.statusCode !== 404 && err?.statusCode !== 409) throw err;
      });
  }

  async pull(image: string, log: ImageLog): Promise<boolean> {
    try {
      const stream = await this.runtime.docker.pull(image);
      await new Promise<void>((resolve, reject) => this.runtime.docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
      log(`pulled official image ${image}`);
      return true;
    } catch (err) {
      // No registry reachable, or no such image: fall through to local layers without noise.
      log(`official image ${image} not pullable (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`);
      return false;
    }
  }
}

/** Finds or builds an instance's image on one Docker engine. */
export class ImageProvider extends InstanceImageRecipe {
  constructor(
    readonly runtime: DockerRuntime,
    mirrors: MirrorLocator,
    config: ImageConfig = {},
  ) {
    super(new DockerImageEngine(runtime), mirrors, config);
  }
}
