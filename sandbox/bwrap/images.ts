/**
 * Images of the bubblewrap kind: the shared recipe (sandbox/common/image-recipe.ts) over a RootfsStore. A
 * layer is built by running the setup in a sandbox of its parent and keeping that sandbox's writable layer
 * (overlayfs whiteouts included) as the new image's layer, on top of its parent's.
 */
import { createHash } from 'node:crypto';
import { MissingImageError, type SandboxLimits } from '../../src/sandbox/types.ts';
import { type ImageEngine, type LayerSandbox, TESTBED } from '../common/image-recipe.ts';
import { ImageStoreError, removeTree } from './image-store.ts';
import { settleLayer } from './layer-owners.ts';
import type { BwrapRuntime } from './runtime.ts';

export class BwrapImageEngine implements ImageEngine {
  readonly baseImageHint = 'import it into the image store with `locfix images import` (a `docker save` archive or a debootstrap tree)';

  constructor(readonly runtime: BwrapRuntime) {}

  exists(name: string): Promise<boolean> {
    return this.runtime.store.exists(name);
  }

  /** the record's hash: a re-import or rebuild under the same name gives a new identity */
  async identity(name: string): Promise<string> {
    const image = await this.runtime.store.get(name);
    if (!image) throw new MissingImageError(name, `the image store ${this.runtime.store.root}`);
    return `sha256:${createHash('sha256').update(JSON.stringify(image)).digest('hex')}`;
  }

  async buildLayer(
    from: string,
    image: string,
    key: string,
    limits: Partial<SandboxLimits> | undefined,
    work: (sandbox: LayerSandbox) => Promise<void>,
  ): Promise<void> {
    const parent = await this.runtime.store.get(from);
    if (!parent) throw new MissingImageError(from, `the image store ${this.runtime.store.root}`);
    const sandbox = await this.runtime.create({ image: from, runId: 'image-build', limits });
    const layer = await this.runtime.store.scratch('layer');
    try {
      await work(sandbox);
      await removeTree(layer);
      await sandbox.takeUpperLayer(layer);
      // a build step ran as root inside: whatever setuid or setgid file it left is cleared (layer-owners.ts)
      await settleLayer(layer);
      await this.runtime.store.add(
        {
          name: image,
          parent: from,
          key,
          env: parent.env,
          workdir: image.includes('sweb.inst.') ? TESTBED : parent.workdir,
          ...(parent.owners ? { owners: parent.owners } : {}),
        },
        layer,
      );
    } finally {
      await sandbox.dispose();
      await removeTree(layer);
    }
  }

  async remove(name: string): Promise<void> {
    // an image a live sandbox uses stays, as Docker answers 409 for an image a container still uses
    if (await this.runtime.imageInUse(name)) return;
    // an image another is built on stays, as Docker keeps an image a container still uses
    await this.runtime.store.remove(name).catch((err) => {
      if (!(err instanceof ImageStoreError)) throw err;
    });
  }
}
